"""A cache bounded by memory, shared by every session of the server (sessions are threads).

Streamlit's own caches bound the number of entries, not their size: one client loading many
large lessons (64 tokens × d_model 1024 × 16 heads, ~17 MB each, most of it the four D×D weight
matrices) drove the server from ~400 MB to 2.4 GB. Here every entry is weighed (numpy arrays by
their bytes) and the least recently used ones leave once the total passes the budget.
"""

import dataclasses
import threading
from collections import OrderedDict

import numpy as np


def nbytes(value) -> int:
    """The bytes held by numpy arrays inside `value` (dataclasses, dicts, lists and tuples)."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sum(nbytes(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, dict):
        return sum(nbytes(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(nbytes(v) for v in value)
    return 0


def _freeze(value):
    """Make the arrays read-only: every session gets the same objects, so none may change them."""
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _freeze(getattr(value, f.name))
    elif isinstance(value, dict):
        for v in value.values():
            _freeze(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _freeze(v)
    return value


class MemoryLRU:
    """Values by key, least recently used out first once their arrays pass `budget` bytes (or
    their number passes `max_items`)."""

    def __init__(self, budget: float, max_items: float = float("inf")):
        self.budget, self.max_items = budget, max_items
        self._items: OrderedDict = OrderedDict()  # key -> (value, bytes)
        self._bytes = 0
        self._lock = threading.Lock()

    def get_or_make(self, key, make):
        """The cached value for `key`, or `make()`'s (computed outside the lock: other sessions go on)."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key][0]
        value = _freeze(make())
        size = nbytes(value)
        with self._lock:
            if key not in self._items:
                self._items[key] = (value, size)
                self._bytes += size
            self._items.move_to_end(key)
            while (self._bytes > self.budget or len(self._items) > self.max_items) and len(self._items) > 1:
                _, (_, gone) = self._items.popitem(last=False)
                self._bytes -= gone
            return self._items[key][0]

    @property
    def bytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._items)

    def clear(self):
        with self._lock:
            self._items.clear()
            self._bytes = 0
