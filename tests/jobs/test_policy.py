"""The one place for quota and order (jobs/policy.py), on hand-made entries."""

import pytest

from jobs import Job, Limits, QueueFull
from jobs.policy import Entry, admit, left, next_job
from tests.jobs.fake import WORDS


def test_a_requester_at_its_quota_is_refused_with_its_limit_and_no_one_counts_for_nobody():
    entries = [Entry("s1", True, 10), Entry("", False, 10), Entry("", False, 10)]
    with pytest.raises(QueueFull, match=r"^You have 1 already\.$"):
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
