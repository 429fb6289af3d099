"""The one place for quota and order (jobs/policy.py), on hand-made entries."""

import pytest

from jobs import Job, Limits, QueueFull
from jobs.job import Requester
from jobs.policy import Entry, admit, ahead, duration, ends, left, next_job
from tests.jobs.fake import WORDS


def test_a_requester_at_its_quota_is_refused_with_its_limit_and_no_one_counts_for_nobody():
    entries = [Entry("s1", True, 10), Entry("", False, 10), Entry("", False, 10)]
    with pytest.raises(QueueFull, match=r"^You have 1 already\. Expected wait: about 10 s\.$"):
        admit(entries, "s1", Limits(per_requester=1, queued=9), WORDS, 1.0, 1)
    admit(entries, "s2", Limits(per_requester=1, queued=9), WORDS, 1.0, 1)
    admit(entries, "", Limits(per_requester=1, queued=9), WORDS, 1.0, 1)  # a job for everyone


def test_the_queue_counts_running_jobs_only_where_the_limits_say():
    entries = [Entry("a", True, 30), Entry("b", False, 10)]
    with pytest.raises(QueueFull) as full:
        admit(entries, "c", Limits(per_requester=1, queued=2), WORDS, 0.5, 2)
    assert str(full.value) == "Full: 2 jobs, 10 s ahead.", "every job's work left, at the pace, over the workers"
    admit(entries, "c", Limits(per_requester=1, queued=2, running_counts=False), WORDS, 0.5, 2)


def test_work_left_is_exact_for_whole_steps():
    assert [left(2000, 40, 2000), left(28, 0, 0), left(28, 3, 12), left(5, 9, 5)] == [1960.0, 28, 21.0, 0.0]


def test_the_job_asked_for_first_runs_first():
    jobs = [Job(name, None) for name in "abc"]
    for job, order in zip(jobs, (2, 0, 1), strict=True):
        job.order = order
    assert next_job(jobs).key == "b"


def test_a_device_is_refused_past_its_quota_whichever_of_its_sessions_asks_and_told_the_real_wait():
    entries = [Entry("tab1", True, 30, "10.0.0.9"), Entry("other", False, 40, "10.0.0.7"),
               Entry("tab2", False, 20, "10.0.0.9")]
    with pytest.raises(QueueFull) as refused:
        admit(entries, Requester("tab3", "10.0.0.9"), Limits(per_requester=1, queued=9, per_device=2), WORDS, 2.0, 1)
    # tab1 runs: 30 units left at 2 s a unit = 60 s, the first of the device's two to end
    assert str(refused.value).startswith("This device already has 2 of these") and str(refused.value).endswith(
        "Expected wait: about 60 s.")
    admit(entries, Requester("tab3", "10.0.0.8"), Limits(per_requester=1, queued=9, per_device=2), WORDS, 2.0, 1)
    admit(entries, Requester("tab3", ""), Limits(per_requester=1, queued=9, per_device=2), WORDS, 2.0, 1)


def test_the_teacher_is_never_refused_for_a_full_queue_but_keeps_the_quotas():
    entries = [Entry("a", True, 10, "10.0.0.1"), Entry("b", False, 10, "10.0.0.2")]
    limits = Limits(per_requester=1, queued=2, per_device=2)
    with pytest.raises(QueueFull, match="^Full"):
        admit(entries, Requester("c", "10.0.0.3"), limits, WORDS, 1.0, 1)
    admit(entries, Requester("t", "", teacher=True), limits, WORDS, 1.0, 1)
    with pytest.raises(QueueFull, match="^You have 1"):
        admit([*entries, Entry("t", False, 5, "", True)], Requester("t", "", teacher=True), limits, WORDS, 1.0, 1)


def test_when_each_job_ends_follows_the_run_order_the_teacher_first_then_devices_with_nothing_running():
    entries = [Entry("a1", True, 10, "A"), Entry("a2", False, 20, "A"), Entry("b", False, 30, "B"),
               Entry("t", False, 5, "", True)]
    # order: a1 (running, 10), then t (teacher, 5), b (device B runs nothing, 30), a2 (A runs a1, 20); 1 s a unit
    assert ends(entries, 1.0, 1) == [10, 65, 45, 15]
    assert ends(entries, 1.0, 2) == [10, 42.5, 37.5, 10]  # the work ahead (45, 10, 15) shared by two workers


def test_the_next_job_is_the_teachers_then_one_of_a_device_with_nothing_running_then_the_first_asked():
    def job(name, order, device="", teacher=False, state="queued"):
        made = Job(name, None, Requester(name, device, teacher))
        made.order, made._status = order, type(made._status)(state)
        return made

    running = job("a1", 0, "A", state="running")
    a2, b, c = job("a2", 1, "A"), job("b", 2, "B"), job("c", 3, "C")
    assert next_job([a2, b, c], [running]).key == "b", "A's second job waits behind everyone's first"
    teacher = job("t", 4, "A", teacher=True)
    assert next_job([a2, b, c, teacher], [running]).key == "t"
    assert [ahead(j, [running, a2, b, c, teacher]) for j in (teacher, b, c, a2)] == [1, 2, 3, 4]


def test_a_wait_is_said_in_whole_five_seconds_then_minutes():
    assert [duration(s) for s in (0.2, 41, 89, 90, 181)] == ["about 5 s", "about 45 s", "about 90 s", "about 2 min",
                                                             "about 4 min"]
