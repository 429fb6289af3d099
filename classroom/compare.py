"""Two lessons side by side: their weights, B − A, and one line on what changed most.

For the Compare page: lesson A is the sidebar's, lesson B the same with one setting changed
(classroom.changes). Both come from `run_trace`; nothing here recomputes attention.
"""

from dataclasses import dataclass

import numpy as np

from core.config import AttentionConfig
from core.lesson import run_trace
from core.trace import AttentionTrace, token_labels

NEGLIGIBLE = 0.0005  # a weight change below this prints as 0.000
_NAMES = {"num_heads": "heads", "scale": "÷√d_k", "pad_length": "padding length", "seq_len": "tokens",
          "custom_mask": "custom mask", "q": "Q", "k": "K", "v": "V"}
_SHOWN = ("temperature", "scale", "mask", "positional", "seed", "num_heads", "d_model", "window", "pad_length",
          "seq_len", "source")


class CompareError(ValueError):
    """Two lessons whose weights cannot be subtracted, explained."""


@dataclass(frozen=True, eq=False)
class Comparison:
    a: AttentionTrace
    b: AttentionTrace
    diff: np.ndarray  # (H, T, T) b.weights − a.weights; (1, T, T) of the head means when the head counts differ
    per_head: bool  # False: diff compares the weights averaged over heads
    tokens: list  # the T tokens both lessons share (diff's rows and columns)
    cell: tuple  # (head, query, key) index into diff of the largest |B − A|
    before: float  # A's weight there (head mean when not per_head)
    after: float  # B's weight there
    summary: str  # one line: what changed between the lessons and which weight moved most


def compare(cfg_a: AttentionConfig, cfg_b: AttentionConfig) -> Comparison:
    """Weights of A and B, B − A, and the cell that changed most."""
    a, b = run_trace(cfg_a), run_trace(cfg_b)
    T = _shared(a.tokens, b.tokens)
    per_head = a.num_heads == b.num_heads
    wa = a.weights[:, :T, :T] if per_head else a.mean_weights[None, :T, :T]  # (H or 1, T, T)
    wb = b.weights[:, :T, :T] if per_head else b.mean_weights[None, :T, :T]
    diff = wb.astype(np.float64) - wa.astype(np.float64)  # (H or 1, T, T)
    cell = tuple(int(i) for i in np.unravel_index(np.argmax(np.abs(diff)), diff.shape))
    before, after = float(wa[cell]), float(wb[cell])
    summary = _summary(cfg_a, cfg_b, a, b, T, per_head, cell, before, after, float(np.abs(diff).max()))
    return Comparison(a, b, diff, per_head, list(a.tokens[:T]), cell, before, after, summary)


def _shared(ta: list, tb: list) -> int:
    T = min(len(ta), len(tb))
    if list(ta[:T]) != list(tb[:T]):
        raise CompareError("Lessons A and B have different tokens, so their weights cannot be subtracted cell by "
                           "cell: change a setting other than the text.")
    return T


def describe_difference(cfg_a: AttentionConfig, cfg_b: AttentionConfig) -> str:
    """The settings that differ, "temperature 1 → 0.1, heads 4 → 8"; "" when none does."""
    da, db = cfg_a.to_dict(), cfg_b.to_dict()
    parts = []
    for name in da:
        if name == "device" or da[name] == db[name]:
            continue
        label = _NAMES.get(name, name)
        if name in _SHOWN:
            parts.append(f"{label} {_value(name, da[name])} → {_value(name, db[name])}")
        else:
            parts.append(f"{label} changed")
    return ", ".join(parts)


def _value(name: str, text: str) -> str:
    if name == "scale":
        return "on" if text == "true" else "off"
    if name == "temperature":
        return f"{float(text):g}"
    return text


def _summary(cfg_a, cfg_b, a, b, T, per_head, cell, before, after, largest) -> str:
    what = describe_difference(cfg_a, cfg_b)
    lead = f"From A to B ({what})" if what else "A and B are the same lesson"
    if T < max(len(a.tokens), len(b.tokens)):
        lead += f", among the first {T} tokens (which both lessons share)"
    if largest == 0:
        return f"{lead}: every weight is the same."
    if largest < NEGLIGIBLE:
        return f"{lead}: no weight changes by {NEGLIGIBLE} or more (the largest change is {largest:.1e})."
    h, q, k = cell
    labels = token_labels(a.tokens[:T])
    where = (f"head {h + 1}, query “{labels[q]}”, key “{labels[k]}”" if per_head
             else f"query “{labels[q]}”, key “{labels[k]}” averaged over heads (A has {a.num_heads}, "
                  f"B has {b.num_heads})")
    shown_a, shown_b, d = _shown(before, after)
    sign = "+" if d > 0 else "−"
    change = f"{sign}{abs(d):.{_digits(shown_a)}f}"
    return f"{lead}, the weight that changes most is {where}: {shown_a} → {shown_b} ({change})."


def _digits(text: str) -> int:
    return len(text.partition(".")[2])


def _shown(before: float, after: float) -> tuple[str, str, float]:
    """Both weights as printed, and their difference computed from the printed numbers, so that a student can check
    it (0.277 → 0.996 is +0.719, even when the exact difference rounds to 0.720). Three decimals, or more when the
    rounded weights would not differ."""
    for digits in range(3, 8):
        a, b = f"{before:.{digits}f}", f"{after:.{digits}f}"
        if a != b:
            break
    return a, b, round(float(b) - float(a), digits)
