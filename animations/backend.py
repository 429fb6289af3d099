"""Which render service a lab server runs: chosen here, once, from its environment.

Both kinds answer the same few calls, and those are all that dashboard/video/studio.py and the
Lecture page use (`RenderBackend` below); neither page knows which kind runs.

- ATTENTION_LAB_REDIS_URL unset (a laptop: `make run`, `make classroom`): `RenderService`
  (animations/service.py), renders in threads of this process, each in a manim subprocess;
- ATTENTION_LAB_REDIS_URL set (`make hall`, deploy/): `RQRenderService` (animations/rq_service.py),
  a queue in that Redis, rendered by `python -m animations.rq_worker` processes.

Settings, read by both and by the workers: ATTENTION_LAB_MEDIA (the render cache's folder, one
folder shared by a hall's processes; default `media`), ATTENTION_LAB_CACHE_GB (its cap, default
2), ATTENTION_LAB_RENDER_WORKERS (renders at once in one process; default cores - 1).
"""

import os
from pathlib import Path
from typing import Protocol

from animations.service import RenderService
from classroom.redis_client import REDIS_URL_ENV


class RenderJob(Protocol):
    """What a page reads of a render: the request, then its state as it goes."""

    key: str
    scene: str
    cfg: object  # the AttentionConfig rendered
    quality: str
    session: str
    voice: object  # the Voice that narrates, or None (silent)
    state: str  # queued | running | done | failed
    done: int  # animations rendered so far, of `total`
    total: int
    path: Path | None  # the mp4 once done
    error: str  # one plain sentence once failed
    log: str  # the end of manim's log, if it failed there

    @property
    def active(self) -> bool: ...

    def wait(self, timeout: float | None = None) -> bool: ...


class RenderBackend(Protocol):
    def submit(self, scene: str, cfg, quality: str = "low", session: str = "", voice=...) -> RenderJob: ...

    def cached(self, scene: str, cfg, quality: str = "low", voice=...) -> Path | None: ...

    def queue_length(self) -> int: ...

    def waiting(self, job: RenderJob) -> int: ...  # renders before `job`; a page's poll: someone still waits for it

    def shutdown(self, wait: bool = True) -> None: ...


def media_dir(environ=None) -> Path:
    return Path((os.environ if environ is None else environ).get("ATTENTION_LAB_MEDIA", "media")).resolve()


def cap_bytes(environ=None) -> int:
    return int(float((os.environ if environ is None else environ).get("ATTENTION_LAB_CACHE_GB", "2")) * 1024**3)


def make_service(environ=None) -> RenderBackend:
    """The render service this server uses: RQ workers if ATTENTION_LAB_REDIS_URL names a Redis, else this process."""
    env = os.environ if environ is None else environ
    if env.get(REDIS_URL_ENV):
        from animations.rq_service import RQRenderService

        return RQRenderService(env[REDIS_URL_ENV], media_dir=media_dir(env), cap_bytes=cap_bytes(env))
    workers = env.get("ATTENTION_LAB_RENDER_WORKERS")
    return RenderService(media_dir=media_dir(env), cap_bytes=cap_bytes(env), workers=int(workers) if workers else None)
