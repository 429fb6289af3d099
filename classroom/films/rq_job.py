"""The hall's film job: `train_job`, enqueued by name by rq_service.py and run by the hall's RQ
workers (`python -m animations.rq_worker`, which take films before renders: they are short).

It runs in the work horse RQ forks for each job (which dies with its worker), trains with 2
torch threads, writes its progress into job.meta (`step`, `total`, `losses`; at most every
META_EVERY_S, and at the end), stops when the lab sets the film's stop key (read at most every
STOP_EVERY_S), saves the film aside and renames it into the shared media folder
(ATTENTION_LAB_MEDIA), keeps the films under their cap (ATTENTION_LAB_FILMS_MB) and records
its pace for the labs' wait estimates. A failure is told in job.meta ('error', one sentence)
and returned as '' (training again would fail again: no retry); its traceback goes to the log.

Tests only: ATTENTION_LAB_TEST_TRAIN=module:function trains with that function.
"""

import logging
import time

from rq import get_current_job
from rq.timeouts import JobTimeoutException

from classroom.films.backend import cap_bytes, media_dir
from classroom.films.jobs import CRASHED, STOPPED, THREADS, TIMED_OUT, keep_point, resolve, trainer_name
from classroom.films.rq_service import STEP_S, STOP
from classroom.films.store import FilmStore
from classroom.redis_client import UNAVAILABLE
from core.errors import ConfigError
from core.film import LearnSettings

log = logging.getLogger(__name__)

META_EVERY_S = 0.25
STOP_EVERY_S = 0.5
OTHER_VERSION = ("The training worker runs another version of the lab than the page that asked; restart the "
                 "hall so that all its processes run the same code.")


class _Progress:
    """progress(step, total, loss) into job.meta, thinned and throttled (pages poll it)."""

    def __init__(self, job):
        self.job, self.saved_at = job, 0.0

    def __call__(self, step: int, total: int, loss: float):
        losses = self.job.meta.setdefault("losses", [])
        if keep_point(losses, step, total):
            losses.append([int(step), float(loss)])
        self.job.meta.update(step=int(step), total=int(total))
        if step == total or time.monotonic() - self.saved_at >= META_EVERY_S:
            self.save()

    def save(self):
        try:
            self.job.save_meta()
            self.saved_at = time.monotonic()
        except UNAVAILABLE:
            pass  # best effort: a Redis restart must not fail the training itself


class _Stopper:
    """should_stop(): has the lab set this film's stop key? Asked of Redis at most every STOP_EVERY_S."""

    def __init__(self, job):
        self.job, self.asked_at, self.stopped = job, float("-inf"), False

    def __call__(self) -> bool:
        if not self.stopped and time.monotonic() - self.asked_at >= STOP_EVERY_S:
            self.asked_at = time.monotonic()
            try:
                self.stopped = bool(self.job.connection.exists(STOP + self.job.id))
            except UNAVAILABLE:
                pass
        return self.stopped


def train_job(settings: dict, key: str) -> str:
    """One film, in the work horse. Returns its folder, or '' with the reason in job.meta['error']."""
    job = get_current_job()
    job.meta.update(step=0, losses=[], error="")  # a retried job starts its progress again
    progress, should_stop = _Progress(job), _Stopper(job)
    progress.save()
    try:
        settings = LearnSettings.from_dict(settings)
    except ConfigError:
        return _failed(job, OTHER_VERSION)
    if settings.key() != key:
        return _failed(job, OTHER_VERSION)
    store = FilmStore(media_dir(), cap_bytes())
    if store.load(settings) is not None:  # trained meanwhile (a retried job whose film was saved)
        return str(store.folder(key))
    import torch

    torch.set_num_threads(THREADS)
    start = time.monotonic()
    try:
        film = resolve(trainer_name())(settings, progress=progress, should_stop=should_stop)
    except JobTimeoutException:  # RQ's job_timeout (rq_service: jobs.TIMEOUT_S)
        return _failed(job, TIMED_OUT)
    except Exception:
        if should_stop.stopped:
            return _failed(job, STOPPED)
        log.exception("Training film %s failed", key)
        return _failed(job, CRASHED)
    if should_stop.stopped:
        return _failed(job, STOPPED)
    seconds = time.monotonic() - start
    try:
        folder = store.save(film)
        store.evict(keep={key})
    except OSError as err:
        log.exception("Film %s could not be saved", key)
        return _failed(job, f"The film could not be saved ({err.strerror or err}).")
    try:
        job.connection.set(STEP_S, f"{seconds / settings.steps:.6f}")
    except UNAVAILABLE:
        pass
    return str(folder)


def _failed(job, error: str) -> str:
    job.meta["error"] = error
    _Progress(job).save()
    return ""
