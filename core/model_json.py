"""JSON that anyone may have written (a model folder's config.json, its shards' index), read with bounds.

`json.loads` alone reads a file of any size, nests as deep as the file does (ending in a RecursionError),
and turns NaN, Infinity and 1e400 into floats that are not finite. `read` refuses each of these before
a value reaches the lab, saying why in a phrase the caller puts after the file's name. `read_bytes` reads
any file of a model folder (a tokenizer.json) within a bound, checked on disk first.
"""

import json
import math
from pathlib import Path

from .errors import quote

MOST_BYTES = 1024 * 1024  # a config.json or a shards' index is a few kB: past this the file is not one
MOST_DEPTH = 32  # objects and lists within each other: a real config.json nests three or four deep


class Refused(ValueError):
    """Why a file or one of its values is not read: a phrase that follows "has a config.json"."""


def _finite(text: str) -> float:
    if not math.isfinite(value := float(text)):  # 1e400 reads as infinity
        raise Refused(f"with a number, {quote(text, 20)}, too large to be finite")
    return value


def _constant(text: str):
    raise Refused(f"with the value {text}, which is not a number")  # json reads NaN and ±Infinity unless told not to


def _whole(text: str) -> int:
    if len(text.lstrip("-")) > 18:  # far past any size; and int() of thousands of digits is slow
        raise Refused(f"with a whole number of {len(text):,} digits")
    return int(text)


def too_deep(value, most: int, level: int = 0) -> tuple | None:
    """The path (keys and indexes) to the first object or list nested deeper than `most` in `value`, which
    itself stands at `level`; None if there is none. Walked with a stack, not by recursion: a value read
    from a file may nest as deep as the file is long. (A deck file's bounds use it too: classroom/deck_file.py.)"""
    stack = [(value, level, ())]
    while stack:
        value, at, path = stack.pop()
        if isinstance(value, (dict, list)):
            if at > most:
                return path
            children = value.items() if isinstance(value, dict) else enumerate(value)
            stack.extend((child, at + 1, (*path, key)) for key, child in children)
    return None


def read_bytes(path: Path, most: int) -> bytes:
    """The file's bytes if it holds at most `most`: its size on disk is looked at before a byte is read, and
    no more than most + 1 bytes are read should it grow meanwhile; else Refused, saying its size and the bound."""
    try:
        size = path.stat().st_size
        if size <= most:
            with path.open("rb") as f:
                raw = f.read(most + 1)
            if len(raw) <= most:
                return raw
            size = max(len(raw), path.stat().st_size)
    except OSError:
        raise Refused("that cannot be opened") from None
    raise Refused(f"of {size / 1e6:,.1f} MB, more than the {most / 1e6:,.1f} MB the lab reads of one")


def read(path: Path):
    """The file's value, read only if it is small, shallow and its numbers finite; else Refused."""
    try:
        with path.open("rb") as f:
            raw = f.read(MOST_BYTES + 1)
    except OSError:
        raise Refused("that cannot be opened") from None
    if len(raw) > MOST_BYTES:
        raise Refused(f"of more than {MOST_BYTES // 1024:,} kB, far more than a model's description")
    nested = Refused(f"nested more than {MOST_DEPTH} levels deep, far more than a model's description")
    try:
        value = json.loads(raw.decode("utf-8"), parse_float=_finite, parse_int=_whole, parse_constant=_constant)
    except Refused:
        raise
    except RecursionError:  # json descends once per level: a deep file ends here, not in a crash
        raise nested from None
    except ValueError:  # UnicodeDecodeError and JSONDecodeError among them
        raise Refused("that is not readable JSON") from None
    if too_deep(value, MOST_DEPTH) is not None:
        raise nested
    return value
