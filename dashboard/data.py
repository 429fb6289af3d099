"""Cached calls into `core`, keyed on plain values (`cfg.key()`, ints), never on tensors.

One cache per process shared by every session (sessions are threads): `memo`, a module-level
object, not a Streamlit cache, so a visitor's "clear cache" cannot empty it (dashboard/process.py
says why), bounded by memory, not by entries:
ATTENTION_LAB_LESSON_CACHE_MB, default 64 (three of the largest lessons, thousands of classroom-sized
ones; docs/performance.md measures what a process takes with it). Streamlit's own caches bound the
number of entries, not their size, and one client loading many of the largest lessons could drive
the server's memory up by gigabytes: here every entry is weighed (numpy arrays by their bytes) and
the least recently used ones leave once the total passes the budget. Losing the cache (a restart)
costs only recomputation.
"""

import contextlib
import dataclasses
import os
import threading
from collections import OrderedDict

import numpy as np

from core import AttentionConfig, ConfigError, analysis, run_trace
from core.views import stage_summary

SATURATION_D_KS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
COMPUTING = 2  # lessons computed at once (the others wait their turn); a lab process uses about one core
BUDGET_BYTES = int(float(os.environ.get("ATTENTION_LAB_LESSON_CACHE_MB", "64")) * 1024**2)


def trace(cfg: AttentionConfig):
    return memo.get_or_make(("trace", cfg.key()), lambda: run_trace(cfg))


def saturation(T: int, seeds: int) -> tuple[dict, dict]:
    """(with ÷√d_k, without) as core.analysis.saturation reports them."""
    return memo.get_or_make(("saturation", T, seeds), lambda: tuple(
        analysis.saturation(SATURATION_D_KS, T=T, seeds=range(seeds), scaled=s) for s in (True, False)))


def score_row(d_k: int, T: int, seed: int, scaled: bool):
    return memo.get_or_make(("score_row", d_k, T, seed, scaled), lambda: analysis.score_row(d_k, T, seed, scaled))


def positional(T: int, d: int):
    """(table (T, d), similarity (T, T)) of the sinusoidal encoding."""
    return memo.get_or_make(("positional", T, d), lambda: (analysis.positional_table(T, d),
                                                              analysis.positional_similarity(T, d)))


def traces_by_positional(cfg: AttentionConfig) -> dict:
    """The same lesson under every positional encoding that works for it."""
    out = {}
    for p in ("none", "sinusoidal", "learned", "rotary"):
        try:
            out[p] = trace(cfg.replace(positional=p))
        except ConfigError as err:  # e.g. rotary needs an even d_k
            out[p] = err
    return out


def block(cfg: AttentionConfig, norm_first: bool):
    """(stages name -> (T, D), summary rows) of the lesson's Transformer block."""

    def make():
        stages = analysis.block_stages(cfg, norm_first=norm_first)
        return stages, stage_summary(stages)

    return memo.get_or_make(("block", cfg.key(), norm_first), make)


def block_parameters(cfg: AttentionConfig) -> dict:
    return memo.get_or_make(("block_parameters", cfg.key()), lambda: analysis.block_parameters(cfg))


def shuffle_demo(cfg: AttentionConfig, order: tuple) -> dict:
    return memo.get_or_make(("shuffle", cfg.key(), order), lambda: analysis.shuffle_demo(cfg, order))


# -- the cache ------------------------------------------------------------------------------------
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

    def __init__(self, budget: float, max_items: float = float("inf"), computing: int | None = None):
        self.budget, self.max_items = budget, max_items
        self._items: OrderedDict = OrderedDict()  # key -> (value, bytes)
        self._bytes = 0
        self._lock = threading.Lock()
        # At most `computing` values made at once: one of the largest lessons' blocks takes ~100 MB while
        # it is computed, and six clients asking at once drove a server past 1.8 GB (docs/performance.md).
        self._turns = threading.BoundedSemaphore(computing) if computing else None
        self._inside = threading.local()  # a value made from another (trained patterns from the trace) takes no turn

    @contextlib.contextmanager
    def _turn(self):
        if self._turns is None or getattr(self._inside, "making", False):
            yield
            return
        with self._turns:
            self._inside.making = True
            try:
                yield
            finally:
                self._inside.making = False

    def _hit(self, key):
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return True, self._items[key][0]
        return False, None

    def get_or_make(self, key, make):
        """The cached value for `key`, or `make()`'s (computed outside the lock: other sessions go on)."""
        found, value = self._hit(key)
        if found:
            return value
        with self._turn():
            found, value = self._hit(key)  # made by another session while this one waited its turn
            if found:
                return value
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


memo = MemoryLRU(BUDGET_BYTES, computing=COMPUTING)  # this process's one lesson cache (above: why not st.cache_data)
