"""Which film service a lab process runs, chosen once from its environment, and the one it holds.

- ATTENTION_LAB_REDIS_URL unset (a laptop): `FilmService` (service.py), a trainer process of this lab;
- ATTENTION_LAB_REDIS_URL set (`make hall`, deploy/): `RQFilmService` (rq_service.py), a queue in
  that Redis, trained by the hall's `python -m animations.rq_worker` processes.

Settings, read by both and by the workers: ATTENTION_LAB_MEDIA (the folder films go under, in
`films/`; one folder shared by a hall's processes; default `media`), ATTENTION_LAB_FILMS_MB (the
films' cap, default 200), ATTENTION_LAB_FILM_WORKERS (trainings at once in one lab; default 1).

`service()` is the process's one service: created under a lock on first use and shut down at
interpreter exit. It is not a Streamlit cache, so a `clear_cache` from a browser cannot drop the
queue, its limits or a running training.
"""

import atexit
import os
import threading
from pathlib import Path

from classroom.films.jobs import trainer_name
from classroom.films.service import FilmService
from classroom.films.store import DEFAULT_CAP_BYTES
from classroom.redis_client import REDIS_URL_ENV

_lock = threading.Lock()
_service = None


def media_dir(environ=None) -> Path:
    return Path((os.environ if environ is None else environ).get("ATTENTION_LAB_MEDIA", "media")).resolve()


def cap_bytes(environ=None) -> int:
    mb = (os.environ if environ is None else environ).get("ATTENTION_LAB_FILMS_MB")
    return int(float(mb) * 1024**2) if mb else DEFAULT_CAP_BYTES


def make_film_service(environ=None):
    """The film service this process uses: the hall's RQ workers if ATTENTION_LAB_REDIS_URL names a Redis,
    else a trainer process of this one."""
    env = os.environ if environ is None else environ
    if env.get(REDIS_URL_ENV):
        from classroom.films.rq_service import RQFilmService

        return RQFilmService(env[REDIS_URL_ENV], media_dir=media_dir(env), cap_bytes=cap_bytes(env))
    return FilmService(media_dir=media_dir(env), cap_bytes=cap_bytes(env), trainer=trainer_name(env),
                       workers=int(env.get("ATTENTION_LAB_FILM_WORKERS", "1")))


def service():
    """This process's film service (one per process; a new one if the last was shut down)."""
    global _service
    with _lock:
        if _service is None or getattr(_service, "closed", False):
            _service = make_film_service()
            atexit.register(_service.shutdown)
        return _service
