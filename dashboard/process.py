"""What the lab process does once, whichever session's run comes first (module state outlives
runs: app.py itself is executed afresh on every run)."""

import gc
import threading

_LOCK = threading.Lock()
_FROZEN = False


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
