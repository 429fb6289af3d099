"""The Redis queue (jobs/rq_queue.py) against a real (throwaway) Redis with the fake task
(tests/jobs/fake.py), and, in the slow test, a real `python -m jobs.worker` running its jobs."""

import os
import subprocess
import sys
import time

import pytest

pytest.importorskip("rq")

from jobs import Limits, QueueFull  # noqa: E402
from jobs.rq_keys import Keys  # noqa: E402
from jobs.rq_queue import RQQueue  # noqa: E402
from tests.conftest import ROOT  # noqa: E402
from tests.jobs.fake import Fake, request  # noqa: E402


@pytest.fixture
def lab(redis_url, tmp_path):
    queue = RQQueue(redis_url, Fake(tmp_path), Limits(per_requester=1, queued=9))
    queue.redis.flushdb()
    yield queue
    queue.shutdown()


def test_the_films_keys_are_those_a_hall_stored_before_this_package():
    assert Keys.of("films") == Keys("attention-lab-films", "attention-lab:films:active", "attention-lab:films:askers:",
                                    "attention-lab:films:stop:", "attention-lab:films:step-s")


def test_a_render_admitted_in_the_old_format_still_counts_against_its_session(lab):
    lab.redis.hset(lab.keys.active, "older", f"{time.time():.0f} s1")  # "<admitted at> <session>": renders before
    with pytest.raises(QueueFull, match="You have 1 already"):
        lab.submit(request("new"), "s1")
    lab.submit(request("new"), "s2")


def test_a_device_holds_at_most_its_quota_across_processes_and_the_teachers_job_goes_to_the_front(lab, redis_url,
                                                                                                   tmp_path):
    from jobs.job import Requester

    other = RQQueue(redis_url, Fake(tmp_path), Limits(per_requester=1, queued=9, per_device=2))
    try:
        lab.submit(request("d1"), Requester("tab1", "10.0.0.9"))
        other.submit(request("d2"), Requester("tab2", "10.0.0.9"))  # another lab process of the hall
        with pytest.raises(QueueFull, match="^This device already has 2"):
            lab.submit(request("d3"), Requester("tab3", "10.0.0.9"))
        other.submit(request("o1"), Requester("s", "10.0.0.7"))
        lab.submit(request("t1"), Requester("teacher", "", teacher=True))
        assert lab.queue.job_ids == ["t1", "d1", "d2", "o1"]
        assert lab.cancel("d1", Requester("tab1", "10.0.0.9")) is True
        lab.submit(request("d3"), Requester("tab3", "10.0.0.9"))  # its place is free again
    finally:
        other.shutdown()


def test_a_job_whose_sessions_marks_lapsed_is_cancelled_and_one_a_live_tab_follows_is_kept(lab, redis_url, tmp_path):
    there = {"a", "watcher"}
    mine = RQQueue(redis_url, Fake(tmp_path), Limits(per_requester=1, queued=9), alive=lambda s: s in there,
                   grace_s=1.0)
    try:
        gone = mine.submit(request("gone"), "a")
        kept = mine.submit(request("kept"), "b")
        mine.waiting(kept, "watcher")
        everyone = mine.submit(request("everyone"), "")
        there.discard("a")
        mine.sweep()  # "a" is no longer alive here: its mark is not renewed
        time.sleep(1.2)
        mine.sweep()  # renews the watcher's mark (every SWEEP_S in a lab)
        lab.sweep()  # any process of the hall cancels a job once its sessions' marks have lapsed
        assert gone.state == "failed" and gone.error == "Stopped."
        assert kept.state == "queued" and everyone.state == "queued"
    finally:
        mine.shutdown()


@pytest.mark.slow
def test_a_worker_runs_the_jobs_says_progress_failures_and_stops_and_records_its_pace(lab, redis_url, tmp_path):
    env = {**os.environ, "ATTENTION_LAB_REDIS_URL": redis_url, "ATTENTION_LAB_MEDIA": str(tmp_path)}
    with open(tmp_path / "worker.log", "wb") as log:
        worker = subprocess.Popen([sys.executable, "-m", "jobs.worker", "tests.jobs.fake:worker_task"], cwd=ROOT,
                                  env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        made = lab.submit(request("made", steps=20, step_s=0.1), "s1")
        seen, deadline = [], time.monotonic() + 60
        while made.active:
            assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()[-3000:]
            seen.append((made.state, made.done, made.status.extra.get("last")))
            time.sleep(0.05)
        assert (made.state, made.result) == ("done", tmp_path / "made"), made.error
        assert any(state == "running" and 0 < done < 20 and last == done for state, done, last in seen), seen
        assert float(lab.redis.get(lab.keys.pace)) == 0.5, "the work's own seconds per unit, as the run said"
        assert lab.workers() == 1
        failed, crashed = lab.submit(request("failed", how="fail"), "s2"), lab.submit(request("crashed", how="crash"))
        assert failed.wait(30) and (failed.state, failed.error) == ("failed", "It failed, as asked.")
        assert failed.status.extra["log"] == "the details"
        assert crashed.wait(30) and (crashed.state, crashed.error) == ("failed", "A bug.")
        stopped = lab.submit(request("stopped", steps=400, step_s=0.05), "s3")
        while stopped.done == 0:
            assert time.monotonic() < deadline and stopped.active, stopped.error
            time.sleep(0.05)
        assert lab.cancel("stopped", "s3") is True
        assert stopped.wait(30) and (stopped.state, stopped.error) == ("failed", "Stopped.") and stopped.done < 400
        assert not (tmp_path / "stopped").exists()
    finally:
        worker.terminate()
        worker.wait(30)


def _worker(redis_url, tmp_path, name: str) -> subprocess.Popen:
    env = {**os.environ, "ATTENTION_LAB_REDIS_URL": redis_url, "ATTENTION_LAB_MEDIA": str(tmp_path)}
    with open(tmp_path / f"{name}.log", "wb") as log:
        return subprocess.Popen([sys.executable, "-m", "jobs.worker", "tests.jobs.fake:worker_task"], cwd=ROOT,
                                env=env, stdout=log, stderr=subprocess.STDOUT)


@pytest.mark.hall
def test_a_killed_workers_job_is_queued_again_within_the_stated_time_though_its_successor_is_busy(
        lab, redis_url, tmp_path):
    """The worker is killed (SIGKILL) mid-job and its supervisor starts another at once, as the hall's does;
    that one takes the next job (long) at once. The killed worker's job is queued again, first in line,
    within RECOVERY_S (docs/hall.md states it): RQ's own maintenance would wait for the next job's end."""
    from jobs.worker import RECOVERY_S

    first, second = _worker(redis_url, tmp_path, "first"), None
    try:
        job = lab.submit(request("long", steps=400, step_s=0.05), "s1")
        deadline = time.monotonic() + 60
        while job.done < 5:
            assert time.monotonic() < deadline and job.active, (tmp_path / "first.log").read_text()[-3000:]
            time.sleep(0.05)
        busy = lab.submit(request("next", steps=200, step_s=0.25), "s2")
        later = lab.submit(request("later", steps=1), "s3")
        first.kill()
        first.wait(10)
        killed = time.monotonic()
        second = _worker(redis_url, tmp_path, "second")
        while job.state != "queued":
            took = time.monotonic() - killed
            assert took < RECOVERY_S, f"still {job.state} after {took:.0f} s: " + (
                tmp_path / "second.log").read_text()[-3000:]
            assert job.state != "failed", job.error
            time.sleep(0.1)
        print(f"queued again {time.monotonic() - killed:.1f} s after the kill")
        assert busy.state == "running", "its successor was busy all along"
        assert lab.queue.job_ids[0] == "long", "first in line, before a job asked for after it"
        assert later.state == "queued"
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.kill()  # its horse dies with it (PR_SET_PDEATHSIG); SIGTERM would let the job finish
                proc.wait(30)
