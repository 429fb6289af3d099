"""The hall's film service against a real (throwaway) Redis. Two service objects stand for two lab
processes; jobs stay queued, or the test moves them by hand as a worker would, except in the
last test, where a real `python -m jobs.worker` trains a film (with the fake trainer
of tests/classroom/film_fakes.py) into the shared media folder."""

import os
import re
import subprocess
import sys
import time

import pytest

pytest.importorskip("rq")

from classroom.films.service import RQFilmService  # noqa: E402
from classroom.films.store import FilmStore  # noqa: E402
from classroom.films.task import BUSY, LOST, STOPPED, queue_full  # noqa: E402
from core.film import MAX_STEPS, LearnSettings  # noqa: E402
from jobs import QueueFull, QueueUnavailable  # noqa: E402
from jobs.job import REFRESH_S  # noqa: E402
from tests.classroom import film_fakes  # noqa: E402
from tests.conftest import ROOT, free_port  # noqa: E402


@pytest.fixture
def two_labs(redis_url, tmp_path):
    labs = [RQFilmService(redis_url, media_dir=tmp_path, max_queued=2) for _ in range(2)]
    labs[0].redis.flushdb()
    yield labs
    for lab in labs:
        lab.shutdown()


def film(seed: int, steps: int = 20) -> LearnSettings:
    return LearnSettings(steps=steps, seed=seed)


def as_worker(lab: RQFilmService, key: str, status: str, **meta):
    """Move the job as a worker would: its status, and what it wrote into its meta."""
    job = lab.queue.fetch(key)
    job.meta.update(meta)
    job.save_meta()
    job.set_status(status)
    time.sleep(REFRESH_S)  # a page's reads within REFRESH_S share one look at Redis
    return job


def test_the_same_film_from_two_processes_is_one_job(two_labs):
    a, b = two_labs
    first, second = a.submit(film(1), "s1"), b.submit(film(1), "s2")
    assert first.key == second.key == film(1).key() and first.state == second.state == "queued"
    assert a.redis.lrange(f"rq:queue:{a.queue.keys.queue}", 0, -1) == [film(1).key().encode()]
    assert a.queue_length() == b.queue_length() == 1


def test_limits_count_every_process_and_never_refuse_a_film_already_asked_for(two_labs):
    a, b = two_labs
    a.submit(film(1), "s1")
    with pytest.raises(QueueFull) as refused:
        b.submit(film(2), "s1")
    assert re.fullmatch(re.escape(BUSY) + r" Expected wait: about \d+ (s|min) \(until the first of them is done\)\.",
                        str(refused.value)), "the session's quota, and when its film should be done"
    b.submit(film(2), "s2")
    a.redis.set(a.queue.keys.pace, "0.5")  # as a worker measured
    with pytest.raises(QueueFull) as refused:
        a.submit(film(3), "s3")
    assert str(refused.value) == queue_full(2, (20 + 20) * 0.5), "both waiting films' steps at 0.5 s each"
    assert b.submit(film(1), "s3").state == "queued", "joining a waiting film costs nothing"
    assert a.redis.hlen(a.queue.keys.active) == 2


def test_cancel_stops_a_film_only_when_no_session_waits_for_it(two_labs):
    a, b = two_labs
    job = a.submit(film(1), "s1")
    b.submit(film(1), "s2")
    assert b.cancel(job.key, "intruder") is False
    assert a.cancel(job.key, "s1") is False and job.state == "queued", "s2 still waits for it"
    a.submit(film(2), "s1")  # s1 let go of its film: it may start another
    assert b.cancel(job.key, "s2") is True
    time.sleep(REFRESH_S)
    assert (job.state, job.error) == ("failed", STOPPED) and a.redis.exists(a.queue.keys.stop + job.key)
    again = b.submit(film(1), "s2")
    assert again.state == "queued" and not a.redis.exists(a.queue.keys.stop + job.key), \
        "a new run is not stopped by the old stop"


def test_progress_and_failures_are_read_from_the_job(two_labs):
    a, b = two_labs
    job = a.submit(film(1, 200), "s1")
    as_worker(a, job.key, "started", done=30, total=200, losses=[[10, 0.35], [20, 0.175], [30, 0.1]])
    seen = b.job(job.key)
    assert (seen.state, seen.step, seen.total, seen.losses) == ("running", 30, 200, [(10, 0.35), (20, 0.175),
                                                                                        (30, 0.1)])
    as_worker(a, job.key, "finished", error="The training stopped with an error; the lab's log has the details.")
    assert (job.state, job.error) == ("failed", "The training stopped with an error; the lab's log has the details.")
    a.redis.delete(a.queue.fetch(job.key).key)  # as after a Redis restart
    time.sleep(REFRESH_S)
    assert (job.state, job.error) == ("failed", LOST)
    assert b.submit(film(1, 200), "s2").state == "queued", "an ended film is queued afresh"


def test_a_film_on_disk_is_done_without_redis_and_redis_down_is_a_sentence(tmp_path):
    FilmStore(tmp_path).save(film_fakes.film(film(5)))
    down = RQFilmService(f"redis://:pw@127.0.0.1:{free_port()}/0", media_dir=tmp_path)
    job = down.submit(film(5), "s1")
    assert job.state == "done" and job.film().settings == film(5) and job.losses[-1][0] == 20
    with pytest.raises(QueueUnavailable, match="Training is briefly unavailable") as refused:
        down.submit(film(6), "s1")
    assert isinstance(refused.value, QueueFull), "pages show it as they show a full queue"
    assert down.queue_length() == 0 and down.job(film(6).key()) is None


@pytest.mark.slow
def test_a_hall_worker_trains_a_film_into_the_shared_folder_with_progress_and_stops_one(redis_url, tmp_path):
    lab = RQFilmService(redis_url, media_dir=tmp_path)
    lab.redis.flushdb()
    settings = LearnSettings(steps=300, seed=film_fakes.SLOW + 1)  # 3 s: long enough to be seen running
    env = {**os.environ, "ATTENTION_LAB_REDIS_URL": redis_url, "ATTENTION_LAB_MEDIA": str(tmp_path),
           "ATTENTION_LAB_TEST_TRAIN": "tests.classroom.film_fakes:train"}
    with open(tmp_path / "worker.log", "wb") as log:
        worker = subprocess.Popen([sys.executable, "-m", "jobs.worker", "classroom.films.task:worker_task"], cwd=ROOT,
                                  env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        job = lab.submit(settings, "s1")
        seen, deadline = [], time.monotonic() + 120
        while job.active:
            assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()[-3000:]
            seen.append((job.state, job.step, len(job.losses)))
            time.sleep(0.1)
        assert job.state == "done", job.error
        assert any(state == "running" and 0 < step < 300 and points for state, step, points in seen), seen
        assert (tmp_path / "films" / settings.key() / "film.json").is_file()
        assert job.film().settings == settings and job.losses[-1] == (300, job.film().loss[-1])
        assert float(lab.redis.get(lab.queue.keys.pace)) > 0, "the worker recorded its pace for the wait estimates"
        # MAX_STEPS × STEP_S seconds unless stopped
        slow = lab.submit(LearnSettings(steps=MAX_STEPS, seed=film_fakes.SLOW + 2), "s1")
        while slow.step == 0:
            assert time.monotonic() < deadline and slow.active, slow.error
            time.sleep(0.1)
        assert lab.cancel(slow.key, "s1") is True
        assert slow.wait(30) and (slow.state, slow.error) == ("failed", STOPPED)
        assert not (tmp_path / "films" / slow.key).exists()
    finally:
        worker.terminate()
        worker.wait(30)
        lab.shutdown()
