"""A task's keys in the hall's Redis, and how an admitted job is written in its hash (rq_queue.py, worker.py)."""

import re
from dataclasses import dataclass

from jobs.job import Requester


@dataclass(frozen=True)
class Keys:
    """A task's keys in Redis (the film ones as they were before this package: a hall's Redis may hold them)."""

    queue: str  # the RQ queue
    active: str  # hash: job id -> "<admitted at> <cost> <T|-> <device> <session>" (`value`)
    askers: str  # + job id: the requesters waiting for that job (a set)
    stop: str  # + job id: present while that job should stop
    pace: str  # seconds per unit of cost, as a worker last measured

    @classmethod
    def of(cls, name: str) -> "Keys":
        return cls(f"attention-lab-{name}", f"attention-lab:{name}:active", f"attention-lab:{name}:askers:",
                   f"attention-lab:{name}:stop:", f"attention-lab:{name}:step-s")


def job_id(key: str) -> str:
    """The RQ job id of a key (RQ takes letters, digits, '_' and '-')."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", key)


def admitted(value: bytes) -> tuple[float, float, Requester]:
    """(admitted at, cost, requester) of a hash value. Older formats: "<admitted at> <cost> <session>"
    (before devices) and "<admitted at> <session>" (renders before this package, cost 0)."""
    parts = value.decode().split(" ", 4)
    if len(parts) == 5 and parts[2] in ("T", "-"):
        return float(parts[0]), float(parts[1]), Requester(parts[4], parts[3], parts[2] == "T")
    admitted, _, rest = value.decode().partition(" ")
    cost, _, requester = rest.rpartition(" ")
    return float(admitted), float(cost or 0), Requester(requester)


def value(admitted: float, cost: float, who: Requester) -> str:
    return f"{admitted:.0f} {cost:g} {'T' if who.teacher else '-'} {who.device} {who.session}"
