"""The render service inside the app: one queue for every browser session of the server.

- Identical requests share one job: thirty students asking for the same lesson start one
  render and all get its video.
- At most `workers` renders run at once (default: cores - 1, at least 1); each has a timeout.
- Renders land in a disk cache under `media_dir/renders/` whose total size is capped: the
  least recently used renders are evicted first. The cap holds for whatever is in the folder:
  before evicting, the index is reconciled with the folders on disk (renders made by
  `make lecture` or the CLI count too). The index (`index.json`) survives a restart and is
  rebuilt from the folders when it is missing or corrupt.
- Limits keep one session from starving the rest: jobs waiting per session, and in total;
  finished jobs are forgotten beyond MAX_FINISHED_JOBS (least recently asked for first).
- A failure is logged with its traceback (logging); a failure of the cache's bookkeeping
  after a good render does not fail the video.

No Streamlit here: the dashboard holds one service with `st.cache_resource`.
"""

import json
import logging
import os
import shutil
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from animations.render import (
    DEFAULT_MEDIA,
    DEFAULT_TIMEOUT,
    RenderError,
    cache_dir,
    checked_request,
    render,
    render_key,
)
from animations.voice import NARRATOR, Voice
from core import AttentionConfig

log = logging.getLogger(__name__)
DEFAULT_CAP_BYTES = 2 * 1024**3
MAX_FINISHED_JOBS = 200  # finished jobs remembered (their videos stay in the cache); active ones always are


class QueueFull(RuntimeError):
    """The queue cannot take this render now: too many are waiting, for this session or in all."""


class QueueUnavailable(QueueFull):
    """The hall's render queue (Redis) does not answer: pages say so as they say the queue is full."""


def _folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


class CacheIndex:
    """Size and last use of every finished render folder; evicts the least recently used."""

    def __init__(self, root: Path, cap_bytes: int):
        self.root, self.cap_bytes = Path(root), cap_bytes
        self.path = self.root / "index.json"
        self._lock = threading.Lock()
        self.entries = self._load()

    def _load(self) -> dict:
        try:
            entries = json.loads(self.path.read_text(encoding="utf-8"))
            if isinstance(entries, dict) and all(isinstance(e, dict) and {"size", "last_used"} <= e.keys()
                                                 for e in entries.values()):
                return {name: e for name, e in entries.items() if (self.root / name).is_dir()}
        except (OSError, ValueError):
            pass
        return self._rebuild()

    def _rebuild(self) -> dict:
        """The index from the folders on disk; temporary folders (a leading dot) are not renders."""
        return {d.name: {"size": _folder_size(d), "last_used": d.stat().st_mtime} for d in self._folders()}

    def _folders(self) -> list[Path]:
        if not self.root.is_dir():
            return []
        return [d for d in self.root.iterdir() if d.is_dir() and not d.name.startswith(".")]

    def reconcile(self):
        """Make the index match the disk: folders written behind the service's back (the CLI,
        `make lecture`) are added with their size and time, vanished ones dropped. Call with the lock."""
        on_disk = {d.name: d for d in self._folders()}
        self.entries = {n: e for n, e in self.entries.items() if n in on_disk}
        for name, folder in on_disk.items():
            if name not in self.entries:
                self.entries[name] = {"size": _folder_size(folder), "last_used": folder.stat().st_mtime}

    def _save(self):
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".index-{os.getpid()}-{threading.get_ident()}.json")
        tmp.write_text(json.dumps(self.entries, indent=1), encoding="utf-8")
        os.replace(tmp, self.path)

    def touch(self, folder: Path):
        """Record a use of `folder` (a new render, or a cache hit)."""
        with self._lock:
            entry = self.entries.get(folder.name) or {"size": _folder_size(folder)}
            entry["last_used"] = time.time()
            self.entries[folder.name] = entry
            self._save()

    def evict(self, keep=()) -> list[str]:
        """Remove least recently used renders until the total fits the cap; returns their names."""
        removed = []
        with self._lock:
            self.reconcile()
            by_age = sorted(self.entries, key=lambda n: self.entries[n]["last_used"])
            for name in by_age:
                if self.total_bytes() <= self.cap_bytes:
                    break
                if name not in keep:
                    shutil.rmtree(self.root / name, ignore_errors=True)
                    removed.append(name)
                    del self.entries[name]
            self._save()
        return removed

    def total_bytes(self) -> int:
        return sum(e["size"] for e in self.entries.values())


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
    finished: threading.Event = field(default_factory=threading.Event)

    def wait(self, timeout: float | None = None) -> bool:
        return self.finished.wait(timeout)

    @property
    def active(self) -> bool:
        return self.state in ("queued", "running")


class RenderService:
    def __init__(self, media_dir=DEFAULT_MEDIA, workers: int | None = None, cap_bytes: int = DEFAULT_CAP_BYTES,
                 timeout: float = DEFAULT_TIMEOUT, max_per_session: int = 3, max_queued: int = 40,
                 render_fn=render):
        self.media_dir = Path(media_dir)
        self.workers = workers or max(1, (os.cpu_count() or 2) - 1)
        self.timeout, self.render_fn = timeout, render_fn
        self.max_per_session, self.max_queued = max_per_session, max_queued
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
            job = self._jobs.get(key)
            if job is not None and (job.active or (job.state == "done" and job.path.is_file())):
                self._jobs.move_to_end(key)
                return job
            hit = self._hit(name, cfg, quality, voice)
            if hit is not None:  # rendered before, perhaps before a restart: no queue, no worker
                job = self._remember(Job(key, name, cfg, quality, session, voice, state="done", path=hit))
                job.finished.set()
                return job
            self._check_limits(session)
            job = self._remember(Job(key, name, cfg, quality, session, voice))
        self._pool.submit(self._run, job)
        return job

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

    def _check_limits(self, session: str):
        active = [j for j in self._jobs.values() if j.active]
        if len(active) >= self.max_queued:
            raise QueueFull(f"The render queue is full ({self.max_queued} videos waiting); try again in a minute.")
        if session and sum(j.session == session for j in active) >= self.max_per_session:
            raise QueueFull(f"You already have {self.max_per_session} videos rendering; wait for one to finish.")

    def _run(self, job: Job):
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
        self._pool.shutdown(wait=wait, cancel_futures=not wait)
