"""What both film services share: a film as a page follows it (FilmJob), every sentence they say
to a student, and which function trains.

Both services (service.py in the lab, rq_service.py on the hall's Redis) raise these errors and
say these sentences, so a page reads the same words whichever runs.
"""

import importlib
import math
import os
import threading
from dataclasses import dataclass, field

from core.film import Film, LearnSettings

DEFAULT_TRAINER = "core.learn:train"
TEST_TRAINER_ENV = "ATTENTION_LAB_TEST_TRAIN"  # tests only: module:function trains instead
THREADS = 2  # torch threads for one training: the lab's machine has 2 cores
TIMEOUT_S = 900  # a training still running after this is stopped (the largest film takes far less)
MAX_POINTS = 400  # points of a live loss curve (the film itself keeps every step)
DEFAULT_STEP_S = 0.01  # seconds per training step, for the wait a full queue states, until one is timed

STOPPED = "The training was stopped before it finished."
SHUTTING_DOWN = "The lab is shutting down: this training did not finish."
CRASHED = "The training stopped with an error; the lab's log has the details."
BROKEN = "The trainer could not start; the lab's log has the details."
BUSY = "You are already training a model: wait for it to finish, or stop it, before you start another."
TIMED_OUT = f"The training took longer than {TIMEOUT_S // 60} minutes and was stopped; try fewer steps."


def trainer_name(environ=None) -> str:
    return (os.environ if environ is None else environ).get(TEST_TRAINER_ENV) or DEFAULT_TRAINER


def resolve(name: str):
    """The function `module:function` names: train(settings, progress=None, should_stop=None) -> Film."""
    module, _, function = name.partition(":")
    return getattr(importlib.import_module(module), function)


class FilmQueueFull(RuntimeError):
    """The service cannot take this training now; the message is a sentence for the student."""


class FilmQueueUnavailable(FilmQueueFull):
    """The hall's film queue (Redis) does not answer: pages say so as they say the queue is full."""


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


@dataclass(eq=False)
class FilmJob:
    """One training of the in-process service, shared by every session that asked for it."""

    key: str
    settings: LearnSettings
    session: str = ""  # who started it (its per-session limit); "" once that session let go
    state: str = "queued"  # queued | running | done | failed
    step: int = 0
    total: int = 0
    error: str = ""  # one plain sentence once failed
    sessions: set = field(default_factory=set)  # every session waiting for this film
    _losses: list = field(default_factory=list, repr=False)
    _store: object = field(default=None, repr=False)  # the FilmStore its film lands in
    _stop: bool = field(default=False, repr=False)  # asked to stop; the trainer's thread tells the process
    finished: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def losses(self) -> list[tuple[int, float]]:
        return list(self._losses)  # a copy: the service's thread appends while a page reads

    @property
    def active(self) -> bool:
        return self.state in ("queued", "running")

    def film(self) -> Film | None:
        return self._store.load(self.settings) if self.state == "done" else None

    def wait(self, timeout: float | None = None) -> bool:
        return self.finished.wait(timeout)

    def progress(self, step: int, total: int, loss: float):
        if keep_point(self._losses, step, total):
            self._losses.append((step, loss))
        self.step, self.total = step, total

    def end(self, state: str, error: str = ""):
        if not self.finished.is_set():  # the first end wins (a shutdown racing a finished film)
            self.state, self.error = state, error
            self.finished.set()
