"""Jobs that every lab process of a hall shares on its Redis, through RQ: what the render queue
(animations/rq_service.py) and the film queue (classroom/films/rq_service.py) both do.

- identical requests share one job: its id is the request's key, enqueued with `unique=True`, so
  two processes asking at once make one job and the second shares it. A job that ended is deleted,
  only if it is still ended, and enqueued afresh;
- the limits count admitted jobs in one Redis hash (job id -> "<admitted at> <payload>"), changed
  under WATCH, so they hold across processes. An id admitted but not yet in RQ is being enqueued by
  another process: it counts for JUST_ADMITTED_S;
- a page reads a job's fields several times per rerun: one read of Redis serves them for REFRESH_S.

Redis errors (classroom.redis_client.UNAVAILABLE) pass through: each service says them in its words.
"""

import time
from collections.abc import Callable

from redis import WatchError
from rq import Queue
from rq.exceptions import DuplicateJobError, NoSuchJobError
from rq.job import Job as RQJob
from rq.serializers import JSONSerializer

from classroom.redis_client import UNAVAILABLE

ACTIVE_STATES = {"queued", "started", "deferred", "scheduled"}
WAITING_STATES = {"queued", "deferred", "scheduled"}
KEEP_ENDED_S = 3600  # an ended job (its error, its progress) is kept an hour; what it made lives on disk
JUST_ADMITTED_S = 30
REFRESH_S = 0.25


class Followed:
    """A job as a page follows it: `service.read(self)` gives its state now, read at most every
    REFRESH_S; the subclass (a dataclass with a `service` field) names the fields it shows."""

    def _now(self):
        if time.monotonic() - self.__dict__.get("_read_at", float("-inf")) >= REFRESH_S:
            self._snap, self._read_at = self.service.read(self), time.monotonic()
        return self._snap

    state = property(lambda self: self._now().state)
    total = property(lambda self: self._now().total)
    error = property(lambda self: self._now().error)

    @property
    def active(self) -> bool:
        return self.state in ("queued", "running")

    def wait(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.active:
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(REFRESH_S)
        return True


class SharedJobs:
    """One queue's jobs and their count against the limits (the hash `active`). `companions(jid)`: the
    other keys that go with a job and are deleted with its ended record."""

    def __init__(self, redis, queue_name: str, active: str, companions: Callable[[str], tuple] = lambda jid: ()):
        self.redis, self.active, self._companions = redis, active, companions
        self.queue = Queue(queue_name, connection=redis, serializer=JSONSerializer)

    def status(self, jid: str) -> str | None:
        found = self.redis.hget(RQJob.key_for(jid), "status")
        return None if found is None else found.decode()

    def enqueue_once(self, jid: str, payload: str, check: Callable[[dict[str, str]], None],
                     enqueue: Callable[[], object]):
        """Share the job `jid` if it is waiting or running; else admit it (`check` sees every admitted
        job's payload and raises past the limits) and `enqueue` it, once across processes."""
        for _ in range(3):  # each turn ends, or another process changed the job meanwhile
            status = self.status(jid)
            if status in ACTIVE_STATES:
                return  # waiting or running: share it
            if status is not None:
                self._delete_if_ended(jid)
            self._admit(jid, payload, check)
            try:
                return enqueue()
            except DuplicateJobError:
                continue  # another process enqueued it first: look again (and share it)

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
                pipe.delete(key, *self._companions(jid))
                pipe.hdel(self.active, jid)  # no longer counted against the session that asked for it
                pipe.execute()
            except WatchError:
                pass  # changed under us: the caller looks again

    def _admit(self, jid: str, payload: str, check: Callable[[dict[str, str]], None]):
        """Count this job against the limits, atomically across processes (`check` raises past them)."""
        self._forget_ended()
        with self.redis.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(self.active)
                    admitted = {k.decode(): v.decode().partition(" ")[2] for k, v in pipe.hgetall(self.active).items()}
                    if jid in admitted:
                        return
                    check(admitted)
                    pipe.multi()
                    pipe.hset(self.active, jid, f"{time.time():.0f} {payload}")
                    pipe.execute()
                    return
                except WatchError:
                    continue  # another process admitted or forgot one meanwhile: count again

    def _forget_ended(self):
        """Drop from the count the jobs that ended (or vanished, e.g. with a Redis restart)."""
        entries = self.redis.hgetall(self.active)
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
            self.redis.hdel(self.active, *ended)

    def fetch(self, jid: str) -> RQJob:
        """The job (NoSuchJobError if RQ has none; Redis errors pass through)."""
        return RQJob.fetch(jid, connection=self.redis, serializer=JSONSerializer)

    def status_and_meta(self, jid: str) -> tuple[str | None, dict]:
        """The job's RQ status (None if RQ has none) and its meta; Redis errors pass through."""
        try:
            found = self.fetch(jid)
        except NoSuchJobError:
            return None, {}
        return getattr(found.get_status(refresh=False), "value", None), found.meta or {}

    def queue_length(self) -> int:
        """Jobs waiting or running in the whole hall (0 while Redis does not answer)."""
        try:
            return self.queue.count + self.queue.started_job_registry.get_job_count(cleanup=False)
        except UNAVAILABLE:
            return 0
