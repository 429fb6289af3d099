"""Lecture videos as jobs (jobs/): the render task, and the render service that pages call.

- `make_service(environ)` picks the service a lab server runs: `RenderService`, renders in
  threads of this process, each in a manim subprocess (a laptop: `make run`, `make classroom`),
  or where ATTENTION_LAB_REDIS_URL names a Redis, `RQRenderService`, a queue in that Redis that
  `python -m jobs.worker ... animations.service:worker_task` processes render (`make hall`,
  deploy/). Pages (dashboard/video/studio.py, the Lecture page) call the same few methods of
  either and never know which runs.
- A render's key (`render_key`: scene, cfg.key(), quality, voice and rate, code version) is its
  job's key, so identical requests share one render, and it names its cache folder.
- Limits (jobs/policy.py): 3 renders per session, 3 per device (its network address, whatever
  its tabs) and 40 in the queue, running ones included; the teacher's go first and are not
  refused for a full queue; a refusal says the real wait (the measured render times,
  catalog.RENDER_SECONDS). In this process, a waiting render whose page stopped asking
  (`waiting(job)`) for ABANDON_AFTER is not made, and a render whose sessions have all gone is
  stopped (jobs.session_check(), which the dashboard gives).
- Renders land in a disk cache under `media_dir/renders/` whose total size is capped: the least
  recently used renders are evicted first (animations/cache_index.py); a failure of that
  bookkeeping after a good render does not fail the video. A finished video plays from the disk
  without asking the queue (in a hall too, while Redis restarts).
- In a hall, a render whose worker died is rendered again (RETRIES times).

Settings, read by labs and workers: ATTENTION_LAB_MEDIA (the media folder; one folder shared by a
hall's processes; default `media`), ATTENTION_LAB_CACHE_GB (its cap, default 2),
ATTENTION_LAB_RENDER_WORKERS (renders at once in one process; default cores - 1). Tests only:
ATTENTION_LAB_TEST_RENDER=module:function renders with that function in a worker, not with manim.
"""

import logging
import os
import time
from pathlib import Path
from typing import NamedTuple

from animations.cache_index import CacheIndex
from animations.catalog import duration_text, render_seconds
from animations.render import (
    DEFAULT_MEDIA,
    DEFAULT_TIMEOUT,
    RenderError,
    cache_dir,
    checked_request,
    code_version,
    render,
    render_key,
    stop_renders,
)
from animations.voice import NARRATOR, Voice
from core import AttentionConfig
from jobs import Failed, Job, Limits, Requester, Runner, Service, Task, Words, media_dir, session_check
from jobs.job import resolve
from jobs.local import LocalQueue
from jobs.redis_client import REDIS_URL_ENV

log = logging.getLogger(__name__)
DEFAULT_CAP_BYTES = 2 * 1024**3
MAX_FINISHED_JOBS = 200  # finished jobs remembered (their videos stay in the cache); active ones always are
ABANDON_AFTER = 180.0  # seconds: a page polls every second, but a browser slows a hidden tab's timers to once a minute
RETRIES = 2  # a render whose worker died is tried twice more
TEST_RENDER_ENV = "ATTENTION_LAB_TEST_RENDER"
STOPPING = "The server is stopping; this video was not made."
ABANDONED = "Nobody was waiting for this video any more (its page was closed), so it was not made."


def _full(entries, pace: float, workers: int) -> str:
    """The full queue's sentence: how long until a place frees, and how long its work takes in all."""
    left = [e.left for e in entries]
    running = [e.left for e in entries if e.running]
    first = min(running or left)
    work = sum(left) / workers
    renderers = f"{workers} renderer{'s' * (workers > 1)}"
    return (f"The render queue is full: {len(entries)} videos, {duration_text(work)} of rendering for "
            f"{renderers}. A place frees in {duration_text(first)}; a video asked for then starts after "
            f"{duration_text(max(0.0, work - first))} more.")


WORDS = Words(
    busy="You already have {limit} videos rendering; wait for one to finish.",
    full=_full,
    unavailable=("Renders are briefly unavailable: the lab's render queue does not answer (it may be "
                 "restarting). Try again in a minute; the lessons work meanwhile."),
    stopping=STOPPING,
    stopped="The render was stopped: nobody was waiting for it any more.",
    crashed="The renderer crashed; the server's log has the details.",
    died="The renderer stopped (its worker ended) and gave up; the render workers' logs have the details.",
    lost="The render queue was restarted and lost this request: press Try again.",
    gone="The video is no longer in the shared cache (it was evicted): press Try again.",
    timed_out="The render took longer than its time limit and was stopped.",
    other_version=("The render worker runs another version of the lab than the page that asked (or cannot "
                   "narrate there); restart the hall so that all its processes run the same code."),
    abandoned=ABANDONED,
    device_busy="This device already has {limit} videos rendering or waiting (whichever of its tabs asked); "
                "wait for one to finish.",
    ready_in="Expected wait: {wait} (until the first of them is ready).")


class RenderRequest(NamedTuple):
    scene: str  # the catalogue's name
    cfg: AttentionConfig
    quality: str
    voice: Voice | None  # the voice that speaks (None: silent)
    movie: Path  # where its video lands in this process's media folder


class RenderJob(Job):
    """A render as a page sees it: the request, then its state, progress (animations), video or failure."""

    scene = property(lambda self: self.request.scene)
    cfg = property(lambda self: self.request.cfg)
    quality = property(lambda self: self.request.quality)
    voice = property(lambda self: self.request.voice)
    movie = property(lambda self: self.request.movie)
    session = property(lambda self: self.requester)
    log = property(lambda self: self.status.extra.get("log", ""))  # the end of manim's log, if it failed there

    @property
    def path(self) -> Path | None:
        return self.result if self.state == "done" else None


class Renders(Task):
    name, words, retries = "renders", WORDS, RETRIES

    def __init__(self, media=DEFAULT_MEDIA, cap_bytes: int = DEFAULT_CAP_BYTES, render_fn=render,
                 timeout: float = DEFAULT_TIMEOUT, index_per_run: bool = False):
        """`index_per_run`: read the cache index afresh for each render (a worker's forked horse; the lab's stays)."""
        self.media_dir, self.cap_bytes, self.render_fn, self.timeout = Path(media), cap_bytes, render_fn, timeout
        self.index_per_run, self.timeout_s = index_per_run, int(timeout) + 120
        self.index = CacheIndex(self.media_dir / "renders", cap_bytes)

    def request(self, scene: str, cfg, quality: str, voice: Voice | None) -> RenderRequest:
        """The checked request (ConfigError or KeyError if it cannot be: see render.checked_request)."""
        name, cfg, voice = checked_request(scene, cfg, quality, voice)
        movie = cache_dir(name, cfg, quality, self.media_dir, voice) / f"{name}.mp4"
        return RenderRequest(name, cfg, quality, voice, movie)

    def key(self, request: RenderRequest) -> str:
        return render_key(request.scene, request.cfg, request.quality, request.voice)

    def cost(self, request: RenderRequest) -> float:
        return render_seconds(request.scene, request.quality)

    def job(self, key: str, request: RenderRequest, requester: str) -> RenderJob:
        return RenderJob(key, request, requester)

    def ready(self, request: RenderRequest) -> Path | None:
        if not request.movie.is_file():
            return None
        self.index.touch(request.movie.parent)
        return request.movie

    def done(self, request: RenderRequest) -> Path | None:
        return request.movie if request.movie.is_file() else None

    def encode(self, request: RenderRequest) -> dict:
        voice = {"name": request.voice.name, "rate": request.voice.rate} if request.voice else None
        return {"scene": request.scene, "cfg": request.cfg.to_json(), "quality": request.quality, "voice": voice}

    def decode(self, data: dict) -> RenderRequest:
        voice = Voice(**data["voice"]) if data["voice"] else None
        return self.request(data["scene"], data["cfg"], data["quality"], voice)

    def run(self, request: RenderRequest, progress, should_stop) -> Path:
        def on_progress(done: int, total: int):
            if should_stop():  # raised in render's loop, which kills manim and leaves nothing behind
                raise Failed(WORDS.stopped)
            progress(done, total)

        try:
            movie = self.render_fn(request.scene, request.cfg, request.quality, on_progress=on_progress,
                                   timeout=self.timeout, media_dir=self.media_dir, voice=request.voice)
        except RenderError as err:
            raise Failed(str(err).split("\n")[0], err.log) from None
        except OSError as err:  # the disk: full, read-only, a folder removed under us
            log.exception("Render %s could not be written", request.movie.parent.name)
            raise Failed(f"The video could not be saved ({err.strerror or err}).") from None
        self._keep_in_cache(movie)
        return movie

    def runner(self) -> Runner:
        return _RenderRunner(self)

    def _keep_in_cache(self, movie: Path):
        """Index the new render and keep the cache under its cap; a failure here loses no video."""
        index = CacheIndex(self.index.root, self.cap_bytes) if self.index_per_run else self.index
        try:
            index.touch(movie.parent)
            index.evict(keep={movie.parent.name})
        except (OSError, ValueError):
            log.exception("Cache bookkeeping failed after a good render of %s (the video is kept)", movie.parent.name)


class _RenderRunner(Runner):
    """A render thread of this process: the task's run, and at shutdown every manim process of this
    process killed, each with its whole process group (render.stop_renders)."""

    def kill(self):
        stop_renders()


class RenderService(Service):
    """The render queue as pages call it, in this process (RQRenderService: the same, in the hall's Redis)."""

    job_key = staticmethod(render_key)  # (scene, cfg, quality, voice): the job's key and its cache folder

    def __init__(self, media_dir=DEFAULT_MEDIA, workers: int | None = None, cap_bytes: int = DEFAULT_CAP_BYTES,
                 timeout: float = DEFAULT_TIMEOUT, max_per_session: int = 3, max_queued: int = 40,
                 render_fn=render, abandon_after: float = ABANDON_AFTER, clock=time.monotonic,
                 max_per_device: int = 3):
        self.task = Renders(media_dir, cap_bytes, render_fn, timeout)
        try:  # what the CLI or an older server left may already be over the cap
            self.task.index.evict()
        except OSError:
            log.exception("Could not bring the render cache under its cap at start")
        self.workers = workers or max(1, (os.cpu_count() or 2) - 1)
        self.queue = LocalQueue(self.task, Limits(max_per_session, max_queued, per_device=max_per_device),
                                self.workers, remember=MAX_FINISHED_JOBS, abandon_after=abandon_after, clock=clock,
                                alive=session_check())

    media_dir = property(lambda self: self.task.media_dir)
    index = property(lambda self: self.task.index)

    def cached(self, scene: str, cfg, quality: str = "low", voice: Voice | None = NARRATOR) -> Path | None:
        """The finished video for this request, if the cache holds one (counts as a use)."""
        return self.task.ready(self.task.request(scene, cfg, quality, voice))

    def submit(self, scene: str, cfg, quality: str = "low", session: "Requester | str" = "",
               voice: Voice | None = NARRATOR) -> RenderJob:
        """The job of this request: the waiting, running or finished one if there is one, else a new one.
        `session`: who asks (a Requester: session, device, teacher; "" a render for everyone).

        `voice` narrates (None: silent; also where Piper is not installed). Raises ConfigError for bad
        settings, KeyError for an unknown scene or quality, QueueFull past the limits and QueueUnavailable
        when the hall's Redis does not answer, before anything is queued."""
        return self.queue.submit(self.task.request(scene, cfg, quality, voice), session)


class RQRenderService(RenderService):
    def __init__(self, redis_url: str, media_dir=DEFAULT_MEDIA, cap_bytes: int = DEFAULT_CAP_BYTES,
                 timeout: float = DEFAULT_TIMEOUT, max_per_session: int = 3, max_queued: int = 40,
                 max_per_device: int = 3):
        from jobs.rq_queue import RQQueue

        self.task = Renders(media_dir, cap_bytes, timeout=timeout)  # the workers evict; labs record hits
        self.queue = RQQueue(redis_url, self.task, Limits(max_per_session, max_queued, per_device=max_per_device),
                             alive=session_check())


def cap_bytes(environ=None) -> int:
    return int(float((os.environ if environ is None else environ).get("ATTENTION_LAB_CACHE_GB", "2")) * 1024**3)


def make_service(environ=None) -> RenderService:
    """The render service this server uses: RQ workers if ATTENTION_LAB_REDIS_URL names a Redis, else this process."""
    env = os.environ if environ is None else environ
    if env.get(REDIS_URL_ENV):
        return RQRenderService(env[REDIS_URL_ENV], media_dir=media_dir(env), cap_bytes=cap_bytes(env))
    workers = env.get("ATTENTION_LAB_RENDER_WORKERS")
    return RenderService(media_dir=media_dir(env), cap_bytes=cap_bytes(env), workers=int(workers) if workers else None)


def worker_task() -> Renders:
    """The render task of a hall's worker (jobs.worker), from its environment, made once before any fork."""
    stand_in = os.environ.get(TEST_RENDER_ENV)
    if stand_in:
        log.warning("Rendering with %s, not manim (%s is set: tests only)", stand_in, TEST_RENDER_ENV)
    code_version()  # every render of this worker is named by the code it started with
    task = Renders(media_dir(), cap_bytes(), resolve(stand_in) if stand_in else render, index_per_run=True)
    task.media_dir.mkdir(parents=True, exist_ok=True)
    return task
