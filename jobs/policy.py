"""Who may add a job and which job runs next: the one place for quota and ordering, used by both
backends (the in-process queue on its jobs, the Redis one on the jobs admitted in Redis).

- A request identical to a waiting or running job is never refused: the backends share that job
  before they ask the policy.
- A session has at most `per_requester` jobs of its own waiting or running ("" is no one: a job
  for everyone counts against no one).
- A device (its network address) has at most `per_device` jobs waiting or running, however many
  tabs, sessions and cookies it uses: a device is one student. "" (the lab's own machine, or an
  address the server cannot know) counts per session only.
- At most `queued` jobs are in the queue: waiting or running, or waiting only (`running_counts`).
  The teacher's jobs are never refused for a full queue (only by the teacher's own quotas).
- The next job to run: the teacher's first; then one of a device that has nothing running (so
  one device's second job waits behind everyone's first); then the one asked for first.
- A refusal says the real wait: for a quota, when the first of one's own jobs should be done (the
  work ahead of it, at the measured pace, over the workers); for a full queue, the task's sentence.
"""

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from jobs.job import Job, QueueFull, Requester, Words


@dataclass(frozen=True)
class Limits:
    per_requester: int = 1  # a session's own jobs, waiting or running
    queued: int = 4
    running_counts: bool = True
    per_device: int = 2  # a device's jobs, waiting or running: one running and one waiting


@dataclass(frozen=True)
class Entry:
    """One admitted job as the policy sees it: its owner, whether it runs, the units of work it has left,
    its owner's device and whether the teacher asked. Entries come in the order they were asked for."""

    requester: str
    running: bool
    left: float
    device: str = ""
    teacher: bool = False


def left(cost: float, done: int, total: int) -> float:
    """Units of work left of `cost` after `done` of `total` (exact for whole numbers: cost * (total - done) / total)."""
    return max(0.0, cost * (total - done) / total) if total else cost


def full(entries: Sequence[Entry], limits: Limits) -> bool:
    return sum(limits.running_counts or not e.running for e in entries) >= limits.queued


def duration(seconds: float) -> str:
    """A wait in words: 'about 40 s', 'about 3 min'."""
    if seconds < 90:
        return f"about {max(5, 5 * math.ceil(seconds / 5))} s"
    return f"about {math.ceil(seconds / 60)} min"


def rank(teacher: bool, device_running: int, order: int) -> tuple:
    """The sort key of a waiting job: the teacher's first, then devices with nothing running, then the first asked."""
    return (not teacher, device_running > 0, order)


def run_order(entries: Sequence[Entry]) -> list[int]:
    """The entries' indexes in the order they run: the running ones, then the waiting ones by `rank`
    (a device counts as running while it has a job running, as the queue would see it then)."""
    running = Counter(e.device for e in entries if e.running and e.device)
    waiting = sorted((i for i, e in enumerate(entries) if not e.running),
                     key=lambda i: rank(entries[i].teacher, running[entries[i].device] if entries[i].device else 0, i))
    return [i for i, e in enumerate(entries) if e.running] + waiting


def ends(entries: Sequence[Entry], pace: float, workers: int) -> list[float]:
    """When each entry should be done, in seconds from now: a running one when its work left is done; a
    waiting one after the work ahead of it in the run order, shared by the workers, and its own."""
    out = [0.0] * len(entries)
    ahead = 0.0
    for i in run_order(entries):
        e = entries[i]
        out[i] = e.left * pace if e.running else ahead * pace / workers + e.left * pace
        ahead += e.left
    return out


def admit(entries: Sequence[Entry], requester, limits: Limits, words: Words, pace: float, workers: int):
    """Raise QueueFull, with the sentence a page shows, if `requester` (a Requester or a session) may not add
    a job to `entries`."""
    who, workers = Requester.of(requester), max(1, workers)
    mine = [i for i, e in enumerate(entries) if who.session and e.requester == who.session]
    if len(mine) >= limits.per_requester:
        raise QueueFull(_with_wait(words.busy.format(limit=limits.per_requester), mine, entries, words, pace, workers))
    device = [i for i, e in enumerate(entries) if who.device and e.device == who.device]
    if len(device) >= limits.per_device:
        raise QueueFull(_with_wait(words.device_busy.format(limit=limits.per_device), device, entries, words, pace,
                                   workers))
    if not who.teacher and full(entries, limits):
        raise QueueFull(words.full(list(entries), pace, workers))


def _with_wait(sentence: str, own: Iterable[int], entries: Sequence[Entry], words: Words, pace: float,
               workers: int) -> str:
    when = ends(entries, pace, workers)
    return f"{sentence} {words.ready_in.format(wait=duration(min(when[i] for i in own)))}"


def next_job(queued: Sequence[Job], running: Iterable[Job] = ()) -> Job:
    """The job that runs next of those waiting (in-process; RQ takes its queue in order, the teacher's at its front)."""
    busy = Counter(job.device for job in running if job.device)
    return min(queued, key=lambda job: rank(job.teacher, busy[job.device] if job.device else 0, job.order))


def ahead(job: Job, active: Iterable[Job]) -> int:
    """How many jobs come before the waiting `job` in the run order: the running ones, and the waiting ones
    that rank first."""
    active = list(active)
    busy = Counter(other.device for other in active if other.state == "running" and other.device)

    def key(other: Job) -> tuple:
        return rank(other.teacher, busy[other.device] if other.device else 0, other.order)

    return sum(other is not job and (other.state == "running" or key(other) < key(job)) for other in active)
