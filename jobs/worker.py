"""`python -m jobs.worker TASK [TASK ...]`: a worker of the hall's job queues (RQ on the hall's Redis).

Each TASK is the `module:function` that makes a task from the environment (e.g.
`classroom.films.task:worker_task`); the worker makes them once, at start (before any fork), and
takes one job at a time from their queues, in the order given: `make hall` names the films
before the renders (a film is seconds of work, a render minutes). `make hall` starts
`--render-workers` of them and restarts one that dies; deploy/'s `render` service runs them in
containers. It needs ATTENTION_LAB_REDIS_URL.

A job runs `perform`: the task's run in the work horse RQ forks for it, its progress written
into the job's meta (at most every META_EVERY_S, and at the end), should_stop() reading the
job's stop key (at most every STOP_EVERY_S), a failure told in the meta ('error', one sentence,
and 'log') and returned as '' (running it again would fail again: no retry), a bug's traceback
in this worker's log.

Worker settings, and why:
- a job whose worker dies (killed, out of memory, its machine gone) is re-queued, at the front, once
  its heartbeat lapses and a worker looks (the lab enqueues it with `Retry(enqueue_at_front=True)`).
  RQ's defaults take up to 10 minutes for that; here the worker beats every JOB_MONITORING_S (5 s), a
  job counts as abandoned HEARTBEAT_MARGIN_S (15 s; RQ's own margin is 60 s) after the last beat,
  and every worker looks every MAINTENANCE_S (5 s), idle or busy: RQ's own maintenance runs only
  between jobs, so a killed worker's successor that took the next job (a film, a render: minutes)
  left the dead worker's job "running" until that job ended. `_requeue_abandoned` does RQ's
  cleanup of the started-job registries while a job runs too, one worker at a time (a lock that
  expires, not RQ's 15-minute one, which a worker killed while holding it would keep). A killed
  worker's job is queued again within RECOVERY_S (tests/jobs/test_rq_queue.py measures it);
- the work horse dies with its worker (PR_SET_PDEATHSIG), so no job outlives the hall or runs
  twice at once;
- when Redis restarts or does not answer, the worker lets a job in progress finish (what it makes
  still lands on disk), waits for Redis and starts again; it never exits for that.
"""

import ctypes
import logging
import os
import signal
import socket
import sys
import time

from rq import Queue, Worker, get_current_job
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer
from rq.timeouts import JobTimeoutException

from jobs.job import Failed, Progress, Task, resolve
from jobs.redis_client import REDIS_URL_ENV, UNAVAILABLE, connect
from jobs.rq_keys import Keys

log = logging.getLogger("jobs.worker")

WORKER_TTL_S = 20
JOB_MONITORING_S = 5
MAINTENANCE_S = 5
HEARTBEAT_MARGIN_S = 15
RECOVERY_S = 30  # what docs/hall.md states: a killed worker's job runs again within this
META_EVERY_S = 0.25
STOP_EVERY_S = 0.5
TASKS: dict[str, Task] = {}  # name -> task, made at start; the work horses inherit them


class _Meta(Progress):
    """A run's progress into job.meta, throttled (pages poll it); best effort: a Redis restart must not fail the run."""

    def __init__(self, job):
        self.job, self.saved_at = job, float("-inf")

    def __call__(self, done: int, total: int, **extra):
        self.job.meta.update(done=int(done), total=int(total), **extra)
        if done >= total or time.monotonic() - self.saved_at >= META_EVERY_S:
            self.save()

    def save(self):
        try:
            self.job.save_meta()
            self.saved_at = time.monotonic()
        except UNAVAILABLE:
            pass

    def fail(self, error: str, details: str = "") -> str:
        self.job.meta.update(error=error, **({"log": details} if details else {}))
        self.save()
        return ""


class _Stopper:
    """should_stop(): has a lab set this job's stop key? Asked of Redis at most every STOP_EVERY_S."""

    def __init__(self, job, key: str):
        self.job, self.key, self.asked_at, self.stopped = job, key, float("-inf"), False

    def __call__(self) -> bool:
        if not self.stopped and time.monotonic() - self.asked_at >= STOP_EVERY_S:
            self.asked_at = time.monotonic()
            try:
                self.stopped = bool(self.job.connection.exists(self.key))
            except UNAVAILABLE:
                pass
        return self.stopped


def perform(name: str, request, key: str) -> str:
    """One job, in the work horse: what the task made (as text), or '' with the reason in job.meta['error']."""
    job, task = get_current_job(), TASKS[name]
    job.meta = {"done": 0, "total": job.meta.get("total", 0), "error": ""}  # a retried job starts again
    progress, should_stop = _Meta(job), _Stopper(job, Keys.of(name).stop + job.id)
    progress.save()
    try:
        request = task.decode(request)
        if task.key(request) != key:
            raise ValueError(f"key {task.key(request)} here")
    except Exception as err:  # the lab that asked runs other code (or this worker cannot do the same there)
        log.warning("%s %s: %s", name, key, err)
        return progress.fail(task.words.other_version)
    start = time.monotonic()
    try:
        result = task.run(request, progress, should_stop)
    except JobTimeoutException:  # RQ's job_timeout: the task's timeout_s
        return progress.fail(task.words.timed_out)
    except Failed as failed:
        if not should_stop():
            log.warning("%s %s failed: %s", name, key, failed.sentence)
        return progress.fail(failed.sentence, failed.log)
    except Exception:
        if should_stop():
            return progress.fail(task.words.stopped)
        log.exception("%s %s crashed", name, key)
        return progress.fail(task.words.crashed)
    if task.paced and task.cost(request):  # seconds per unit of cost, for the labs' wait estimates
        seconds = progress.seconds or time.monotonic() - start
        try:
            job.connection.set(Keys.of(name).pace, f"{seconds / task.cost(request):.6f}")
        except UNAVAILABLE:
            pass
    progress.save()
    return str(result)


class JobWorker(Worker):
    """RQ's forking worker, with a shorter heartbeat margin and a horse that dies with it."""

    stopping = False

    def get_heartbeat_ttl(self, job) -> int:
        return super().get_heartbeat_ttl(job) - 60 + HEARTBEAT_MARGIN_S  # RQ adds 60 s to the beat

    def maintain_heartbeats(self, job):
        super().maintain_heartbeats(job)  # every JOB_MONITORING_S while a job runs
        self._requeue_abandoned()

    def run_maintenance_tasks(self):
        super().run_maintenance_tasks()  # between jobs
        self._requeue_abandoned()

    def _requeue_abandoned(self):
        """RQ's cleanup of each queue's started jobs: a job whose heartbeat lapsed is retried (or failed).
        At most once per MAINTENANCE_S in the whole hall: two cleanups at once could enqueue a job twice."""
        for queue in self.queues:
            if self.connection.set(f"{queue.key}:requeue-lock", self.name, nx=True, ex=MAINTENANCE_S):
                StartedJobRegistry(queue.name, connection=self.connection, serializer=self.serializer,
                                   job_class=self.job_class).cleanup(exception_handlers=self._exc_handlers)

    def main_work_horse(self, job, queue):
        if sys.platform == "linux":
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
            if os.getppid() != self.parent_pid:  # the worker died before prctl: so does the job
                os._exit(1)
        super().main_work_horse(job, queue)

    def request_stop(self, signum, frame):
        self.stopping = True  # SIGTERM / Ctrl+C: the supervisor stops us; not a Redis failure
        super().request_stop(signum, frame)


def wait_for_redis(url: str):
    client, pause = connect(url), 0.5
    while True:
        try:
            client.ping()
            return
        except UNAVAILABLE as err:
            log.warning("Redis does not answer (%s); trying again in %.0f s", err, pause)
            time.sleep(pause)
            pause = min(5.0, pause * 2)


def work(url: str) -> bool:
    """One worker's life, until a stop (True) or a Redis failure (False)."""
    connection = connect(url)
    queues = [Queue(Keys.of(name).queue, connection=connection, serializer=JSONSerializer) for name in TASKS]
    worker = JobWorker(queues, connection=connection,
                       name=f"{os.environ.get('ATTENTION_LAB_PROCESS', 'worker')}-{socket.gethostname()}-"
                       f"{os.getpid()}-{time.time_ns() % 10**6}", serializer=JSONSerializer,
                       worker_ttl=WORKER_TTL_S, maintenance_interval=MAINTENANCE_S,
                       job_monitoring_interval=JOB_MONITORING_S)
    worker.parent_pid = os.getpid()
    try:
        worker.work(logging_level="INFO")
    except UNAVAILABLE as err:
        log.warning("Lost Redis (%s)", err)
    if worker.horse_pid:  # lost Redis mid-job: let it finish; what it makes lands on disk
        worker.wait_for_horse()
    return worker.stopping


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    names = sys.argv[1:] if argv is None else argv
    url = os.environ.get(REDIS_URL_ENV)
    if not url or not names:
        print(f"usage: {REDIS_URL_ENV}=redis://... python -m jobs.worker module:task_factory [...]: a worker serves "
              "the hall's queues in Redis, of the tasks named.", file=sys.stderr)
        return 2
    for name in names:
        task = resolve(name)()
        TASKS[task.name] = task
    while True:
        wait_for_redis(url)
        if work(url):
            return 0


if __name__ == "__main__":
    # The imported module's main, not this __main__ copy's: RQ finds `perform` (and the TASKS it reads) in jobs.worker.
    from jobs.worker import main as imported_main

    sys.exit(imported_main())
