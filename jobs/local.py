"""The in-process backend (a laptop: `make run`, `make classroom`): jobs run in `workers` threads of this process.

- Identical requests share one job: thirty students asking for the same lesson start one run and
  all follow it. A result already made (on disk, perhaps before a restart) is a done job at once.
- Quota and order: jobs/policy.py. A request identical to a waiting or running job is never refused.
- A waiting job nobody asks after any more is not run (`abandon_after`, None: never): the page
  showing a job calls `waiting(job)` on every poll; a job not asked after for that long (its tab
  closed, its session ended) is dropped when its turn comes, or as soon as the queue is full.
- A job whose sessions have all gone is cancelled, waiting or running (`alive`: sessions.py).
- `cancel(key, requester)`: the requester no longer waits; the job stops when nobody does (a
  waiting one at once, a running one when its run sees should_stop()).
- Finished jobs are forgotten beyond `remember` (least recently asked for first; their results
  stay on disk); active ones always are kept.
- `shutdown()` stops at once: active jobs fail with the task's sentence, the runners are killed
  (their processes with them), and no job starts afterwards. A queue still running when the
  interpreter exits is shut down then: its threads are daemons, and leave no process behind.
- A run's Failed is its sentence (logged as a warning); anything else is a bug, logged with its
  traceback, and the page reads the task's `crashed` sentence. The queue goes on.
"""

import atexit
import itertools
import logging
import threading
import time
import weakref
from collections import OrderedDict
from dataclasses import replace
from types import MappingProxyType

from jobs import policy
from jobs.job import Failed, Job, Progress, QueueFull, Requester, Runner, Status, Task
from jobs.policy import Limits
from jobs.sessions import GRACE_S, sweep_forever, sweep_local

log = logging.getLogger(__name__)
_LIVE: "weakref.WeakSet[LocalQueue]" = weakref.WeakSet()


@atexit.register
def _shut_down_all():
    for queue in list(_LIVE):
        queue.shutdown(wait=False)


class _Reported(Progress):
    """A run's progress, into its job's status (under the queue's lock: never after the job ended)."""

    def __init__(self, queue: "LocalQueue", job: Job):
        self.queue, self.job = queue, job

    def __call__(self, done: int, total: int, **extra):
        with self.queue._lock:
            if not self.job.finished.is_set():
                self.job._status = Status("running", int(done), int(total), extra=MappingProxyType(extra))


class LocalQueue:
    def __init__(self, task: Task, limits: Limits, workers: int = 1, remember: int = 200,
                 abandon_after: float | None = None, clock=time.monotonic, warm: bool = False,
                 alive=None, grace_s: float = GRACE_S):
        """`warm`: start each thread's runner now (a process that loads torch), not with the first job.
        `alive(session) -> bool`: whether a session is still there (None: never asked, never cancelled)."""
        self.task, self.limits, self.workers = task, limits, workers
        self.alive, self.grace_s = alive, grace_s
        self.remember, self.abandon_after, self.clock = remember, abandon_after, clock
        self.pace = task.default_pace  # seconds per unit of cost, as the last paced run measured
        self.closed = False
        self._jobs: OrderedDict[str, Job] = OrderedDict()  # least recently asked for first
        self._queued: list[Job] = []
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._order = itertools.count()
        self._runners: list[Runner] = []
        self._threads = [threading.Thread(target=self._serve, args=(warm,), name=f"{task.name}-{i}", daemon=True)
                         for i in range(workers)]
        for thread in self._threads:
            thread.start()
        if alive is not None:
            sweep_forever(self)
        _LIVE.add(self)

    # -- what the task's service calls ---------------------------------------------------------------
    def submit(self, request, requester: "Requester | str" = "") -> Job:
        """The job of this request: a waiting, running or finished one if there is one, else a new one.
        Raises QueueFull past the policy's limits, or once the queue is shut down."""
        who, key = Requester.of(requester), self.task.key(request)
        with self._lock:
            if job := self._shared(key, who.session):
                return job
        made = self.task.ready(request)  # the disk, outside the lock
        with self._lock:
            if job := self._shared(key, who.session):
                return job
            if made is not None:
                return self._done_job(key, request, made)
            if self.closed:
                raise QueueFull(self.task.words.stopping)
            self._admit(who)
            job = self.task.job(key, request, who)
            job.asked, job.order = self.clock(), next(self._order)
            job._status = Status(total=self.task.total(request))
            self._remember(job)
            self._queued.append(job)
            self._wake.notify()
        return job

    def job(self, key: str) -> Job | None:
        """The job of this key: one this queue knows, or a done one if the task finds its result by the key."""
        with self._lock:
            if (job := self._jobs.get(key)) is not None:
                return job
        request = self.task.from_key(key)
        if request is None:
            return None
        made = self.task.done(request)
        with self._lock:
            return self._jobs.get(key) or (self._done_job(key, request, made) if made is not None else None)

    def cancel(self, key: str, requester: "Requester | str" = "") -> bool:
        """`requester` no longer waits for this job; it stops (True) if nobody else does."""
        session = Requester.of(requester).session
        with self._lock:
            job = self._jobs.get(key)
            if job is None or not job.active or session not in job.requesters:
                return False
            job.requesters.discard(session)
            if job.requester == session:
                job.requester = job.device = ""  # its place is free again, whoever else waits
            if job.requesters:
                return False
            self._stop(job, self.task.words.stopped)
            return True

    def waiting(self, job: Job, requester: "Requester | str | None" = None) -> int:
        """How many jobs come before `job` (waiting or running, in the order they run); the page showing the
        job calls it on every poll, and that is what keeps a waiting job wanted. `requester`: the session
        of that page, which waits for the job from now on (a reload's new tab, another student's)."""
        with self._lock:
            job.asked = self.clock()
            if requester is not None and job.active:
                job.requesters.add(Requester.of(requester).session)
            if job.state != "queued":
                return 0
            return policy.ahead(job, [other for other in self._jobs.values() if other.active])

    def queue_length(self) -> int:
        with self._lock:
            return sum(job.active for job in self._jobs.values())

    def shutdown(self, wait: bool = True):
        """Stop: active jobs fail with a sentence, runners are killed, nothing starts afterwards.
        `wait`: until the threads have ended."""
        with self._lock:
            self.closed = True
            for job in list(self._jobs.values()):
                self._end(job, "failed", self.task.words.stopping)
            self._wake.notify_all()
            runners = list(self._runners)
        _LIVE.discard(self)
        for runner in runners:
            runner.kill()
        if wait:
            for thread in self._threads:
                if thread is not threading.current_thread():
                    thread.join()

    # -- bookkeeping (call with the lock) -------------------------------------------------------------
    def _shared(self, key: str, requester: str) -> Job | None:
        job = self._jobs.get(key)
        if job is None or not (job.active or (job.state == "done" and self.task.done(job.request) is not None)):
            return None
        if job.active:
            job.requesters.add(requester)
            job.asked = self.clock()
        self._jobs.move_to_end(key)
        return job

    def _done_job(self, key: str, request, result) -> Job:
        job = self.task.job(key, request, "")
        total = self.task.total(request)
        job._status, job.result = Status("done", total, total), result
        job.finished.set()
        return self._remember(job)

    def _remember(self, job: Job) -> Job:
        self._jobs[job.key] = job
        self._jobs.move_to_end(job.key)
        self._forget_old()
        return job

    def _forget_old(self):
        finished = [key for key, job in self._jobs.items() if not job.active]
        for key in finished[: max(0, len(finished) - self.remember)]:
            del self._jobs[key]

    def _entries(self) -> list[policy.Entry]:
        active = sorted((job for job in self._jobs.values() if job.active), key=lambda job: job.order)
        return [policy.Entry(job.requester, job.state == "running",
                             policy.left(self.task.cost(job.request), job.done, job.total), job.device, job.teacher)
                for job in active]

    def _stop(self, job: Job, sentence: str):
        if job.state == "queued":
            self._end(job, "failed", sentence)
        else:
            job.stop = True  # its run sees should_stop()

    def _admit(self, requester: Requester):
        entries = self._entries()
        if self.abandon_after is not None and policy.full(entries, self.limits):
            for job in list(self._jobs.values()):  # places held by pages that were closed are given back first
                if self._abandoned(job):
                    self._end(job, "failed", self.task.words.abandoned)
            entries = self._entries()
        policy.admit(entries, requester, self.limits, self.task.words, self.pace, self.workers)

    def _abandoned(self, job: Job) -> bool:
        return (self.abandon_after is not None and job.state == "queued"
                and self.clock() - job.asked > self.abandon_after)

    def _end(self, job: Job, state: str, error: str = "", result=None, **extra) -> bool:
        """The job's one end (a second, e.g. a run ending after a shutdown, changes nothing)."""
        if not job.active:
            return False
        if job in self._queued:
            self._queued.remove(job)
        last = job._status
        done = last.total if state == "done" else last.done
        job._status = replace(last, state=state, done=done, error=error,
                              extra=MappingProxyType({**last.extra, **extra}))
        job.result = result
        job.finished.set()
        return True

    def sweep(self):
        """Stop the active jobs none of whose sessions has been alive for `grace_s` (sessions.py)."""
        sweep_local(self)

    # -- the worker threads ---------------------------------------------------------------------------
    def _serve(self, warm: bool):
        runner = self.task.runner()
        with self._lock:
            if self.closed:
                return
            self._runners.append(runner)
        if warm:
            try:
                runner.warm()
            except OSError:
                log.exception("Could not start a %s runner (its first job tries again)", self.task.name)
        while (job := self._next()) is not None:
            self._run(runner, job)
        runner.close()

    def _next(self) -> Job | None:
        with self._wake:
            while True:
                while not self._queued and not self.closed:
                    self._wake.wait()
                if self.closed:
                    return None
                job = policy.next_job(self._queued, (j for j in self._jobs.values() if j.state == "running"))
                if self._abandoned(job):
                    self._end(job, "failed", self.task.words.abandoned)
                    continue
                self._queued.remove(job)
                job._status = replace(job._status, state="running")
                return job

    def _run(self, runner: Runner, job: Job):
        progress, started = _Reported(self, job), time.monotonic()

        def should_stop() -> bool:
            return job.stop or self.closed

        try:
            result = runner.run(job, progress, should_stop)
        except Failed as failed:
            if not should_stop():
                log.warning("%s %s failed: %s", self.task.name, job.key, failed.sentence)
            with self._lock:
                self._end(job, "failed", failed.sentence, **({"log": failed.log} if failed.log else {}))
        except Exception:  # a bug: its traceback in the log; the job still ends and the queue goes on
            if not should_stop():
                log.exception("%s %s crashed", self.task.name, job.key)
            with self._lock:
                self._end(job, "failed", self.task.words.stopped if should_stop() else self.task.words.crashed)
        else:
            with self._lock:
                ended = self._end(job, "done", result=result)
            cost = self.task.cost(job.request)
            if ended and self.task.paced and cost:
                self.pace = (progress.seconds or time.monotonic() - started) / cost
        finally:
            with self._lock:
                self._forget_old()
