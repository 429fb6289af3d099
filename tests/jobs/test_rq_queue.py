"""The Redis queue (jobs/rq_queue.py) against a real (throwaway) Redis with the fake task
(tests/jobs/fake.py), and, in the slow test, a real `python -m jobs.worker` running its jobs."""

import os
import subprocess
import sys
import time

import pytest

pytest.importorskip("rq")

from jobs import Limits, QueueFull  # noqa: E402
from jobs.rq_queue import Keys, RQQueue  # noqa: E402
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
