"""The film services a page calls: `FilmService` (the laptop default: a trainer process of this lab,
never a page's thread) and `RQFilmService` (the hall's workers, where ATTENTION_LAB_REDIS_URL is
set), both running the film task (task.py) on a jobs/ queue; `service()` is this process's one.

The API the "Watch it learn" page codes against, the same for both:

- `submit(settings, session) -> FilmJob`: identical settings share one job (thirty students
  pressing Train start one run); a film already on disk gives a done job at once. `session`: a
  jobs.Requester (session, device, teacher) or a session. Limits (jobs/policy.py): one training
  per session at a time, two per device (one training, one waiting, whatever its tabs), and at
  most `max_queued` films waiting in all; the teacher's go first and are never refused for a full
  queue. Past them QueueFull, with a sentence for the student (the real wait, estimated from the
  steps ahead at the measured pace). A film whose sessions have all gone (tabs closed) is
  stopped (jobs.session_check(), which the dashboard gives).
  A request identical to a waiting or running one is never refused. In a hall they count
  across every lab process; QueueUnavailable (a QueueFull) while Redis does not answer.
- `FilmJob` (task.py): `key`, `settings`, `state` ("queued" | "running" | "done" | "failed"),
  `step`, `total`, `losses`, `error`, `film()`, `wait(timeout)`.
- `job(key)`, `cached(settings)` (the film on disk, or None), `cancel(key, session) -> bool`
  (a session lets go of its job; the training stops, True, when no other session waits for
  it), `queue_length()` (films waiting or training), `shutdown(wait=True)`.

In this lab, `workers` threads (default 1: a laptop has few cores, and a training uses 2 torch
threads) each feed one trainer process (child.py: a fresh interpreter, started by exec, that
loads torch once and trains one film after another; trainer.py follows it over a socket).
`shutdown()` terminates the trainer processes (SIGTERM, then SIGKILL) within seconds, and runs at
interpreter exit; a killed lab takes its trainers with it (child.py). Finished films land on disk
(store.py), survive a restart, and the films stay under their cap. A failure is logged with its
traceback and reaches the page as one sentence.

Settings, read by both and by the workers: ATTENTION_LAB_MEDIA (the folder films go under, in
`films/`; default `media`), ATTENTION_LAB_FILMS_MB (the films' cap, default 200),
ATTENTION_LAB_FILM_WORKERS (trainings at once in one lab; default 1). `service()` is not a
Streamlit cache, so a `clear_cache` from a browser cannot drop the queue, its limits or a
running training.
"""

import os
import threading

from classroom.films.store import DEFAULT_CAP_BYTES
from classroom.films.task import THREADS, FilmJob, Films, films_cap
from core.film import Film, LearnSettings
from jobs import Limits, Requester, Service, media_dir, session_check
from jobs.local import LocalQueue
from jobs.redis_client import REDIS_URL_ENV

MAX_FINISHED_JOBS = 100  # finished jobs remembered (their films stay on disk); active ones always are


def _limits(max_per_session: int, max_queued: int, max_per_device: int) -> Limits:
    # a full queue counts the films waiting; a device: one training and one waiting
    return Limits(max_per_session, max_queued, running_counts=False, per_device=max_per_device)


class FilmService(Service):
    def __init__(self, media_dir="media", cap_bytes: int = DEFAULT_CAP_BYTES, workers: int = 1,
                 max_per_session: int = 1, max_queued: int = 4, trainer: str | None = None,
                 threads: int = THREADS, warm: bool = True, max_per_device: int = 2):
        """`trainer`: "module:function" trained with (default core.learn:train); `warm`: start the
        trainer processes now, not with the first film (torch takes a second or two to load)."""
        self.task = Films(media_dir, cap_bytes, trainer, threads)
        self.queue = LocalQueue(self.task, _limits(max_per_session, max_queued, max_per_device), workers,
                                remember=MAX_FINISHED_JOBS, warm=warm, alive=session_check())

    store = property(lambda self: self.task.store)

    @property
    def seconds_per_step(self) -> float:
        """The pace a full queue's wait is estimated at: the last measured training's, once there is one."""
        return self.queue.pace

    @seconds_per_step.setter
    def seconds_per_step(self, seconds: float):
        self.queue.pace = seconds

    def submit(self, settings: LearnSettings, session: "Requester | str" = "") -> FilmJob:
        if not isinstance(settings, LearnSettings):
            raise TypeError("submit takes LearnSettings")
        return self.queue.submit(settings, session)

    def cached(self, settings: LearnSettings) -> Film | None:
        return self.store.load(settings)


class RQFilmService(FilmService):
    def __init__(self, redis_url: str, media_dir="media", cap_bytes: int = DEFAULT_CAP_BYTES,
                 max_per_session: int = 1, max_queued: int = 4, max_per_device: int = 2):
        from jobs.rq_queue import RQQueue

        self.task = Films(media_dir, cap_bytes)  # the workers save and evict; labs read
        self.queue = RQQueue(redis_url, self.task, _limits(max_per_session, max_queued, max_per_device),
                             alive=session_check())


def make_film_service(environ=None) -> FilmService:
    """The film service this process uses: the hall's RQ workers if ATTENTION_LAB_REDIS_URL names a Redis,
    else a trainer process of this one."""
    env = os.environ if environ is None else environ
    if env.get(REDIS_URL_ENV):
        return RQFilmService(env[REDIS_URL_ENV], media_dir=media_dir(env), cap_bytes=films_cap(env))
    return FilmService(media_dir=media_dir(env), cap_bytes=films_cap(env),
                       workers=int(env.get("ATTENTION_LAB_FILM_WORKERS", "1")))


_lock = threading.Lock()
_service: FilmService | None = None


def service() -> FilmService:
    """This process's film service (one per process; a new one if the last was shut down)."""
    global _service
    with _lock:
        if _service is None or _service.closed:
            _service = make_film_service()
        return _service
