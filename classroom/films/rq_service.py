"""The film service on the hall's Redis: RQ jobs, trained by the hall's workers (`python -m animations.rq_worker`).

The same calls as the in-process FilmService (service.py), across every lab process:

- identical settings share one job: its id is `settings.key()`, enqueued with `unique=True`,
  so two processes asking at once make one job. A job that ended without a film (it failed,
  was stopped, or its film was evicted) is deleted, only if it is still ended, and enqueued afresh;
- the limits count in Redis (one hash, job id -> "<admitted at> <steps> <session>", changed
  under WATCH): one training per session, at most `max_queued` films waiting in the hall;
- which sessions wait for a film is a set per job, so `cancel` stops a training only when no
  session waits for it any more; the worker's should_stop reads a stop key (rq_job.py);
- progress is read from job.meta (`step`, `total`, `losses`), which rq_job.py writes;
- films land in the media folder every process shares (store.py); a finished film is found on
  disk without asking Redis, so films already trained keep playing while Redis restarts.

Redis down, restarting or hung: submit raises FilmQueueUnavailable (a FilmQueueFull) at once,
or within about 4 s if Redis hangs; a job in flight reads as failed with a plain sentence;
queue_length() reads 0; no redis error reaches a page.
"""

import time
from dataclasses import dataclass, field

from redis import WatchError
from rq import Queue, Retry, Worker
from rq.exceptions import DuplicateJobError, NoSuchJobError
from rq.job import Job as RQJob
from rq.serializers import JSONSerializer

from classroom.films import jobs
from classroom.films.jobs import BUSY, STOPPED, FilmQueueFull, FilmQueueUnavailable, keep_point, queue_full
from classroom.films.store import DEFAULT_CAP_BYTES, KEY, FilmStore
from classroom.redis_client import UNAVAILABLE, connect
from core.config import ConfigError
from core.film import Film, LearnSettings

QUEUE = "attention-lab-films"
JOB_FUNCTION = "classroom.films.rq_job.train_job"  # by name: the lab never imports the worker's side
ACTIVE = "attention-lab:films:active"  # hash: job id -> "<admitted at> <steps> <session>"
ASKERS = "attention-lab:films:askers:"  # + job id: the sessions waiting for that film (a set)
STOP = "attention-lab:films:stop:"  # + job id: present while that training should stop
STEP_S = "attention-lab:films:step-s"  # seconds per training step, as a worker last measured
ACTIVE_STATES = {"queued", "started", "deferred", "scheduled"}
WAITING_STATES = {"queued", "deferred", "scheduled"}
KEEP_ENDED_S = 3600  # an ended job (its error, its progress) is kept an hour; its film lives on disk
JUST_ADMITTED_S = 30  # an admitted id not yet in RQ is being enqueued by another process: keep counting it
REFRESH_S = 0.25  # a page reads a job's fields several times per rerun: one Redis read serves them all
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
class QueuedFilm:
    """A film as a page follows it (the fields of service.FilmJob), read from the disk and RQ as it goes."""

    key: str
    settings: LearnSettings
    session: str
    service: "RQFilmService" = field(repr=False)
    _snap: Snapshot = field(default_factory=Snapshot, repr=False)
    _read_at: float = field(default=float("-inf"), repr=False)

    def _now(self) -> Snapshot:
        if time.monotonic() - self._read_at >= REFRESH_S:
            self._snap, self._read_at = self.service.read(self), time.monotonic()
        return self._snap

    state = property(lambda self: self._now().state)
    step = property(lambda self: self._now().step)
    total = property(lambda self: self._now().total)
    error = property(lambda self: self._now().error)

    @property
    def losses(self) -> list[tuple[int, float]]:
        """The live curve from job.meta; once done, the film's own (thinned alike)."""
        if self._now().state != "done" or (film := self.film()) is None:
            return [tuple(point) for point in self._now().losses]
        points = []
        for step, loss in enumerate(film.loss.tolist(), 1):
            points += [(step, loss)] if keep_point(points, step, len(film.loss)) else []
        return points

    @property
    def active(self) -> bool:
        return self.state in ("queued", "running")

    def film(self) -> Film | None:
        return self.service.store.load(self.settings) if self.state == "done" else None

    def wait(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.active:
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(REFRESH_S)
        return True


class RQFilmService:
    def __init__(self, redis_url: str, media_dir="media", cap_bytes: int = DEFAULT_CAP_BYTES,
                 max_per_session: int = 1, max_queued: int = 4):
        self.redis = connect(redis_url)  # bytes, as RQ wants; connects on first use
        self.queue = Queue(QUEUE, connection=self.redis, serializer=JSONSerializer)
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
            found = RQJob.fetch(key, connection=self.redis, serializer=JSONSerializer)
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
            found = RQJob.fetch(key, connection=self.redis, serializer=JSONSerializer)
            if found.get_status() in WAITING_STATES:
                found.cancel()
            return True
        except NoSuchJobError:
            return True
        except UNAVAILABLE:
            return False

    # -- queueing once, across processes -------------------------------------------------------
    def _enqueue_once(self, job: QueuedFilm):
        for _ in range(3):  # each turn ends, or another process changed the job meanwhile
            status = self.redis.hget(RQJob.key_for(job.key), "status")
            if status is not None and status.decode() in ACTIVE_STATES:
                return  # waiting or training: share it
            if status is not None:
                self._delete_if_ended(job.key)
            self._admit(job.key, job.settings.steps, job.session)
            try:
                return self._enqueue(job)
            except DuplicateJobError:
                continue  # another process enqueued it first: look again (and share it)

    def _enqueue(self, job: QueuedFilm):
        self.redis.delete(STOP + job.key)  # a stop meant for an earlier run of these settings
        self.queue.enqueue(JOB_FUNCTION, job.settings.to_dict(), job.key, job_id=job.key, unique=True,
                           retry=Retry(max=1), job_timeout=jobs.TIMEOUT_S, result_ttl=KEEP_ENDED_S,
                           failure_ttl=KEEP_ENDED_S, meta={"step": 0, "total": job.settings.steps, "losses": []},
                           description=f"film {job.key}")

    def _delete_if_ended(self, jid: str):
        """Delete an ended job's record so that its id can be enqueued again; not if a process revived it."""
        key = RQJob.key_for(jid)
        with self.redis.pipeline() as pipe:
            try:
                pipe.watch(key)
                status = pipe.hget(key, "status")
                if status is None or status.decode() in ACTIVE_STATES:
                    return
                pipe.multi()
                pipe.delete(key, ASKERS + jid)
                pipe.hdel(ACTIVE, jid)
                pipe.execute()
            except WatchError:
                pass  # changed under us: the caller looks again

    def _admit(self, jid: str, steps: int, session: str):
        """Count this film against the limits, atomically across processes; FilmQueueFull past them."""
        self._forget_ended()
        with self.redis.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(ACTIVE)
                    active = {k.decode(): v.decode().split(" ", 2) for k, v in pipe.hgetall(ACTIVE).items()}
                    if jid in active:
                        return
                    self._check_limits(active, session)
                    pipe.multi()
                    pipe.hset(ACTIVE, jid, f"{time.time():.0f} {steps} {session}")
                    pipe.execute()
                    return
                except WatchError:
                    continue  # another process admitted or forgot one meanwhile: count again

    def _check_limits(self, active: dict, session: str):
        if session and sum(entry[2:] == [session] for entry in active.values()) >= self.max_per_session:
            raise FilmQueueFull(BUSY)
        statuses = {jid: self.redis.hget(RQJob.key_for(jid), "status") for jid in active}
        waiting = [jid for jid, status in statuses.items() if status is None or status.decode() in WAITING_STATES]
        if len(waiting) >= self.max_queued:
            raise FilmQueueFull(queue_full(len(waiting), self._seconds_ahead(active, waiting)))

    def _seconds_ahead(self, active: dict, waiting: list) -> float:
        """The training still to do before a new film could start, from the steps and the last measured pace."""
        steps = 0
        for jid, (_, total, *_) in active.items():
            done = 0
            if jid not in waiting:
                try:
                    done = int(RQJob.fetch(jid, connection=self.redis, serializer=JSONSerializer).meta.get("step", 0))
                except NoSuchJobError:
                    continue
            steps += max(0, int(total) - done)
        pace = float(self.redis.get(STEP_S) or jobs.DEFAULT_STEP_S)
        return steps * pace / max(1, Worker.count(queue=self.queue))

    def _forget_ended(self):
        """Drop from the count the films that ended (or vanished, e.g. with a Redis restart)."""
        entries = self.redis.hgetall(ACTIVE)
        if not entries:
            return
        with self.redis.pipeline(transaction=False) as pipe:
            for jid in entries:
                pipe.hget(RQJob.key_for(jid.decode()), "status")
            statuses = pipe.execute()
        ended = [jid for (jid, value), status in zip(entries.items(), statuses, strict=True)
                 if (status.decode() not in ACTIVE_STATES if status is not None
                     else time.time() - float(value.split()[0]) > JUST_ADMITTED_S)]
        if ended:
            self.redis.hdel(ACTIVE, *ended)

    # -- reading ---------------------------------------------------------------------------------
    def read(self, job: QueuedFilm) -> Snapshot:
        """The film's state now: the disk first (a finished film needs no Redis), then RQ."""
        done = Snapshot("done", job.settings.steps, job.settings.steps)
        if self.store.has(job.key):
            return done
        try:
            found = RQJob.fetch(job.key, connection=self.redis, serializer=JSONSerializer)
            status, meta = getattr(found.get_status(refresh=False), "value", None), found.meta or {}
        except NoSuchJobError:
            status, meta = None, {}
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
        try:
            return self.queue.count + self.queue.started_job_registry.get_job_count(cleanup=False)
        except UNAVAILABLE:
            return 0

    def shutdown(self, wait: bool = True):
        self.redis.close()
