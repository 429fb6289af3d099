"""Jobs: work that pages ask for and follow, run outside the page's thread, shared, limited, cancellable.

One interface, two backends; its users (the renders, animations/service.py, and the films,
classroom/films/) supply a Task and never touch a queue:

- `job.py`: the interface. Job (what a page follows: state, progress, error, result), Task (what a
  user supplies: key, cost, where a result is found, how one is made), Runner, Words, QueueFull.
- `policy.py`: per-requester quota, the queue's size and the order jobs run in, for both backends.
- `local.py`: LocalQueue, jobs in threads of this process (a laptop).
- `rq_queue.py`: RQQueue, jobs in the hall's Redis (RQ), run by `worker.py` (`python -m jobs.worker`);
  `rq_keys.py`: its keys in Redis.
- `redis_client.py`: the Redis settings every process of a hall uses (the rooms too).
- `sessions.py`: jobs whose sessions have all gone are cancelled, in both backends.

Each queue answers submit(request, requester), job(key), cancel(key, requester), waiting(job, requester),
queue_length() and shutdown(); a requester is a Requester (session, device, teacher) or a session.
RQ is imported here, in this package, and nowhere else.
"""

import os
from pathlib import Path

from jobs.job import Failed, Job, Progress, QueueFull, QueueUnavailable, Requester, Runner, Status, Task, Words
from jobs.policy import Limits
from jobs.sessions import session_check, watch_sessions

__all__ = ["Failed", "Job", "Limits", "Progress", "QueueFull", "QueueUnavailable", "Requester", "Runner", "Service",
           "Status", "Task", "Words", "media_dir", "session_check", "watch_sessions"]

def media_dir(environ=None) -> Path:
    """The folder results land in (ATTENTION_LAB_MEDIA, default `media`): one folder for a hall's processes."""
    return Path((os.environ if environ is None else environ).get("ATTENTION_LAB_MEDIA", "media")).resolve()


class Service:
    """What a user's service (renders, films) hands to its queue as it is; the user adds how a page
    asks (`submit` with its own arguments, `cached`). `queue` is a LocalQueue or, in the hall, an RQQueue."""

    closed = property(lambda self: self.queue.closed)
    redis = property(lambda self: self.queue.redis)  # RQQueue only

    def job(self, key: str) -> Job | None:
        return self.queue.job(key)

    def waiting(self, job: Job, requester: "Requester | str | None" = None) -> int:
        """Jobs before this one; a page's poll, which also says someone (`requester`) still waits for it."""
        return self.queue.waiting(job, requester)

    def cancel(self, key: str, requester: "Requester | str" = "") -> bool:
        """`requester` no longer waits for this job; it stops (True) if nobody else does."""
        return self.queue.cancel(key, requester)

    def queue_length(self) -> int:
        """Jobs waiting or running (in the whole hall, for RQ: 0 while Redis does not answer)."""
        return self.queue.queue_length()

    def shutdown(self, wait: bool = True):
        self.queue.shutdown(wait)
