"""The render service inside the app: one queue for every browser session of the server.

- Identical requests share one job: thirty students asking for the same lesson start one
  render and all get its video.
- At most `workers` renders run at once (default: cores - 1, at least 1); each has a timeout.
- Renders land in a disk cache under `media_dir/renders/` whose total size is capped: the
  least recently used renders are evicted first (animations/cache_index.py).
- Limits keep one session from starving the rest: jobs waiting per session, and in total;
  finished jobs are forgotten beyond MAX_FINISHED_JOBS (least recently asked for first). A full
  queue says how long its work will take (the measured render times, catalog.RENDER_SECONDS).
- A queued job nobody is waiting for any more is not rendered: the page that asked for it calls
  `waiting(job)` while it shows the job's progress; a job not asked after for `abandon_after`
  seconds (its tab closed, its session ended) is dropped when its turn comes, or as soon as the
  queue is full.
- `shutdown()` stops at once: queued jobs are dropped, running renders killed (their whole
  process group), and no render starts afterwards (dashboard/serve.py calls it as the server stops).
- A failure is logged with its traceback (logging); a failure of the cache's bookkeeping
  after a good render does not fail the video.

No Streamlit here: the dashboard holds one service per process (dashboard/process.py), not in a
Streamlit cache, which any visitor can clear.
"""

import itertools
import logging
import os
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from animations.cache_index import CacheIndex
from animations.catalog import duration_text, render_seconds
from animations.render import (
    DEFAULT_MEDIA,
    DEFAULT_TIMEOUT,
    RenderError,
    cache_dir,
    checked_request,
    render,
    render_key,
    stop_renders,
)
from animations.voice import NARRATOR, Voice
from core import AttentionConfig

log = logging.getLogger(__name__)
DEFAULT_CAP_BYTES = 2 * 1024**3
MAX_FINISHED_JOBS = 200  # finished jobs remembered (their videos stay in the cache); active ones always are
ABANDON_AFTER = 180.0  # seconds: a page polls every second, but a browser slows a hidden tab's timers to once a minute
STOPPING = "The server is stopping; this video was not made."
ABANDONED = "Nobody was waiting for this video any more (its page was closed), so it was not made."


class QueueFull(RuntimeError):
    """The queue cannot take this render now: too many are waiting, for this session or in all."""


class QueueUnavailable(QueueFull):
    """The hall's render queue (Redis) does not answer: pages say so as they say the queue is full."""


@dataclass(eq=False)
class Job:
    key: str
    scene: str
    cfg: AttentionConfig
    quality: str
    session: str = ""
    voice: Voice | None = None  # the narrator (None: silent)
    state: str = "queued"  # queued | running | done | failed
    done: int = 0
    total: int = 0
    path: Path | None = None
    error: str = ""
    log: str = ""
    asked: float = 0.0  # when a page last showed this job (the service's clock): see RenderService.waiting
    order: int = 0  # place in the queue: renders start in the order they were asked for
    finished: threading.Event = field(default_factory=threading.Event)

    def wait(self, timeout: float | None = None) -> bool:
        return self.finished.wait(timeout)

    @property
    def active(self) -> bool:
        return self.state in ("queued", "running")

    def end(self, state: str, error: str = ""):
        self.state, self.error = state, error
        self.finished.set()


class RenderService:
    def __init__(self, media_dir=DEFAULT_MEDIA, workers: int | None = None, cap_bytes: int = DEFAULT_CAP_BYTES,
                 timeout: float = DEFAULT_TIMEOUT, max_per_session: int = 3, max_queued: int = 40,
                 render_fn=render, abandon_after: float = ABANDON_AFTER, clock=time.monotonic):
        self.media_dir = Path(media_dir)
        self.workers = workers or max(1, (os.cpu_count() or 2) - 1)
        self.timeout, self.render_fn = timeout, render_fn
        self.max_per_session, self.max_queued = max_per_session, max_queued
        self.abandon_after, self.clock = abandon_after, clock
        self.closed = False
        self._asked = itertools.count()
        self.index = CacheIndex(self.media_dir / "renders", cap_bytes)
        try:  # what the CLI or an older server left may already be over the cap
            self.index.evict()
        except OSError:
            log.exception("Could not bring the render cache under its cap at start")
        self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="render")
        self._jobs: OrderedDict[str, Job] = OrderedDict()  # least recently asked for first
        self._lock = threading.Lock()

    job_key = staticmethod(render_key)  # (scene, cfg, quality, voice): the RQ service's job id too

    def cached(self, scene: str, cfg, quality: str = "low", voice: Voice | None = NARRATOR) -> Path | None:
        """The finished video for this request, if the cache holds one (counts as a use)."""
        name, cfg, voice = checked_request(scene, cfg, quality, voice)
        return self._hit(name, cfg, quality, voice)

    def _hit(self, name: str, cfg: AttentionConfig, quality: str, voice: Voice | None) -> Path | None:
        movie = cache_dir(name, cfg, quality, self.media_dir, voice) / f"{name}.mp4"
        if not movie.is_file():
            return None
        self.index.touch(movie.parent)
        return movie

    def submit(self, scene: str, cfg, quality: str = "low", session: str = "", voice: Voice | None = NARRATOR) -> Job:
        """A job for this request: the running or finished one if it exists, else a new one.

        `voice` narrates (None: silent; also where Piper is not installed). Raises ConfigError
        for bad settings and QueueFull past the limits, before queueing.
        """
        name, cfg, voice = checked_request(scene, cfg, quality, voice)
        key = self.job_key(name, cfg, quality, voice)
        with self._lock:
            if self.closed:
                raise QueueFull(STOPPING)
            job = self._jobs.get(key)
            if job is not None and (job.active or (job.state == "done" and job.path.is_file())):
                self._jobs.move_to_end(key)
                job.asked = self.clock()
                return job
            hit = self._hit(name, cfg, quality, voice)
            if hit is not None:  # rendered before, perhaps before a restart: no queue, no worker
                job = self._remember(Job(key, name, cfg, quality, session, voice, state="done", path=hit))
                job.finished.set()
                return job
            self._check_limits(session)
            job = self._remember(Job(key, name, cfg, quality, session, voice, asked=self.clock(),
                                     order=next(self._asked)))
        self._pool.submit(self._run, job)
        return job

    def waiting(self, job: Job) -> int:
        """How many renders come before `job` (queued or running); the page showing the job calls it on
        every poll, and that is what keeps a queued job wanted."""
        with self._lock:
            job.asked = self.clock()
            if job.state != "queued":
                return 0
            return sum(other.active and other.order < job.order for other in self._jobs.values())

    def _remember(self, job: Job) -> Job:
        """Keep `job` as the newest; forget the oldest finished jobs beyond MAX_FINISHED_JOBS. Call with the lock."""
        self._jobs[job.key] = job
        self._jobs.move_to_end(job.key)
        self._forget_old()
        return job

    def _forget_old(self):
        finished = [k for k, j in self._jobs.items() if not j.active]
        for key in finished[: max(0, len(finished) - MAX_FINISHED_JOBS)]:
            del self._jobs[key]

    def _abandoned(self, job: Job) -> bool:
        return job.state == "queued" and self.clock() - job.asked > self.abandon_after

    def _check_limits(self, session: str):
        """Raise QueueFull past the limits, saying how long the queue's work will take. Call with the lock."""
        active = [j for j in self._jobs.values() if j.active]
        if len(active) >= self.max_queued:
            for job in active:  # places held by pages that were closed are given back first
                if self._abandoned(job):
                    job.end("failed", ABANDONED)
            active = [j for j in active if j.active]
        if len(active) >= self.max_queued:
            raise QueueFull(self._full(active))
        if session and sum(j.session == session for j in active) >= self.max_per_session:
            raise QueueFull(f"You already have {self.max_per_session} videos rendering; wait for one to finish.")

    def _full(self, active: list[Job]) -> str:
        """The full queue's message: how long until a place frees, and how long its work takes in all."""
        left = [render_seconds(j.scene, j.quality) * (1 - (j.done / j.total if j.total else 0.0)) for j in active]
        first = min(s for s, j in zip(left, active, strict=True) if j.state == "running") if any(
            j.state == "running" for j in active) else min(left)
        work = sum(left) / self.workers
        renderers = f"{self.workers} renderer{'s' * (self.workers > 1)}"
        return (f"The render queue is full: {len(active)} videos, {duration_text(work)} of rendering for "
                f"{renderers}. A place frees in {duration_text(first)}; a video asked for then starts after "
                f"{duration_text(max(0.0, work - first))} more.")

    def _run(self, job: Job):
        with self._lock:  # its turn: not if the server is stopping, nor if nobody waits for it any more
            if not job.active:
                return
            if self.closed or self._abandoned(job):
                job.end("failed", STOPPING if self.closed else ABANDONED)
                return
            job.state = "running"

        def progress(done, total):
            job.done, job.total = done, total

        try:
            path = self.render_fn(job.scene, job.cfg, job.quality, on_progress=progress, timeout=self.timeout,
                                  media_dir=self.media_dir, voice=job.voice)
        except RenderError as err:
            log.warning("Render %s failed: %s", job.key, str(err).split("\n")[0])
            job.error, job.log, job.state = str(err).split("\n")[0], err.log, "failed"
        except OSError as err:  # the disk: full, read-only, a folder removed under us
            log.exception("Render %s could not be written", job.key)
            job.error, job.state = f"The video could not be saved ({err.strerror or err}).", "failed"
        except Exception:  # a bug: say so in the log with its traceback; the job still ends, the queue goes on
            log.exception("Render %s crashed", job.key)
            job.error, job.state = "The renderer crashed; the server's log has the details.", "failed"
        else:
            job.path, job.state = path, "done"
            self._keep_in_cache(job)
        finally:
            with self._lock:
                self._forget_old()
            job.finished.set()

    def _keep_in_cache(self, job: Job):
        """Index the new render and keep the cache under its cap; a failure here loses no video."""
        try:
            self.index.touch(job.path.parent)
            self.index.evict(keep={job.path.parent.name})
        except (OSError, ValueError):
            log.exception("Cache bookkeeping failed after a good render of %s (the video is kept)", job.key)

    def queue_length(self) -> int:
        with self._lock:
            return sum(j.active for j in self._jobs.values())

    def shutdown(self, wait: bool = True):
        """Stop: queued jobs fail with a sentence, running renders are killed, nothing starts afterwards.
        `wait`: until the render threads have ended."""
        with self._lock:
            self.closed = True
            for job in self._jobs.values():
                if job.state == "queued":
                    job.end("failed", STOPPING)
        self._pool.shutdown(wait=False, cancel_futures=True)
        stop_renders()
        if wait:
            self._pool.shutdown(wait=True)
