"""The in-process film service with a fake trainer (tests/classroom/film_fakes.py) in its real
trainer process: shared jobs, films that outlive the service, limits with sentences, progress,
failures, cancel and shutdown. One service (one trainer process) serves most tests; each test
uses its own settings, and ends with its films ended."""

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from classroom.films import service as service_module
from classroom.films.service import FilmService, make_film_service
from classroom.films.store import FilmStore
from classroom.films.task import BUSY, CRASHED, SHUTTING_DOWN, STOPPED, queue_full, wait_words
from core.film import MAX_STEPS, Film, LearnSettings
from jobs import QueueFull
from tests.classroom import film_fakes
from tests.conftest import ROOT

FAKE = "tests.classroom.film_fakes:train"
SLOW = LearnSettings(steps=MAX_STEPS, seed=film_fakes.SLOW)  # MAX_STEPS × STEP_S seconds unless stopped


def fast(seed: int, steps: int = 20) -> LearnSettings:
    return LearnSettings(steps=steps, seed=seed)


def trainer_pids(media: Path) -> list[int]:
    """This process's trainer processes (python -m classroom.films.child) for `media`, read from /proc."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            parent = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if parent == os.getpid() and b"classroom.films.child" in argv and str(media).encode() in argv:
            pids.append(int(proc.name))
    return pids


def until(condition, seconds: float = 30.0):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.02)


@pytest.fixture(scope="module")
def media(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("media")


@pytest.fixture(scope="module")
def service(media):
    films = FilmService(media, trainer=FAKE, max_queued=2)
    yield films
    films.shutdown()


def test_identical_requests_share_one_job_and_its_progress(service):
    first, second = service.submit(fast(1, 200), "s1"), service.submit(fast(1, 200), "s2")
    assert first is second
    assert first.wait(60) and first.state == "done", first.error
    assert (first.step, first.total) == (200, 200)
    assert first.losses[0] == (10, 3.5 / 10) and first.losses[-1] == (200, 3.5 / 200)  # the fake's 3.5 / step
    assert [step for step, _ in first.losses] == list(range(10, 201, 10))
    # the accuracy travels with the loss, from the trainer process to the job: the fake's step / total
    assert first.accuracies == [(step, step / 200) for step in range(10, 201, 10)]
    film = first.film()
    assert film.settings == fast(1, 200) and film.loss.shape == (200,)
    assert service.submit(fast(1, 200), "s3") is first


def test_a_film_on_disk_is_served_by_a_new_service_without_training(service, media):
    assert service.submit(fast(2), "s1").wait(60)
    restarted = FilmService(media, trainer="tests.classroom.film_fakes:no_such_trainer", warm=False)
    try:
        job = restarted.submit(fast(2), "s9")
        assert job.state == "done" and job.film().settings == fast(2)  # at once: a training would fail here
        assert restarted.job(fast(2).key()).film().settings == fast(2)
        assert restarted.cached(fast(2)) is not None and restarted.queue_length() == 0
        assert restarted.job("../" * 8 + "etc") is None and restarted.job("0" * 16) is None
    finally:
        restarted.shutdown()


def test_a_damaged_film_folder_is_trained_again(service, media):
    folder = media / "films" / fast(3).key()
    folder.mkdir(parents=True)
    (folder / "film.json").write_text("{", encoding="utf-8")
    (folder / "film.safetensors").write_bytes(b"\0" * 64)
    job = service.submit(fast(3), "s1")
    assert job.state in ("queued", "running")
    assert job.wait(60) and job.state == "done", job.error
    assert Film.load(folder).settings == fast(3)


def test_a_session_trains_one_film_at_a_time_and_may_join_any(service):
    slow = service.submit(SLOW, "s1")
    with pytest.raises(QueueFull) as refused:
        service.submit(fast(4), "s1")
    assert re.fullmatch(re.escape(BUSY) + r" Expected wait: about \d+ (s|min) \(until the first of them is done\)\.",
                        str(refused.value)), "the session's quota, and when its film should be done"
    joined = service.submit(fast(4), "s2")
    assert service.submit(fast(4), "s1") is joined, "joining a film someone else started costs no place"
    assert service.submit(SLOW, "s1") is slow
    for job, session in ((joined, "s2"), (joined, "s1"), (slow, "s1")):  # the waiting one first: it never starts
        service.cancel(job.key, session)
    assert slow.wait(10) and joined.wait(10)


def test_a_full_queue_says_the_wait_and_never_refuses_a_film_already_asked_for(service):
    slow = service.submit(SLOW, "s1")
    until(lambda: slow.state == "running")
    waiting = [service.submit(fast(5), "s2"), service.submit(fast(6), "s3")]
    service.seconds_per_step = 0.01  # as if the last film had trained at 100 steps a second
    before = slow.step
    with pytest.raises(QueueFull) as refused:
        service.submit(fast(7), "s4")
    # the training ahead: what is left of the slow film, and both waiting films, at 0.01 s a step
    assert str(refused.value) in {queue_full(2, (SLOW.steps - step + 20 + 20) * 0.01)
                                  for step in range(before, slow.step + 1)}
    assert str(refused.value).startswith("The training queue is full: 2 films are waiting, about ")
    assert service.submit(fast(5), "s4") is waiting[0] and service.submit(SLOW, "s5") is slow
    for job, sessions in ((waiting[0], ("s2", "s4")), (waiting[1], ("s3",)), (slow, ("s1", "s5"))):
        assert [service.cancel(job.key, s) for s in sessions][-1] is True
    assert all(job.wait(10) and job.error == STOPPED for job in (slow, *waiting))


def test_the_wait_is_said_in_rounded_seconds_or_minutes():
    assert [wait_words(s) for s in (0, 12, 50, 55, 61, 130)] == [
        "about 5 seconds", "about 15 seconds", "about 50 seconds", "about a minute", "about 2 minutes",
        "about 3 minutes"]
    assert queue_full(1, 12) == ("The training queue is full: 1 film is waiting, about 15 seconds of training "
                                 "ahead. Try again in about 15 seconds, or choose settings that are already "
                                 "trained or training.")


def test_cancel_stops_the_training_in_its_process_only_when_no_session_waits(service, media):
    job = service.submit(SLOW, "s1")
    assert service.submit(SLOW, "s2") is job
    until(lambda: job.step > 0)
    assert job.state == "running" and job.losses, "progress reaches the job while it trains"
    (trainer,) = trainer_pids(media)
    assert service.cancel(job.key, "intruder") is False
    assert service.cancel(job.key, "s1") is False and job.active, "s2 still waits for it"
    assert service.cancel(job.key, "s2") is True
    assert job.wait(10) and (job.state, job.error) == ("failed", STOPPED) and job.step < job.total
    after = service.submit(fast(8), "s1")
    assert after.wait(60) and after.state == "done"
    assert trainer_pids(media) == [trainer], "the trainer stopped when asked: it was not killed"


def test_a_failing_or_killed_trainer_fails_its_film_with_a_sentence(service, caplog):
    failing = service.submit(fast(film_fakes.FAIL), "s1")
    assert failing.wait(60) and (failing.state, failing.error) == ("failed", CRASHED)
    assert "ValueError: a fake trainer's failure" in caplog.text, "the traceback is in the log"
    killed = service.submit(fast(film_fakes.KILL), "s1")
    assert killed.wait(60) and killed.state == "failed"
    assert killed.error == "The training process ended before the film was finished (killed by signal 9); try again."
    after = service.submit(fast(10), "s1")  # in a fresh trainer process
    assert after.wait(60) and after.state == "done", after.error


def test_shutdown_leaves_no_trainer_process_and_says_so_to_waiting_films(tmp_path):
    films = FilmService(tmp_path, trainer=FAKE)
    running, waiting = films.submit(SLOW, "s1"), films.submit(fast(11), "s2")
    until(lambda: running.step > 0)
    (pid,) = trainer_pids(tmp_path)
    films.shutdown()
    assert not Path(f"/proc/{pid}").exists() and trainer_pids(tmp_path) == []
    assert (running.state, running.error) == (waiting.state, waiting.error) == ("failed", SHUTTING_DOWN)
    with pytest.raises(QueueFull, match="shutting down"):
        films.submit(fast(12), "s3")


@pytest.mark.slow
def test_a_killed_lab_takes_its_trainer_with_it(tmp_path):
    """SIGKILL: no shutdown runs, and the trainer (silent for a minute) sends nothing that could fail:
    PR_SET_PDEATHSIG alone ends it."""
    code = ("import sys, time; from classroom.films.service import FilmService; from core.film import LearnSettings; "
            f"s = FilmService(sys.argv[1], trainer={FAKE!r}); "
            f"job = s.submit(LearnSettings(steps=20, seed={film_fakes.HANG})); "
            "[time.sleep(0.05) for _ in iter(lambda: job.step > 0, True)]; "
            "print(s.queue._runners[0].trainer.proc.pid, flush=True); "
            "time.sleep(60)")
    lab = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        pid = int(lab.stdout.readline())
        assert Path(f"/proc/{pid}").exists()
        lab.kill()
        lab.wait(10)
        until(lambda: not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2],
              seconds=10)
    finally:
        lab.kill()
        if "pid" in locals() and Path(f"/proc/{pid}").exists():
            os.kill(pid, signal.SIGKILL)  # what the test found left behind must not outlive it


def test_the_film_cache_keeps_under_its_cap_least_recently_used_first(tmp_path):
    store = FilmStore(tmp_path)
    first = store.save(film_fakes.film(fast(20)))
    size = sum(p.stat().st_size for p in first.iterdir())
    store = FilmStore(tmp_path, cap_bytes=int(size * 2.5))
    second, third = store.save(film_fakes.film(fast(21))), store.save(film_fakes.film(fast(22)))
    os.utime(first, (time.time() + 5, time.time() + 5))  # first was used last
    (tmp_path / "films" / ".half-written").mkdir()
    assert store.evict(keep={third.name}) == [second.name]
    assert sorted(p.name for p in (tmp_path / "films").iterdir()) == sorted([".half-written", first.name,
                                                                             third.name])
    assert FilmStore(tmp_path).load(fast(21)) is None and FilmStore(tmp_path).load(fast(20)) is not None


def test_one_film_service_per_process_chosen_from_the_environment(tmp_path, monkeypatch):
    from classroom.films.service import RQFilmService

    hall = {"ATTENTION_LAB_MEDIA": str(tmp_path), "ATTENTION_LAB_REDIS_URL": "redis://:x@127.0.0.1:9/0"}
    made = make_film_service(hall)
    assert isinstance(made, RQFilmService)
    made.shutdown()
    monkeypatch.setenv("ATTENTION_LAB_MEDIA", str(tmp_path))
    monkeypatch.delenv("ATTENTION_LAB_REDIS_URL", raising=False)
    monkeypatch.setattr(service_module, "_service", None)
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(service_module.service())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert isinstance(seen[0], FilmService) and all(s is seen[0] for s in seen)
    seen[0].shutdown()
    again = service_module.service()
    assert again is not seen[0] and not again.closed, "a service that was shut down is replaced"
    again.shutdown()


def test_the_real_trainer_makes_a_film():
    pytest.importorskip("core.learn")
    settings = LearnSettings(steps=20, layers=1, heads=2, d_model=16)
    import tempfile

    with tempfile.TemporaryDirectory() as media:
        films = FilmService(media)
        try:
            job = films.submit(settings, "s1")
            assert job.wait(120) and job.state == "done", job.error
            film = job.film()
            assert film.settings == settings and film.loss.shape == (20,) and job.losses[-1][0] == 20
            assert film.weights.shape[1:3] == (1, 2)
        finally:
            films.shutdown()
