"""The in-process queue (jobs/local.py) with the fake task (tests/jobs/fake.py): sharing, cancel, memory,
failures, pace and shutdown, once for every task. (Renders and films test their own behaviour on it.)"""

import logging
import threading

import pytest

from jobs import QueueFull, Runner
from jobs.local import LocalQueue
from jobs.policy import Limits
from tests.jobs.fake import Fake, request


@pytest.fixture
def queue(tmp_path):
    made = []

    def make(limits=None, task=None, **kw) -> LocalQueue:
        made.append(LocalQueue(task or Fake(tmp_path), limits or Limits(per_requester=2, queued=9), **kw))
        return made[-1]

    yield make
    for q in made:
        q.task.gate.set()
        q.shutdown()


def test_identical_requests_share_one_job_its_progress_and_its_result(queue):
    q = queue()
    first, second = q.submit(request("a", hold=True), "s1"), q.submit(request("a", hold=True), "s2")
    assert first is second and first.requesters == {"s1", "s2"} and first.total == 3
    q.task.gate.set()
    assert first.wait(10) and (first.state, first.done, first.total) == ("done", 3, 3)
    assert first.status.extra["last"] == 3 and first.result.read_text() == "made"
    assert q.submit(request("a"), "s3") is first and q.task.runs == ["a"]


def test_cancel_stops_a_job_only_when_its_last_requester_lets_go(queue):
    q = queue(limits=Limits(per_requester=1, queued=9))
    running = q.submit(request("run", steps=200, step_s=0.01, hold=True), "s1")
    waiting = q.submit(request("wait"), "s2")
    q.submit(request("wait"), "s3")
    assert q.cancel("wait", "intruder") is False
    assert q.cancel("wait", "s2") is False and waiting.state == "queued", "s3 still waits for it"
    q.submit(request("other"), "s2")  # s2 let go of its job: its place is free again
    assert q.cancel("wait", "s3") is True and (waiting.state, waiting.error) == ("failed", "Stopped.")
    q.task.gate.set()
    assert q.cancel("run", "s1") is True
    assert running.wait(10) and (running.state, running.error) == ("failed", "Stopped.") and running.done < 200
    assert "wait" not in q.task.runs


def test_finished_jobs_are_forgotten_beyond_the_bound_and_active_ones_kept(queue):
    q = queue(workers=2, remember=3)
    active = q.submit(request("held", hold=True))
    for n in range(8):
        assert q.submit(request(f"j{n}")).wait(10)
    assert active.active and q._jobs["held"] is active, "never dropped while it runs"
    assert [job.key for job in q._jobs.values() if not job.active] == ["j5", "j6", "j7"]  # the last three
    q.task.gate.set()
    assert active.wait(10)
    again = q.submit(request("j0"))  # a forgotten job's result is still found: no new run
    assert again.state == "done" and again.result.is_file() and q.task.runs.count("j0") == 1


def test_a_failure_says_its_sentence_and_a_bug_is_logged_with_its_traceback(queue, caplog):
    q = queue()
    failed = q.submit(request("f", how="fail"), "s1")
    assert failed.wait(10) and (failed.state, failed.error) == ("failed", "It failed, as asked.")
    assert failed.status.extra["log"] == "the details"
    with caplog.at_level(logging.ERROR, logger="jobs.local"):
        crashed = q.submit(request("c", how="crash"), "s1")
        assert crashed.wait(10)
    assert (crashed.state, crashed.error) == ("failed", "A bug.")
    assert "Traceback" in caplog.text and "ValueError: a fake bug" in caplog.text
    assert q.submit(request("after")).wait(10), "the queue goes on"


def test_a_paced_task_sets_the_pace_of_the_wait_from_its_runs(queue):
    q = queue(limits=Limits(per_requester=9, queued=2))
    assert q.submit(request("timed", steps=4)).wait(10) and q.pace == 0.5  # the fake's 0.5 s of work a step
    q.submit(request("x", steps=10, hold=True))
    q.submit(request("y", steps=30))
    with pytest.raises(QueueFull, match=r"^Full: 2 jobs, 20 s ahead\.$"):
        q.submit(request("z"))


class Counted(Runner):
    killed = 0

    def kill(self):
        Counted.killed += 1


def test_shutdown_ends_every_active_job_kills_the_runners_and_starts_nothing(queue, tmp_path):
    task = Fake(tmp_path)
    task.runner = lambda: Counted(task)
    q = queue(task=task, workers=2)
    jobs = [q.submit(request(name, hold=True)) for name in "abc"]
    while len(task.runs) < 2:
        threading.Event().wait(0.01)
    q.shutdown(wait=False)
    assert all((job.state, job.error) == ("failed", "Shutting down.") for job in jobs)
    assert Counted.killed == 2
    task.gate.set()
    q.shutdown(wait=True)
    assert sorted(task.runs) == ["a", "b"] and all(job.error == "Shutting down." for job in jobs)
    with pytest.raises(QueueFull, match="Shutting down"):
        q.submit(request("d"))


def test_one_device_holds_at_most_its_quota_whatever_its_sessions_and_the_teacher_goes_first(queue):
    from jobs.job import Requester

    q = queue(limits=Limits(per_requester=1, queued=9, per_device=2))
    first = q.submit(request("d1", hold=True), Requester("tab1", "10.0.0.9"))
    while first.state != "running":
        threading.Event().wait(0.01)
    q.submit(request("d2"), Requester("tab2", "10.0.0.9"))
    with pytest.raises(QueueFull, match="^This device already has 2"):
        q.submit(request("d3"), Requester("tab3", "10.0.0.9"))
    other = q.submit(request("o1"), Requester("s", "10.0.0.7"))
    teacher = q.submit(request("t1"), Requester("teacher", "", teacher=True))
    assert [q.waiting(j) for j in (teacher, other)] == [1, 2], "the teacher's, then a device running nothing"
    q.task.gate.set()
    assert first.wait(10)
    for job in list(q._jobs.values()):
        assert job.wait(10)
    assert q.task.runs == ["d1", "t1", "d2", "o1"]  # once d1 ended, its device runs nothing: first asked, first


def test_a_job_whose_sessions_have_all_gone_is_stopped_and_a_polling_tab_keeps_it(queue):
    there = {"a", "b", "watcher"}
    q = queue(alive=lambda session: session in there, grace_s=0.0)
    running = q.submit(request("run", steps=400, step_s=0.02), "a")
    waiting = q.submit(request("wait"), "b")
    shared = q.submit(request("shared", hold=True), "")
    while running.done == 0:
        threading.Event().wait(0.01)
    q.waiting(running, "watcher")  # a reload's new tab follows the job: it waits for it too
    there -= {"a", "b"}
    q.sweep()
    q.sweep()  # gone at the first look, stopped at the next (grace 0)
    assert (waiting.state, waiting.error) == ("failed", "Nobody waited.")
    assert running.active and not running.stop, "the watcher still waits"
    there.discard("watcher")
    q.sweep()
    q.sweep()
    assert running.wait(10) and running.state == "failed" and running.done < 400
    assert shared.active, "a job for everyone is nobody's to cancel"


def test_the_sessions_sweep_goes_on_after_a_sweep_fails(monkeypatch):
    """A sweep that raises something unforeseen (seen: redis-py's reader torn down mid-read while Redis
    restarted) must not end the sweeping thread: the jobs of every tab closed later would run on."""
    from types import SimpleNamespace

    from jobs import sessions

    monkeypatch.setattr(sessions, "SWEEP_S", 0.01)
    calls, again = [], threading.Event()

    def sweep():
        calls.append(1)
        if len(calls) == 1:
            raise AttributeError("'NoneType' object has no attribute 'readline'")
        again.set()

    queue = SimpleNamespace(closed=False, task=SimpleNamespace(name="fake"), sweep=sweep)
    sessions.sweep_forever(queue, errors=(ConnectionError,))
    try:
        assert again.wait(timeout=10), "no sweep after the failed one"
    finally:
        queue.closed = True
