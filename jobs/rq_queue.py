"""The Redis backend (a hall: `make hall`, deploy/): RQ on the hall's Redis, run by `python -m jobs.worker`.

The same calls as the in-process queue (local.py), across every lab process of a hall:

- identical requests share one job: its id is the request's key, enqueued with `unique=True`, so
  two processes asking at once make one job and the second shares it. A job that ended is
  deleted, only if it is still ended, and enqueued afresh;
- the policy's quotas (policy.py: per session, per device, the queue) count the admitted jobs in
  one Redis hash (job id -> "<admitted at> <cost> <T|-> <device> <session>"), changed under WATCH,
  so they hold across processes. An id admitted but not yet in RQ is being enqueued by another
  process: it counts for JUST_ADMITTED_S. The teacher's jobs go to the front of RQ's queue; past
  that RQ runs them in order (the in-process queue also puts a device's second job behind
  everyone's first; here the device quota alone bounds it);
- a job whose sessions have all gone is cancelled, in the whole hall (`alive`: sessions.py, Marks);
- who waits for a job is a set per job, so `cancel` stops a job only when nobody waits for it any
  more: a waiting one is cancelled in RQ, a running one sees its stop key (worker.py);
- progress is read from the RQ job's meta, which the worker writes; a result already made is
  found by the task (on disk) without asking Redis, so results keep coming while Redis restarts;
- a job whose worker dies is run again by RQ (`Retry`, the task's `retries`; worker.py: how soon).

Redis down, restarting or hung: submit raises QueueUnavailable (a QueueFull, which pages show as
they show a full queue) at once, or within about 4 s if Redis hangs; a job in flight reads as
failed with the task's sentence; queue_length() reads 0; no redis error reaches a page.
"""

import logging
import time
from types import MappingProxyType

from redis import WatchError
from rq import Queue, Retry, Worker
from rq.exceptions import DuplicateJobError, NoSuchJobError
from rq.job import Job as RQJob
from rq.serializers import JSONSerializer

from jobs import policy
from jobs.job import Job, QueueFull, QueueUnavailable, Requester, Status, Task
from jobs.policy import Limits
from jobs.redis_client import UNAVAILABLE, connect
from jobs.rq_keys import Keys, job_id
from jobs.rq_keys import admitted as _admitted
from jobs.rq_keys import value as _value
from jobs.sessions import GRACE_S, Marks, sweep_forever

log = logging.getLogger(__name__)
ACTIVE_STATES = {"queued", "started", "deferred", "scheduled"}
WAITING_STATES = {"queued", "deferred", "scheduled"}
KEEP_ENDED_S = 3600  # an ended job (its error, its progress) is kept an hour; what it made lives on disk
JUST_ADMITTED_S = 30
PERFORM = "jobs.worker.perform"  # by name: a lab never imports the worker
PROGRESS = ("done", "total", "error")  # the meta fields every job has; the rest is the task's own


class RQQueue:
    def __init__(self, redis_url: str, task: Task, limits: Limits, alive=None, grace_s: float = GRACE_S):
        """`alive(session) -> bool`: whether a session of this process is still there (None: never cancel)."""
        self.redis = connect(redis_url)  # bytes, as RQ wants; connects on first use
        self.task, self.limits, self.keys = task, limits, Keys.of(task.name)
        self.queue = Queue(self.keys.queue, connection=self.redis, serializer=JSONSerializer)
        self.closed = False
        self.marks = Marks(self.redis, alive, grace_s)
        if alive is not None:
            sweep_forever(self, UNAVAILABLE)

    # -- what the task's service calls ---------------------------------------------------------------
    def submit(self, request, requester: "Requester | str" = "") -> Job:
        """The job of this request: the waiting, running or finished one if any process made it, else a new one.
        Raises QueueFull past the policy's limits, QueueUnavailable when Redis does not answer."""
        who = Requester.of(requester)
        job = self._follow(self.task.key(request), request, who)
        if self.task.ready(request) is not None:
            return job  # made before, by any process: no queue, no Redis
        jid = job_id(job.key)
        try:
            self.marks.mark(who.session)  # before it asks: another process's sweep must not find it gone
            self._enqueue_once(jid, job, who)
            self.redis.sadd(self.keys.askers + jid, who.session)
            self.redis.expire(self.keys.askers + jid, KEEP_ENDED_S)
        except UNAVAILABLE:
            raise QueueUnavailable(self.task.words.unavailable) from None
        return job

    def job(self, key: str) -> Job | None:
        """The job of this key, if the task finds its result or RQ knows it (None too while Redis does not answer)."""
        if (request := self.task.from_key(key)) is not None:
            return self._follow(key, request, "")
        try:
            return self._follow(key, self.task.decode(self.fetch(key).args[1]), "")
        except (NoSuchJobError, IndexError, KeyError, TypeError, ValueError, *UNAVAILABLE):
            return None

    def cancel(self, key: str, requester: "Requester | str" = "") -> bool:
        """`requester` no longer waits for this job; it stops (True) if nobody else does."""
        session, jid = Requester.of(requester).session, job_id(key)
        try:
            if not self.redis.srem(self.keys.askers + jid, session):
                return False
            value = self.redis.hget(self.keys.active, jid)
            if value is not None and _admitted(value)[2].session == session:  # its place is free again
                admitted, cost, who = _admitted(value)
                self.redis.hset(self.keys.active, jid, _value(admitted, cost, Requester(teacher=who.teacher)))
            if self.redis.scard(self.keys.askers + jid):
                return False
            return self._stop(jid)
        except UNAVAILABLE:
            return False

    def _stop(self, jid: str) -> bool:
        self.redis.set(self.keys.stop + jid, "1", ex=KEEP_ENDED_S)  # a running job sees it (worker.py)
        try:
            found = RQJob.fetch(jid, connection=self.redis, serializer=JSONSerializer)
        except NoSuchJobError:
            return True
        if found.get_status() in WAITING_STATES:
            found.cancel()
        return True

    def waiting(self, job: Job, requester: "Requester | str | None" = None) -> int:
        """Jobs before this one, at most: the hall's whole queue less this job while it waits. `requester`:
        the session of the page that polls, which waits for the job from now on (as in local.py)."""
        if requester is not None and job.active:
            session = Requester.of(requester).session
            try:
                self.marks.mark(session)
                self.redis.sadd(self.keys.askers + job_id(job.key), session)
            except UNAVAILABLE:
                pass
        return max(0, self.queue_length() - 1) if job.state == "queued" else 0

    def queue_length(self) -> int:
        """Jobs waiting or running in the whole hall (0 while Redis does not answer)."""
        try:
            return self.queue.count + self.queue.started_job_registry.get_job_count(cleanup=False)
        except UNAVAILABLE:
            return 0

    def workers(self) -> int:
        """Workers serving this queue now."""
        return Worker.count(queue=self.queue)

    def fetch(self, key: str) -> RQJob:
        """The RQ job of this key (NoSuchJobError if RQ has none; Redis errors pass through)."""
        return RQJob.fetch(job_id(key), connection=self.redis, serializer=JSONSerializer)

    def shutdown(self, wait: bool = True):
        self.closed = True
        self.redis.close()

    # -- reading ---------------------------------------------------------------------------------------
    def _follow(self, key: str, request, requester: str) -> Job:
        job = self.task.job(key, request, requester)
        job.read = self._read
        return job

    def _read(self, job: Job) -> Status:
        """The job's state now: the task's result first (a finished job needs no Redis), then RQ."""
        total, words = self.task.total(job.request), self.task.words
        if (result := self.task.done(job.request)) is not None:
            job.result = result
            return Status("done", total, total)
        try:
            status, meta = self._status_and_meta(job_id(job.key))
        except UNAVAILABLE:
            return Status("failed", error=words.unavailable)
        if (result := self.task.done(job.request)) is not None:  # it finished while we asked
            job.result = result
            return Status("done", total, total)
        now = {"done": int(meta.get("done", 0)), "total": int(meta.get("total", total)),
               "extra": MappingProxyType({k: v for k, v in meta.items() if k not in PROGRESS})}
        if status in WAITING_STATES:
            return Status("queued", **now)
        if status == "started":
            return Status("running", **now)
        if status in ("stopped", "canceled"):
            return Status("failed", error=words.stopped, **now)
        error = meta.get("error") or {None: words.lost, "finished": words.gone}.get(status, words.died)
        return Status("failed", error=error, **now)

    def _status_and_meta(self, jid: str) -> tuple[str | None, dict]:
        try:
            found = RQJob.fetch(jid, connection=self.redis, serializer=JSONSerializer)
        except NoSuchJobError:
            return None, {}
        return getattr(found.get_status(refresh=False), "value", None), found.meta or {}

    def _status(self, jid: str) -> str | None:
        found = self.redis.hget(RQJob.key_for(jid), "status")
        return None if found is None else found.decode()

    # -- queueing once, across processes -------------------------------------------------------------
    def _enqueue_once(self, jid: str, job: Job, who: Requester):
        """Share the job `jid` if it is waiting or running; else admit it and enqueue it, once across processes."""
        for _ in range(3):  # each turn ends, or another process changed the job meanwhile
            status = self._status(jid)
            if status in ACTIVE_STATES:
                return  # waiting or running: share it
            if status is not None:
                self._delete_if_ended(jid)
            self._admit(jid, job, who)
            try:
                return self._enqueue(jid, job, who.teacher)
            except DuplicateJobError:
                continue  # another process enqueued it first: look again (and share it)

    def _enqueue(self, jid: str, job: Job, first: bool):
        task = self.task
        self.redis.delete(self.keys.stop + jid)  # a stop meant for an earlier run of this key
        self.queue.enqueue(PERFORM, task.name, task.encode(job.request), job.key, job_id=jid, unique=True,
                           at_front=first, job_timeout=task.timeout_s,
                           retry=Retry(max=task.retries, enqueue_at_front=True) if task.retries else None,
                           result_ttl=KEEP_ENDED_S, failure_ttl=KEEP_ENDED_S,
                           meta={"done": 0, "total": task.total(job.request)}, description=f"{task.name} {job.key}")

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
                pipe.delete(key, self.keys.askers + jid)
                pipe.hdel(self.keys.active, jid)  # no longer counted against the requester that asked for it
                pipe.execute()
            except WatchError:
                pass  # changed under us: the caller looks again

    def _admit(self, jid: str, job: Job, who: Requester):
        """Count this job against the policy's limits, atomically across processes (QueueFull past them)."""
        statuses = self._forget_ended()
        cost = self.task.cost(job.request)
        with self.redis.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(self.keys.active)
                    admitted = {k.decode(): _admitted(v) for k, v in pipe.hgetall(self.keys.active).items()}
                    if jid in admitted:
                        return
                    self._check(admitted, statuses, who)
                    pipe.multi()
                    pipe.hset(self.keys.active, jid, _value(time.time(), cost, who))
                    pipe.execute()
                    return
                except WatchError:
                    continue  # another process admitted or forgot one meanwhile: count again

    def _check(self, admitted: dict, statuses: dict, who: Requester):
        """The policy on the jobs admitted in the whole hall (in the order they were admitted); the running
        ones' progress, the pace and the workers are read only when a refusal says the wait."""
        order = sorted(admitted, key=lambda jid: admitted[jid][0])
        entries = [policy.Entry(admitted[jid][2].session, statuses.get(jid) == "started", admitted[jid][1],
                                admitted[jid][2].device, admitted[jid][2].teacher) for jid in order]
        try:
            policy.admit(entries, who, self.limits, self.task.words, self.task.default_pace, 1)
        except QueueFull:
            entries = [policy.Entry(e.requester, e.running, self._left(jid, e.left) if e.running else e.left,
                                    e.device, e.teacher) for jid, e in zip(order, entries, strict=True)]
            pace = float(self.redis.get(self.keys.pace) or self.task.default_pace) if self.task.paced else 1.0
            policy.admit(entries, who, self.limits, self.task.words, pace, self.workers())

    def _left(self, jid: str, cost: float) -> float:
        _, meta = self._status_and_meta(jid)
        return policy.left(cost, int(meta.get("done", 0)), int(meta.get("total", 0)))

    # -- jobs whose sessions have gone ------------------------------------------------------------------
    def sweep(self):
        """Renew the marks of this process's live sessions; cancel the hall's jobs whose sessions have none."""
        self.marks.renew()
        for jid in self.redis.hkeys(self.keys.active):
            jid = jid.decode()
            sessions = {s.decode() for s in self.redis.smembers(self.keys.askers + jid)}
            if self._status(jid) in ACTIVE_STATES and self.marks.gone(sessions):
                log.info("%s %s: its sessions have gone; stopped", self.task.name, jid)
                self._stop(jid)

    def _forget_ended(self) -> dict[str, str | None]:
        """Drop from the count the jobs that ended (or vanished, e.g. with a Redis restart); returns the RQ
        status of the others."""
        entries = self.redis.hgetall(self.keys.active)
        if not entries:
            return {}
        with self.redis.pipeline(transaction=False) as pipe:
            for jid in entries:
                pipe.hget(RQJob.key_for(jid.decode()), "status")
            found = pipe.execute()
        statuses, ended = {}, []
        for (jid, value), status in zip(entries.items(), found, strict=True):
            status = None if status is None else status.decode()
            if (status not in ACTIVE_STATES if status is not None
                    else time.time() - _admitted(value)[0] > JUST_ADMITTED_S):
                ended.append(jid)
            else:
                statuses[jid.decode()] = status
        if ended:
            self.redis.hdel(self.keys.active, *ended)
        return statuses
