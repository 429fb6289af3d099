"""What the lab process holds and does once, whichever session's run comes first (module state
outlives runs: app.py itself is executed afresh on every run).

`Held(make)`: one object per process, made on first use. The room registry and the render service
live here (the lesson cache is a plain module-level object, dashboard/data.py), not in
`st.cache_resource`: any visitor can send Streamlit's `clear_cache` message (two bytes on the
websocket, or "Clear cache" in a menu) and it empties every Streamlit cache for all sessions,
which would delete every room and reset the render queue and its limits. Nothing a browser sends
reaches these; `stop()` (dashboard/serve.py, as the server stops) shuts down the ones that run work, and
`start()` sets what the process needs as a server starts.
"""

import ctypes
import ctypes.util
import gc
import os
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

_LOCK = threading.Lock()
_FROZEN = False
_HELD: list["Held"] = []  # every holder, for stop()
TRIM_EVERY = 5.0  # seconds between two give_back_memory() walks of the heap, at most
_trimmed = [0.0]  # when memory was last given back (a list: set under _LOCK)


class Held(Generic[T]):
    """`service = Held(make_service)`; `service()` is this process's one object, made under a lock
    on first use (again if the last one was shut down: it has `closed` set)."""

    def __init__(self, make: Callable[[], T]):
        self._make, self._lock, self._value = make, threading.Lock(), None
        with _LOCK:
            _HELD.append(self)

    def __call__(self) -> T:
        value = self._value
        if value is not None and not getattr(value, "closed", False):
            return value
        with self._lock:
            if self._value is None or getattr(self._value, "closed", False):
                self._value = self._make()
            return self._value

    def held(self) -> T | None:
        """The object if one was made (None before first use): a shutdown must not make one."""
        return self._value

    def clear(self):
        """Forget the object; the next call makes a new one (for tests: a fresh service or registry)."""
        with self._lock:
            self._value = None


def start():
    """What a lab server sets for its process as it starts (dashboard/serve.py `main`), never on import:
    tests and tools import the app."""
    import torch

    # Lessons are tiny: more threads for one trace only fight the other sessions and the browser for the cores.
    torch.set_num_threads(1)
    # uvicorn (Streamlit's server) would take a client's address from the X-Forwarded-For of any connection
    # from 127.0.0.1 or ::1, a local tunnel's included: it believes no one, and the lab reads the header from
    # the proxies it is told of (ATTENTION_LAB_TRUSTED_PROXIES: classroom/rooms/clients.py `address_of`).
    os.environ["FORWARDED_ALLOW_IPS"] = ""


def stop():
    """Shut down what the process holds that runs work (the render queue and its processes), at once:
    queued work is dropped, running work stopped."""
    with _LOCK:
        held = [h.held() for h in _HELD]
    for value in held:
        if value is not None and callable(getattr(value, "shutdown", None)):
            value.shutdown(wait=False)


def freeze_loaded_objects():
    """Once per server, at the end of the first run (everything a page needs is imported by then).

    With torch, Altair and pandas loaded, a full garbage collection walks some 250 000
    long-lived objects (docs/performance.md). Streamlit ran one after every run (runner.postScriptGC,
    now off in .streamlit/config.toml) and Python's own collector still runs full ones now and
    then; frozen, those objects are skipped and it looks only at what the runs create.
    Later runs find the flag set and do nothing (a module flag, not a cache_resource lookup or
    gc.get_freeze_count(), which walks every frozen object)."""
    global _FROZEN
    if _FROZEN:
        return
    with _LOCK:
        if not _FROZEN:
            gc.collect()
            gc.freeze()
            _FROZEN = True


def _libc_trim():
    """glibc's malloc_trim, or None where the C library has none (musl, macOS)."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_TRIM = _libc_trim() if os.name == "posix" else None


def give_back_memory():
    """At the end of a run, at most every TRIM_EVERY seconds: hand the memory the runs freed back to the
    system. A large lesson's arrays, charts and messages are freed once sent, but glibc keeps the freed
    pages in its heaps (one per thread that allocated them), so the process stayed at its largest size
    for good (docs/performance.md, issue 28); malloc_trim(0) returns them."""
    if _TRIM is None or time.monotonic() - _trimmed[0] < TRIM_EVERY:
        return
    with _LOCK:
        if time.monotonic() - _trimmed[0] < TRIM_EVERY:
            return
        _trimmed[0] = time.monotonic()
    _TRIM(0)
