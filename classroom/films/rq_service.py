"""The film service on the hall's Redis: RQ jobs, trained by the hall's workers (`python -m animations.rq_worker`).

The same calls as the in-process FilmService (service.py), across every lab process:

- identical settings share one job, its id `settings.key()`, and the limits count in Redis (job id ->
  "<steps> <session>"), as classroom/rq_jobs.py keeps them for every queue of the hall: one training
  per session, at most `max_queued` films waiting in the hall;
- which sessions wait for a film is a set per job, so `cancel` stops a training only when no
  session waits for it any more; the worker's should_stop reads a stop key (rq_job.py);
- progress is read from job.meta (`step`, `total`, `losses`), which rq_job.py writes;
- films land in the media folder every process shares (store.py); a finished film is found on
  disk without asking Redis, so films already trained keep playing while Redis restarts.

Redis down, restarting or hung: submit raises FilmQueueUnavailable (a FilmQueueFull) at once,
or within about 4 s if Redis hangs; a job in flight reads as failed with a plain sentence;
queue_length() reads 0; no redis error reaches a page.
"""

from dataclasses import dataclass, field

from rq import Retry, Worker
from rq.exceptions import NoSuchJobError

from classroom.films import jobs
from classroom.films.jobs import BUSY, STOPPED, FilmQueueFull, FilmQueueUnavailable, keep_point, queue_full
from classroom.films.store import DEFAULT_CAP_BYTES, KEY, FilmStore
from classroom.redis_client import UNAVAILABLE, connect
from classroom.rq_jobs import KEEP_ENDED_S, WAITING_STATES, Followed, SharedJobs
from core.errors import ConfigError
from core.film import Film, LearnSettings

QUEUE = "attention-lab-films"
JOB_FUNCTION = "classroom.films.rq_job.train_job"  # by name: the lab never imports the worker's side
ACTIVE = "attention-lab:films:active"  # hash: job id -> "<admitted at> <steps> <session>"
ASKERS = "attention-lab:films:askers:"  # + job id: the sessions waiting for that film (a set)
STOP = "attention-lab:films:stop:"  # + job id: present while that training should stop
STEP_S = "attention-lab:films:step-s"  # seconds per training step, as a worker last measured
UNAVAILABLE_MESSAGE = ("Training is briefly unavailable: the lab's training queue does not answer (it may be "
                       "restarting). Try again in a minute; films already trained still play.")
LOST = "The training queue was restarted and lost this film: try again."
GONE = "The film is no longer in the shared cache (it was removed to make room): try again."
CRASHED = "The training stopped (its worker ended) and gave up; the workers' logs have the details."


@dataclass(frozen=True)
class Snapshot:
    state: str = "queued"
    step: int = 0
    total: int = 0
    losses: tuple = ()
    error: str = ""


@dataclass(eq=False)
class QueuedFilm(Followed):
    """A film as a page follows it (the fields of service.FilmJob), read from the disk and RQ as it goes."""

    key: str
    settings: LearnSettings
    session: str
    service: "RQFilmService" = field(repr=False)

    step = property(lambda self: self._now().step)

    @property
    def losses(self) -> list[tuple[int, float]]:
        """The live curve from job.meta; once done, the film's own (thinned alike)."""
        if self._now().state != "done" or (film := self.film()) is None:
            return [tuple(point) for point in self._now().losses]
        points = []
        for step, loss in enumerate(film.loss.tolist(), 1):
            points += [(step, loss)] if keep_point(points, step, len(film.loss)) else []
        return points

    def film(self) -> Film | None:
        return self.service.store.load(self.settings) if self.state == "done" else None


class RQFilmService:
    def __init__(self, redis_url: str, media_dir="media", cap_bytes: int = DEFAULT_CAP_BYTES,
                 max_per_session: int = 1, max_queued: int = 4):
        self.redis = connect(redis_url)  # bytes, as RQ wants; connects on first use
        self.jobs = SharedJobs(self.redis, QUEUE, ACTIVE, companions=lambda jid: (ASKERS + jid,))
        self.queue = self.jobs.queue
        self.store = FilmStore(media_dir, cap_bytes)  # the workers save and evict; labs read
        self.max_per_session, self.max_queued = max_per_session, max_queued

    def submit(self, settings: LearnSettings, session: str = "") -> QueuedFilm:
        """The job of these settings: the waiting, running or finished one if any process made it, else a
        new one. Raises FilmQueueFull past the limits, FilmQueueUnavailable when Redis does not answer."""
        if not isinstance(settings, LearnSettings):
            raise TypeError("submit takes LearnSettings")
        job = QueuedFilm(settings.key(), settings, session, self)
        if self.store.load(settings) is not None:
            return job  # trained before, by any process: no queue, no Redis
        try:
            self._enqueue_once(job)
            self.redis.sadd(ASKERS + job.key, session)
            self.redis.expire(ASKERS + job.key, KEEP_ENDED_S)
        except UNAVAILABLE:
            raise FilmQueueUnavailable(UNAVAILABLE_MESSAGE) from None
        return job

    def job(self, key: str) -> QueuedFilm | None:
        """The job of this key, if its film is on disk or RQ knows it (None too while Redis does not answer)."""
        if (film := self.store.load_key(key)) is not None:
            return QueuedFilm(key, film.settings, "", self)
        if not KEY.fullmatch(key):
            return None
        try:
            found = self.jobs.fetch(key)
            return QueuedFilm(key, LearnSettings.from_dict(found.args[0]), "", self)
        except (NoSuchJobError, ConfigError, IndexError, TypeError, *UNAVAILABLE):
            return None

    def cached(self, settings: LearnSettings) -> Film | None:
        return self.store.load(settings)

    def cancel(self, key: str, session: str = "") -> bool:
        """`session` no longer waits for this film; the training stops (True) if no other session does."""
        if not KEY.fullmatch(key):
            return False
        try:
            if not self.redis.srem(ASKERS + key, session):
                return False
            admitted, steps, owner = (self.redis.hget(ACTIVE, key) or b"0 0 ").decode().split(" ", 2)
            if owner == session:  # its place is free again (the film goes on for the others)
                self.redis.hset(ACTIVE, key, f"{admitted} {steps} ")
            if self.redis.scard(ASKERS + key):
                return False
            self.redis.set(STOP + key, "1", ex=KEEP_ENDED_S)  # a running training sees it (rq_job.py)
            found = self.jobs.fetch(key)
            if found.get_status() in WAITING_STATES:
                found.cancel()
            return True
        except NoSuchJobError:
            return True
        except UNAVAILABLE:
            return False

    # -- queueing once, across processes -------------------------------------------------------
    def _enqueue_once(self, job: QueuedFilm):
        self.jobs.enqueue_once(job.key, f"{job.settings.steps} {job.session}",
                               lambda admitted: self._check_limits(admitted, job.session), lambda: self._enqueue(job))

    def _enqueue(self, job: QueuedFilm):
        self.redis.delete(STOP + job.key)  # a stop meant for an earlier run of these settings
        self.queue.enqueue(JOB_FUNCTION, job.settings.to_dict(), job.key, job_id=job.key, unique=True,
                           retry=Retry(max=1), job_timeout=jobs.TIMEOUT_S, result_ttl=KEEP_ENDED_S,
                           failure_ttl=KEEP_ENDED_S, meta={"step": 0, "total": job.settings.steps, "losses": []},
                           description=f"film {job.key}")

    def _check_limits(self, admitted: dict, session: str):
        """`admitted`: job id -> "<steps> <session>" for every film counted now."""
        active = {jid: payload.split(" ", 1) for jid, payload in admitted.items()}  # jid -> [steps, session]
        if session and sum(entry[1:] == [session] for entry in active.values()) >= self.max_per_session:
            raise FilmQueueFull(BUSY)
        statuses = {jid: self.jobs.status(jid) for jid in active}
        waiting = [jid for jid, status in statuses.items() if status is None or status in WAITING_STATES]
        if len(waiting) >= self.max_queued:
            raise FilmQueueFull(queue_full(len(waiting), self._seconds_ahead(active, waiting)))

    def _seconds_ahead(self, active: dict, waiting: list) -> float:
        """The training still to do before a new film could start, from the steps and the last measured pace."""
        steps = 0
        for jid, (total, *_) in active.items():
            done = 0
            if jid not in waiting:
                try:
                    done = int(self.jobs.fetch(jid).meta.get("step", 0))
                except NoSuchJobError:
                    continue
            steps += max(0, int(total) - done)
        pace = float(self.redis.get(STEP_S) or jobs.DEFAULT_STEP_S)
        return steps * pace / max(1, Worker.count(queue=self.queue))

    # -- reading ---------------------------------------------------------------------------------
    def read(self, job: QueuedFilm) -> Snapshot:
        """The film's state now: the disk first (a finished film needs no Redis), then RQ."""
        done = Snapshot("done", job.settings.steps, job.settings.steps)
        if self.store.has(job.key):
            return done
        try:
            status, meta = self.jobs.status_and_meta(job.key)
        except UNAVAILABLE:
            return Snapshot("failed", error=UNAVAILABLE_MESSAGE)
        if self.store.has(job.key):  # it finished while we asked
            return done
        progress = {"step": int(meta.get("step", 0)), "total": int(meta.get("total", job.settings.steps)),
                    "losses": tuple(tuple(p) for p in meta.get("losses", ()))}
        if status in WAITING_STATES:
            return Snapshot("queued", **progress)
        if status == "started":
            return Snapshot("running", **progress)
        if status in ("stopped", "canceled"):
            return Snapshot("failed", error=STOPPED, **progress)
        error = meta.get("error") or {None: LOST, "finished": GONE}.get(status, CRASHED)
        return Snapshot("failed", error=error, **progress)

    def queue_length(self) -> int:
        """Films waiting or training in the whole hall (0 while Redis does not answer)."""
        return self.jobs.queue_length()

    def shutdown(self, wait: bool = True):
        self.redis.close()
