"""Films as jobs (jobs/): the film task, the job a page follows (FilmJob), and every sentence a student reads.

Both film services (service.py: this lab's trainer process, or the hall's workers) run this task,
so a page reads the same words whichever runs. A film's key is `settings.key()`; the film lands in
the store (store.py), where a finished one is found without any queue.

In a hall's worker (`python -m jobs.worker ... classroom.films.task:worker_task`), `Films.run`
trains in the work horse with THREADS torch threads, sends its progress (the loss curve thinned
to MAX_POINTS), stops when asked, saves the film aside and renames it into the shared media folder
and keeps the films under their cap (ATTENTION_LAB_FILMS_MB). In a lab, its trainer process
(child.py) trains and saves, and trainer.py follows it.

Tests only: ATTENTION_LAB_TEST_TRAIN=module:function trains with that function.
"""

import logging
import math
import os
import time

from classroom.films.store import DEFAULT_CAP_BYTES, FilmStore
from core.film import THREADS, Film, LearnSettings
from jobs import Failed, Job, Task, Words, media_dir
from jobs.job import resolve

log = logging.getLogger(__name__)

DEFAULT_TRAINER = "core.learn:train"
TEST_TRAINER_ENV = "ATTENTION_LAB_TEST_TRAIN"  # tests only: module:function trains instead
TIMEOUT_S = 900  # a training still running after this is stopped (the largest film takes far less)
MAX_POINTS = 400  # points of a live loss curve (the film itself keeps every step)
DEFAULT_STEP_S = 0.01  # seconds per training step, for the wait a full queue states, until one is timed

STOPPED = "The training was stopped before it finished."
SHUTTING_DOWN = "The lab is shutting down: this training did not finish."
CRASHED = "The training stopped with an error; the lab's log has the details."
BROKEN = "The trainer could not start; the lab's log has the details."
BUSY = "You are already training a model: wait for it to finish, or stop it, before you start another."
TIMED_OUT = f"The training took longer than {TIMEOUT_S // 60} minutes and was stopped; try fewer steps."
LOST = "The training queue was restarted and lost this film: try again."


def trainer_name(environ=None) -> str:
    return (os.environ if environ is None else environ).get(TEST_TRAINER_ENV) or DEFAULT_TRAINER


def films_cap(environ=None) -> int:
    mb = (os.environ if environ is None else environ).get("ATTENTION_LAB_FILMS_MB")
    return int(float(mb) * 1024**2) if mb else DEFAULT_CAP_BYTES


def wait_words(seconds: float) -> str:
    if seconds < 55:
        return f"about {max(5, 5 * math.ceil(seconds / 5))} seconds"
    minutes = math.ceil(seconds / 60)
    return "about a minute" if minutes == 1 else f"about {minutes} minutes"


def queue_full(waiting: int, seconds: float) -> str:
    """The full queue's sentence; `seconds`: the training still ahead of a new film (estimated from the steps)."""
    wait = wait_words(seconds)
    films = "1 film is" if waiting == 1 else f"{waiting} films are"
    return (f"The training queue is full: {films} waiting, {wait} of training ahead. Try again in "
            f"{wait}, or choose settings that are already trained or training.")


def killed(exitcode) -> str:
    how = f"killed by signal {-exitcode}" if exitcode and exitcode < 0 else f"exit status {exitcode}"
    return f"The training process ended before the film was finished ({how}); try again."


def keep_point(losses: list, step: int, total: int) -> bool:
    """Thin the live curve to about MAX_POINTS points; the last step is always kept."""
    return not losses or step == total or step - losses[-1][0] >= max(1, total // MAX_POINTS)


WORDS = Words(
    busy=BUSY,
    # the waiting films, and the steps left of every film ahead at the measured pace
    full=lambda entries, pace, workers: queue_full(sum(not e.running for e in entries),
                                                   sum(e.left for e in entries) * pace / workers),
    unavailable=("Training is briefly unavailable: the lab's training queue does not answer (it may be "
                 "restarting). Try again in a minute; films already trained still play."),
    stopping=SHUTTING_DOWN, stopped=STOPPED, crashed=CRASHED,
    died="The training stopped (its worker ended) and gave up; the workers' logs have the details.",
    lost=LOST, gone="The film is no longer in the shared cache (it was removed to make room): try again.",
    timed_out=TIMED_OUT,
    other_version=("The training worker runs another version of the lab than the page that asked; restart the "
                   "hall so that all its processes run the same code."),
    device_busy=("This device already has {limit} films training or waiting (one training and one waiting, "
                 "whichever of its tabs asked); wait for one to finish."),
    ready_in="Expected wait: {wait} (until the first of them is done).")


class Curve:
    """A training's progress(step, total, loss, accuracy), as the job's progress with its loss curve
    (`losses`) and its accuracy curve (`accuracies`, at the same steps; none from a trainer that
    does not say its accuracy)."""

    def __init__(self, progress):
        self.progress, self.points, self.accuracies = progress, [], []

    def __call__(self, step: int, total: int, loss: float, accuracy: float | None = None):
        if keep_point(self.points, step, total):
            self.points.append((int(step), float(loss)))
            if accuracy is not None:
                self.accuracies.append((int(step), float(accuracy)))
        self.progress(step, total, losses=list(self.points), accuracies=list(self.accuracies))


class FilmJob(Job):
    """A film as a page follows it: `settings`, `state`, `step` of `total`, `losses` ([(step, loss)]:
    the live curve), `accuracies` (the same for the accuracy), `error` (one plain sentence once failed),
    `film()` once done."""

    def __init__(self, key: str, settings: LearnSettings, requester: str, store: FilmStore):
        super().__init__(key, settings, requester)
        self.store = store

    settings = property(lambda self: self.request)
    session = property(lambda self: self.requester)
    step = property(lambda self: self.status.done)

    @property
    def accuracies(self) -> list[tuple[int, float]]:
        """The live accuracy curve, [(step, share of the scored tokens predicted right)]; [] before any."""
        return [tuple(point) for point in self.status.extra.get("accuracies") or ()]

    @property
    def losses(self) -> list[tuple[int, float]]:
        """The live curve; a film found done without one (on disk, or trained elsewhere) gives its own,
        thinned alike."""
        if points := self.status.extra.get("losses"):
            return [tuple(point) for point in points]
        if self.state != "done" or (film := self.film()) is None:
            return []
        thinned = []
        for step, loss in enumerate(film.loss.tolist(), 1):
            thinned += [(step, loss)] if keep_point(thinned, step, len(film.loss)) else []
        return thinned

    def film(self) -> Film | None:
        return self.store.load(self.settings) if self.state == "done" else None


class Films(Task):
    name, words = "films", WORDS
    paced, default_pace, retries, timeout_s = True, DEFAULT_STEP_S, 1, TIMEOUT_S

    def __init__(self, media="media", cap_bytes: int = DEFAULT_CAP_BYTES, trainer: str | None = None,
                 threads: int = THREADS):
        """`trainer`: "module:function" trained with (default core.learn:train, or TEST_TRAINER_ENV's)."""
        self.media_dir, self.threads, self.trainer = media, threads, trainer or trainer_name()
        self.store = FilmStore(media, cap_bytes)

    def key(self, settings: LearnSettings) -> str:
        return settings.key()

    def cost(self, settings: LearnSettings) -> float:
        return settings.steps

    total = cost

    def job(self, key: str, settings: LearnSettings, requester: str) -> FilmJob:
        return FilmJob(key, settings, requester, self.store)

    def ready(self, settings: LearnSettings):
        return True if self.store.load(settings) is not None else None

    def done(self, settings: LearnSettings):
        return True if self.store.has(settings.key()) else None

    def from_key(self, key: str) -> LearnSettings | None:
        film = self.store.load_key(key)
        return None if film is None else film.settings

    def encode(self, settings: LearnSettings) -> dict:
        return settings.to_dict()

    def decode(self, data: dict) -> LearnSettings:
        return LearnSettings.from_dict(data)

    def run(self, settings: LearnSettings, progress, should_stop) -> str:
        """One film, in a worker's horse: its folder once saved."""
        if self.store.load(settings) is not None:  # trained meanwhile (a retried job whose film was saved)
            return str(self.store.folder(settings.key()))
        import torch

        torch.set_num_threads(self.threads)
        start = time.monotonic()
        film = resolve(self.trainer)(settings, progress=Curve(progress), should_stop=should_stop)
        if should_stop():
            raise Failed(STOPPED)
        progress.worked(time.monotonic() - start)
        try:
            folder = self.store.save(film)
            self.store.evict(keep={settings.key()})
        except OSError as err:
            log.exception("Film %s could not be saved", settings.key())
            raise Failed(f"The film could not be saved ({err.strerror or err}).") from None
        return str(folder)

    def runner(self):
        from classroom.films.trainer import TrainerRunner

        return TrainerRunner(self)


def worker_task() -> Films:
    """The film task of a hall's worker (jobs.worker), from its environment."""
    return Films(media_dir(), films_cap())
