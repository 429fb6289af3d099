"""What both backends share: a job as its requesters follow it, the errors a submit raises, and what a
user of the package supplies (a Task, its Words, and for the in-process backend a Runner).

Imports nothing but the standard library: a trainer process (classroom/films/child.py) imports
this before torch, and a page imports it without Redis.
"""

import importlib
import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

REFRESH_S = 0.25  # a page reads a queued job's fields several times per rerun: one read of Redis serves them


def resolve(name: str):
    """What `module:function` names (a task's worker factory, a trainer, a stand-in for tests)."""
    module, _, attribute = name.partition(":")
    return getattr(importlib.import_module(module), attribute)


class QueueFull(RuntimeError):
    """The queue cannot take this job now; the message is a sentence for the student."""


class QueueUnavailable(QueueFull):
    """The hall's queue (Redis) does not answer: pages say so as they say the queue is full."""


class Failed(Exception):
    """A run that did not make its result: `sentence` for the page, `log` for details it may show."""

    def __init__(self, sentence: str, log: str = ""):
        super().__init__(sentence)
        self.sentence, self.log = sentence, log


@dataclass(frozen=True)
class Requester:
    """Who asks for a job. `session`: a browser session (a tab; gone when it closes). `device`: what the
    server really knows of the machine, its network address ("" where it knows none: the lab's own
    machine, which it trusts: only the session counts there). `teacher`: the session holds a room's
    teacher key, and its jobs go first. A plain string is a session of an unknown device."""

    session: str = ""
    device: str = ""
    teacher: bool = False

    @classmethod
    def of(cls, who) -> "Requester":
        return who if isinstance(who, Requester) else cls(str(who or ""))


@dataclass(frozen=True)
class Status:
    """A job's state at one moment. `extra`: the task's own fields (a render's log, a film's losses)."""

    state: str = "queued"  # queued | running | done | failed
    done: int = 0
    total: int = 0
    error: str = ""  # one plain sentence once failed
    extra: Mapping = field(default_factory=lambda: MappingProxyType({}))


class Job:
    """A job as its requesters follow it, the same in both backends. The in-process queue sets its
    status as the job runs; a queued job in Redis is given `read` and reads it at most every REFRESH_S."""

    def __init__(self, key: str, request, requester: "str | Requester" = ""):
        who = Requester.of(requester)
        self.key, self.request = key, request
        self.requester = who.session  # the session that started it (counts against its quota); "" once it let go
        self.device, self.teacher = who.device, who.teacher  # its device's quota; the teacher's go first
        self.requesters = {who.session}  # in-process: every session waiting for it (Redis keeps its own set)
        self.result = None  # what the run made, once done
        self.finished = threading.Event()
        self.read: Callable[[Job], Status] | None = None
        self.asked = 0.0  # in-process: when a page last showed the job (see LocalQueue.waiting)
        self.order = 0  # in-process: its place in the queue
        self.stop = False  # in-process: asked to stop; its runner sees it through should_stop
        self.gone_since: float | None = None  # in-process: since when none of its sessions is alive
        self._status, self._read_at = Status(), float("-inf")

    @property
    def status(self) -> Status:
        if self.read is not None and time.monotonic() - self._read_at >= REFRESH_S:
            self._status, self._read_at = self.read(self), time.monotonic()
        return self._status

    state = property(lambda self: self.status.state)
    done = property(lambda self: self.status.done)
    total = property(lambda self: self.status.total)
    error = property(lambda self: self.status.error)

    @property
    def active(self) -> bool:
        return self.state in ("queued", "running")

    def wait(self, timeout: float | None = None) -> bool:
        """Until the job has ended (True), or `timeout` seconds (False)."""
        if self.read is None:
            return self.finished.wait(timeout)
        deadline = math.inf if timeout is None else time.monotonic() + timeout
        while self.active:
            if time.monotonic() >= deadline:
                return False
            time.sleep(REFRESH_S)
        return True


class Progress:
    """Handed to a run: `progress(done, total, **extra)` says how far it is (extra: the task's own
    fields); `worked(seconds)` says how long the work itself took (start-up left out), which paces the
    wait a full queue states. Each backend writes it where its pages read."""

    seconds: float | None = None

    def __call__(self, done: int, total: int, **extra):
        raise NotImplementedError

    def worked(self, seconds: float):
        self.seconds = seconds


@dataclass(frozen=True)
class Words:
    """Every sentence the queue says for a task. `full(entries, pace, workers)` words a full queue
    (policy.Entry: who, running or not, units of work left; pace: seconds per unit)."""

    busy: str  # past the per-session quota; `{limit}` is replaced by it
    full: Callable[[list, float, int], str]
    unavailable: str  # Redis does not answer
    stopping: str  # the in-process queue shuts down
    stopped: str  # cancelled
    crashed: str  # the run raised something it did not expect (a bug): its traceback is in the log
    died: str  # its RQ worker ended, and RQ gave up on it
    lost: str  # Redis lost the job (restarted)
    gone: str  # it finished, but its result is no longer there
    timed_out: str
    other_version: str  # the worker runs other code than the lab that asked
    abandoned: str = "Nobody was waiting for this any more, so it was not made."
    device_busy: str = ("This device already has {limit} of these waiting or being made (one running and one "
                        "waiting, whichever of its tabs asked); wait for one to finish.")
    ready_in: str = "Expected wait: {wait}."  # after busy or device_busy: until the first of its jobs ends


class Task:
    """What a user of the package supplies: how to name, cost, find and run one kind of job.

    `name` names its queue in Redis (keep it: labs and workers must agree). A worker process
    (jobs.worker) makes the task with a `module:function` of the user's that reads the environment.
    A request is the user's own value; `encode`/`decode` carry it to a worker as JSON."""

    name = ""
    words: Words
    paced = False  # the wait is estimated from measured runs (seconds per unit of cost); else cost is seconds
    default_pace = 1.0
    retries = 0  # RQ runs a job again this often if its worker died
    timeout_s = 900  # RQ stops a run after this

    def key(self, request) -> str:
        raise NotImplementedError

    def cost(self, request) -> float:
        """Units of work (seconds, unless `paced`), for the wait a full queue states."""
        return 0.0

    def total(self, request) -> int:
        """The progress total before the run says one."""
        return 0

    def job(self, key: str, request, requester: str) -> Job:
        """The job object pages follow (a subclass adds the task's own fields)."""
        return Job(key, request, requester)

    def ready(self, request):
        """The result if it is already made (counts as a use of it), else None: no queue is needed."""
        return self.done(request)

    def done(self, request):
        """The result if it is made, else None; looks only (a job's status calls it often)."""
        return None

    def from_key(self, key: str):
        """The request of a finished result found by its key alone, else None."""
        return None

    def encode(self, request):
        return request

    def decode(self, data):
        return data

    def run(self, request, progress: Progress, should_stop: Callable[[], bool]):
        """Make the result (in a worker, or a local runner's thread). Raise Failed with a sentence."""
        raise NotImplementedError

    def runner(self) -> "Runner":
        """How one in-process worker thread runs jobs."""
        return Runner(self)


class Runner:
    """One in-process worker thread's way of running jobs; by default the task's run, in the thread.
    A runner may keep a process for its thread (the film trainer): `warm` starts it, `close` ends it
    as the thread ends, and `kill` stops it from another thread as the queue shuts down."""

    def __init__(self, task: Task):
        self.task = task

    def warm(self):
        pass

    def run(self, job: Job, progress: Progress, should_stop: Callable[[], bool]):
        return self.task.run(job.request, progress, should_stop)

    def close(self):
        pass

    def kill(self):
        pass
