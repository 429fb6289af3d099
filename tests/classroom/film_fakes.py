"""Trainers for the film services' tests, in place of core.learn.train: the services run them by
name ("tests.classroom.film_fakes:train"; the RQ worker reads ATTENTION_LAB_TEST_TRAIN).

`train` has core.learn.train's signature and makes a tiny but well-formed Film at once; the
seed chooses how it behaves, so that one trainer process serves every test:
SLOW seeds (>= SLOW) sleep STEP_S per step (a run to stop midway), FAIL raises, KILL kills its
own process at step 10, HANG says nothing for a minute after step 10 (only a signal ends it).
"""

import os
import signal
import time

import numpy as np

from core.film import SEQ_LEN, Film, LearnSettings

SLOW, STEP_S = 1000, 0.01
FAIL, KILL, HANG = 13, 9, 7


class Stopped(Exception):
    """What core.learn.Stopped is: should_stop() said stop."""


def train(settings: LearnSettings, progress=None, should_stop=None) -> Film:
    for step in range(1, settings.steps + 1):
        if should_stop is not None and should_stop():
            raise Stopped
        if settings.seed >= SLOW:
            time.sleep(STEP_S)
        if settings.seed == KILL and step == 10:
            os.kill(os.getpid(), signal.SIGKILL)
        if settings.seed == FAIL and step == 10:
            raise ValueError("a fake trainer's failure")
        if progress is not None and (step % 10 == 0 or step == settings.steps):
            progress(step, settings.steps, 3.5 / step, step / settings.steps)
        if settings.seed == HANG and step == 10:
            time.sleep(60)
    return film(settings)


def film(settings: LearnSettings) -> Film:
    """A film of the right shapes for these settings (2 snapshots), made of plain numbers."""
    steps, shape = settings.steps, (2, settings.layers, settings.heads)
    weights = np.tril(np.ones((SEQ_LEN, SEQ_LEN), np.float32))
    weights = np.broadcast_to(weights / weights.sum(-1, keepdims=True), (*shape, SEQ_LEN, SEQ_LEN))
    return Film(settings=settings, loss=np.linspace(3.5, 0.1, steps, dtype=np.float32),
                accuracy=np.linspace(0.0, 1.0, steps, dtype=np.float32),
                baseline=np.full(steps, 3.0, np.float32), held_out=np.array([0.9], np.float32),
                probe=np.arange(SEQ_LEN, dtype=np.int64) % 32, snapshots=np.array([0, steps], np.int64),
                weights=weights.copy(), previous_token=np.zeros(shape, np.float32),
                induction=np.zeros(shape, np.float32), params={"embed": np.ones((32, settings.d_model), np.float32)},
                seconds=0.01)
