"""Predict, then reveal: questions made from a lesson's own numbers (`run_trace`).

The gain of interactive teaching comes from committing to a prediction before the reveal
(Crouch et al., Am. J. Phys. 72:835, 2004). Three kinds, each answered by the trace that
the revealed chart draws:

- "focus": in head h, which key does query q attend to most? The answer is the argmax of
  `weights[h, q]`; keys within TIE of the largest weight tie (the chart prints 2 decimals),
  and any of them is right.
- "change": if <a named change, classroom.changes>, what happens to the largest weight in the row
  of query q (head h), whichever key holds it? The answer is the range holding Δ = max(after) − max(before): "stays"
  means |Δ| < 0.01, and the ranges are 0.01, 0.1 and 0.3 wide steps up or down, each holding
  its lower end.
- "blocked": under a mask, which query rows may attend to no key at all? The answer is exactly
  the trace's blocked rows, or "no row is fully blocked".

A fully blocked row has no largest weight, so it is never asked about; a one-token lesson
has nothing to predict about focus (its one key always gets weight 1). Each kind is a class of
classroom/kinds.py, whose `suggest` makes a fair question of it from a lesson.
"""

import random

import numpy as np

from classroom.changes import apply_change, available_changes, describe_change
from classroom.question import NO_ROW, Question, QuestionError
from classroom.reasons import EDGES, TIE, blocked_reason, change_reason, focus_reason
from core.config import AttentionConfig
from core.errors import ConfigError
from core.lesson import run_trace
from core.trace import token_labels

BUCKETS = ("down by 0.3 or more", "down by 0.1 to 0.3", "down by 0.01 to 0.1", "stays (changes by less than 0.01)",
           "up by 0.01 to 0.1", "up by 0.1 to 0.3", "up by 0.3 or more")
CLEAR_MARGIN = 0.05  # a focus row whose winner leads by this much is a fair question
EDGE_MARGIN = 0.002  # a change whose Δ is this close to a range edge is not
ONE_TOKEN = "A one-token lesson has a single key, which always gets the whole weight: there is nothing to predict."


def focus_question(cfg: AttentionConfig, head: int, query: int) -> Question:
    """In head `head`, which key does query `query` attend to most?"""
    return _focus(cfg, run_trace(cfg), head, query)


def change_question(cfg: AttentionConfig, change: str, head: int, query: int) -> Question:
    """After `change`, does the largest weight in query `query`'s row go up, down or stay, by how much?"""
    return _change(cfg, change, run_trace(cfg), run_trace(_changed(cfg, change)), head, query)


def blocked_question(cfg: AttentionConfig, mask: str) -> Question:
    """Under the mask kind `mask` (the lesson's own, or the lesson switched to it), which rows are fully blocked?"""
    view = cfg if mask == cfg.mask else _changed(cfg, f"mask:{mask}")
    return _blocked(cfg, mask, run_trace(view))


def _changed(cfg: AttentionConfig, change: str) -> AttentionConfig:
    try:
        return apply_change(cfg, change)
    except ConfigError as err:
        raise QuestionError(f"That change does not apply to this lesson: {err}") from None


def _check_head(trace, head: int):
    H = trace.weights.shape[0]
    if not (0 <= head < H):
        raise QuestionError(f"There is no head {head + 1}: the lesson has {H}.")


def _check_row(trace, head: int, query: int):
    _check_head(trace, head)
    T = trace.weights.shape[1]
    if not (0 <= query < T):
        raise QuestionError(f"There is no query {query + 1}: the lesson has {T} tokens.")
    if trace.blocked_rows[query]:
        raise QuestionError(f"Query “{token_labels(trace.tokens)[query]}” may attend to no key, so its row has no "
                            "largest weight to ask about.")


def _focus(cfg: AttentionConfig, trace, h: int, q: int) -> Question:
    if len(trace.tokens) == 1:
        raise QuestionError(ONE_TOKEN)
    _check_row(trace, h, q)
    labels = token_labels(trace.tokens)
    row = trace.weights[h, q].astype(float)  # (T,)
    answer = tuple(int(i) for i in np.flatnonzero(row >= row.max() - TIE))
    return Question(
        kind="focus", lesson=cfg.to_json(), change="", head=h, query=q,
        prompt=f"In head {h + 1}, which key does query “{labels[q]}” attend to most?",
        choices=tuple(labels), answer=answer, multiple=False,
        reason=focus_reason(labels, row, answer, h, q, trace.k[h]),
        numbers=tuple(float(w) for w in row))


def change_bucket(delta: float) -> int:
    """The index in BUCKETS of a change Δ of the largest weight."""
    steps = sum(abs(delta) >= e for e in EDGES)  # 0: stays, 1..3: ever larger ranges
    return 3 if steps == 0 else 3 + steps if delta > 0 else 3 - steps


def _change(cfg: AttentionConfig, change: str, before, after, h: int, q: int) -> Question:
    _check_row(before, h, q)
    if h >= after.weights.shape[0]:
        raise QuestionError(f"After that change the lesson has {after.weights.shape[0]} heads: "
                            f"there is no head {h + 1}.")
    if after.blocked_rows[q]:
        raise QuestionError(f"After that change query “{token_labels(after.tokens)[q]}” may attend to no key, so its "
                            "row has no largest weight to compare.")
    labels = token_labels(before.tokens)
    a, b = float(before.weights[h, q].max()), float(after.weights[h, q].max())
    return Question(
        kind="change", lesson=cfg.to_json(), change=change, head=h, query=q,
        prompt=f"In head {h + 1}, if {describe_change(cfg, change)}, what happens to the largest weight in the row "
               f"of query “{labels[q]}”, whichever key holds it? Each range includes its lower end.",
        choices=BUCKETS, answer=(change_bucket(b - a),), multiple=False,
        reason=change_reason(before, after, h, q), numbers=(a, b))


def _blocked(cfg: AttentionConfig, mask: str, view) -> Question:
    labels = token_labels(view.tokens)
    rows = [int(i) for i in np.flatnonzero(view.blocked_rows)]
    if mask == cfg.mask:
        lead = "with no mask" if mask == "none" else f"with the lesson's {mask} mask"
    else:
        lead = f"if {describe_change(cfg, f'mask:{mask}')}"
    return Question(
        kind="blocked", lesson=cfg.to_json(), change=mask, head=0, query=-1,
        prompt=f"{lead[:1].upper()}{lead[1:]}, which query rows are fully blocked (may attend to no key at all)? "
               f"Tick each one, or “{NO_ROW}”.",
        choices=(*labels, NO_ROW), answer=tuple(rows) or (len(labels),), multiple=True,
        reason=blocked_reason(labels, view.mask.sum(-1), rows, lead),
        numbers=tuple(float(n) for n in view.mask.sum(-1)))


def fair_focus_question(cfg: AttentionConfig, head: int, rng: random.Random) -> Question:
    """A focus question about head `head`, its row drawn by `rng`, among the rows with a clear winner if any."""
    if cfg.num_tokens == 1:
        raise QuestionError(ONE_TOKEN)
    trace = run_trace(cfg)
    return _focus(cfg, trace, head, _pick(rng, *_focus_rows(trace, head)))


def fair_change_question(cfg: AttentionConfig, head: int, rng: random.Random, change: str = "") -> Question:
    """A change question about head `head`: `change`, or one drawn by `rng`; the row drawn among those whose
    change is not at a range edge, if any."""
    if cfg.num_tokens == 1:
        raise QuestionError(ONE_TOKEN)
    options = [c for c in available_changes(cfg) if c != "seed+1"]
    if not (change or options):
        raise QuestionError("No setting of this lesson can be changed for a question.")
    change = change or rng.choice(options)
    trace, after = run_trace(cfg), run_trace(_changed(cfg, change))
    return _change(cfg, change, trace, after, head, _pick(rng, *_change_rows(trace, after, head)))


def _focus_rows(trace, h: int):
    _check_head(trace, h)
    rows = [q for q in range(len(trace.tokens)) if trace.mask[q].sum() >= 2 and not trace.blocked_rows[q]]
    top2 = {q: np.sort(trace.weights[h, q])[-2:] for q in rows}
    clear = [q for q in rows if top2[q][1] - top2[q][0] >= CLEAR_MARGIN]
    return clear, rows, f"No query of head {h + 1} may attend to two keys or more: nothing to predict."


def _change_rows(before, after, h: int):
    if h >= min(before.weights.shape[0], after.weights.shape[0]):
        raise QuestionError(f"Head {h + 1} is not in both lessons: pick a lower head.")
    rows = [q for q in range(len(before.tokens)) if not (before.blocked_rows[q] or after.blocked_rows[q])]
    delta = {q: abs(float(after.weights[h, q].max() - before.weights[h, q].max())) for q in rows}
    fair = [q for q in rows if min(abs(delta[q] - e) for e in EDGES) >= EDGE_MARGIN]
    return fair, rows, "Every row is fully blocked before or after that change: nothing to compare."


def _pick(rng: random.Random, preferred: list, fallback: list, message: str) -> int:
    if not (preferred or fallback):
        raise QuestionError(message)
    return rng.choice(preferred or fallback)
