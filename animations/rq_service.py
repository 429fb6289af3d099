"""The render service on a real queue: RQ on the hall's Redis, rendered by `python -m animations.rq_worker`.

The same calls as the in-process RenderService (animations/service.py), across every lab process:

- identical requests share one job, its id the render's key (`render_key`: scene, cfg.key(),
  quality, voice and rate, code version), and the per-session and total limits count active jobs
  in Redis (job id -> session), as classroom/rq_jobs.py keeps them for every queue of the hall;
- progress is read from the job: the worker writes `done`/`total` into job.meta from the
  render's on_progress, and a failure's sentence and manim's log there too;
- a job whose worker dies is re-queued by RQ (`Retry`, RETRIES times; see rq_worker.py for how
  soon) and its requester still gets the video;
- videos land in the media folder every process shares, written aside and renamed into place by
  render.render; a finished video is found on disk without asking Redis, so videos already
  made keep playing while Redis restarts.

Redis down, restarting or hung: submit raises QueueUnavailable (a QueueFull, which pages show as
they show a full queue) at once, or within about 4 s if Redis hangs; a job in flight reads as
failed with a plain sentence; queue_length() reads 0; no redis error reaches a page.
"""

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from rq import Retry

from animations.cache_index import CacheIndex
from animations.render import DEFAULT_MEDIA, DEFAULT_TIMEOUT, cache_dir, checked_request, render_key
from animations.service import DEFAULT_CAP_BYTES, QueueFull, QueueUnavailable
from animations.voice import NARRATOR, Voice
from classroom.redis_client import UNAVAILABLE, connect
from classroom.rq_jobs import KEEP_ENDED_S, WAITING_STATES, Followed, SharedJobs

log = logging.getLogger(__name__)

QUEUE = "attention-lab-renders"
RENDER_FUNCTION = "animations.rq_worker.render_job"  # by name: the lab never imports the worker
ACTIVE = "attention-lab:renders:active"  # hash: job id -> "<admitted at> <session>"
RETRIES = 2  # a job whose worker died is tried twice more
UNAVAILABLE_MESSAGE = ("Renders are briefly unavailable: the lab's render queue does not answer (it may be "
                       "restarting). Try again in a minute; the lessons work meanwhile.")
LOST = "The render queue was restarted and lost this request: press Try again."
GONE = "The video is no longer in the shared cache (it was evicted): press Try again."
CRASHED = "The renderer stopped (its worker ended) and gave up; the render workers' logs have the details."


def job_id(key: str) -> str:
    """The RQ job id of a render key (RQ takes letters, digits, '_' and '-': the rate's '.' becomes '_')."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", key)


@dataclass(frozen=True)
class Snapshot:
    state: str = "queued"
    done: int = 0
    total: int = 0
    error: str = ""
    log: str = ""


@dataclass(eq=False)
class QueuedJob(Followed):
    """A render as a page sees it (the same fields as service.Job), read from RQ and the disk as it goes."""

    key: str
    scene: str
    cfg: object
    quality: str
    session: str
    voice: Voice | None
    movie: Path  # where the video will be, in the shared media folder
    service: "RQRenderService" = field(repr=False)

    done = property(lambda self: self._now().done)
    log = property(lambda self: self._now().log)

    @property
    def path(self) -> Path | None:
        return self.movie if self.state == "done" else None


class RQRenderService:
    def __init__(self, redis_url: str, media_dir=DEFAULT_MEDIA, cap_bytes: int = DEFAULT_CAP_BYTES,
                 timeout: float = DEFAULT_TIMEOUT, max_per_session: int = 3, max_queued: int = 40):
        self.redis = connect(redis_url)  # bytes, as RQ wants; connects on first use
        self.jobs = SharedJobs(self.redis, QUEUE, ACTIVE)
        self.queue = self.jobs.queue
        self.media_dir, self.timeout = Path(media_dir), timeout
        self.max_per_session, self.max_queued = max_per_session, max_queued
        self.index = CacheIndex(self.media_dir / "renders", cap_bytes)  # the workers evict; labs record hits

    job_key = staticmethod(render_key)

    def cached(self, scene: str, cfg, quality: str = "low", voice: Voice | None = NARRATOR) -> Path | None:
        """The finished video for this request, if the shared cache holds one (counts as a use)."""
        name, cfg, voice = checked_request(scene, cfg, quality, voice)
        return self._hit(self._movie(name, cfg, quality, voice))

    def _movie(self, name: str, cfg, quality: str, voice: Voice | None) -> Path:
        return cache_dir(name, cfg, quality, self.media_dir, voice) / f"{name}.mp4"

    def _hit(self, movie: Path) -> Path | None:
        if not movie.is_file():
            return None
        self.index.touch(movie.parent)
        return movie

    def submit(self, scene: str, cfg, quality: str = "low", session: str = "", voice: Voice | None = NARRATOR):
        """A job for this request: the queued, running or finished one if any process made it, else a new one.

        Raises ConfigError or KeyError for a bad request, QueueFull past the limits and
        QueueUnavailable when Redis does not answer, before anything is queued."""
        name, cfg, voice = checked_request(scene, cfg, quality, voice)
        movie = self._movie(name, cfg, quality, voice)
        job = QueuedJob(render_key(name, cfg, quality, voice), name, cfg, quality, session, voice, movie, self)
        if self._hit(movie) is not None:
            return job  # rendered before, by any process: no queue, no Redis
        try:
            self._enqueue_once(job)
        except UNAVAILABLE:
            raise QueueUnavailable(UNAVAILABLE_MESSAGE) from None
        return job

    def _enqueue_once(self, job: QueuedJob):
        jid = job_id(job.key)
        self.jobs.enqueue_once(jid, job.session, lambda admitted: self._check_limits(list(admitted.values()),
                                                                                     job.session),
                               lambda: self._enqueue(job, jid))

    def _enqueue(self, job: QueuedJob, jid: str):
        voice = {"name": job.voice.name, "rate": job.voice.rate} if job.voice else None
        self.queue.enqueue(RENDER_FUNCTION, job.scene, job.cfg.to_json(), job.quality, job.key, voice, job_id=jid,
                           unique=True, retry=Retry(max=RETRIES), job_timeout=int(self.timeout) + 120,
                           result_ttl=KEEP_ENDED_S, failure_ttl=KEEP_ENDED_S, meta={"done": 0, "total": 0},
                           description=f"{job.scene} {job.cfg.key()} {job.quality}")

    def _check_limits(self, sessions: list[str], session: str):
        if len(sessions) >= self.max_queued:
            raise QueueFull(f"The render queue is full ({self.max_queued} videos waiting); try again in a minute.")
        if session and sessions.count(session) >= self.max_per_session:
            raise QueueFull(f"You already have {self.max_per_session} videos rendering; wait for one to finish.")

    def read(self, job: QueuedJob) -> Snapshot:
        """The job's state now: the disk first (a finished video needs no Redis), then RQ."""
        if job.movie.is_file():
            return Snapshot("done")
        try:
            status, meta = self.jobs.status_and_meta(job_id(job.key))
        except UNAVAILABLE:
            return Snapshot("failed", error=UNAVAILABLE_MESSAGE)
        if job.movie.is_file():  # it finished while we asked
            return Snapshot("done")
        progress = {"done": int(meta.get("done", 0)), "total": int(meta.get("total", 0))}
        if status in WAITING_STATES:
            return Snapshot("queued", **progress)
        if status == "started":
            return Snapshot("running", **progress)
        error = meta.get("error") or {None: LOST, "finished": GONE}.get(status, CRASHED)
        return Snapshot("failed", error=error, log=meta.get("log", ""), **progress)

    def queue_length(self) -> int:
        """Renders waiting or running in the whole hall (0 while Redis does not answer)."""
        return self.jobs.queue_length()

    def waiting(self, job) -> int:
        """Renders before this one, at most: the hall's whole queue less this job while it waits (the hall
        does not yet drop a job whose page was closed: its workers render it)."""
        return max(0, self.queue_length() - 1) if job.state == "queued" else 0

    def shutdown(self, wait: bool = True):
        self.redis.close()
