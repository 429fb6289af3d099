"""Who may add a job and which job runs next: the one place for quota and ordering, used by both
backends (the in-process queue on its jobs, the Redis one on the jobs admitted in Redis).

- A request identical to a waiting or running job is never refused: the backends share that job
  before they ask the policy.
- A requester has at most `per_requester` jobs of its own waiting or running ("" is no one: a job
  for everyone counts against no requester).
- At most `queued` jobs are in the queue: waiting or running, or waiting only (`running_counts`).
- The next job to run is the one asked for first.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from jobs.job import Job, QueueFull, Words


@dataclass(frozen=True)
class Limits:
    per_requester: int = 1
    queued: int = 4
    running_counts: bool = True


@dataclass(frozen=True)
class Entry:
    """One admitted job as the policy sees it: its owner, whether it runs, the units of work it has left."""

    requester: str
    running: bool
    left: float


def left(cost: float, done: int, total: int) -> float:
    """Units of work left of `cost` after `done` of `total` (exact for whole numbers: cost * (total - done) / total)."""
    return max(0.0, cost * (total - done) / total) if total else cost


def full(entries: Sequence[Entry], limits: Limits) -> bool:
    return sum(limits.running_counts or not e.running for e in entries) >= limits.queued


def admit(entries: Sequence[Entry], requester: str, limits: Limits, words: Words, pace: float, workers: int):
    """Raise QueueFull, with the sentence a page shows, if `requester` may not add a job to `entries`."""
    if requester and sum(e.requester == requester for e in entries) >= limits.per_requester:
        raise QueueFull(words.busy.format(limit=limits.per_requester))
    if full(entries, limits):
        raise QueueFull(words.full(list(entries), pace, max(1, workers)))


def next_job(queued: Sequence[Job]) -> Job:
    """The job that runs next of those waiting (in-process; RQ takes its queue in order)."""
    return min(queued, key=lambda job: job.order)
