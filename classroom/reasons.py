"""Why a question's answer is right, in the terms its prompt used: the reveal's sentence, read from the same
trace arrays as the answer key (classroom/questions.py makes the questions; these make their reasons).

Ties decide some answers, so a reason names them: keys tied for the largest weight (each is right), keys tied for
second place (each with its own weight), and keys that share the row's largest score, with why (one key vector) and
the bound that sets (n keys sharing the top get at most 1/n each).
"""

import numpy as np

from classroom.question import join_words
from core.trace import token_labels

TIE = 0.005  # keys whose weights differ by less than this tie (the chart prints 2 decimals)
NAMED = 4  # the most keys tied for second place that a reveal names one by one
EDGES = (0.01, 0.1, 0.3)  # the edges of a change question's ranges


def focus_reason(labels, row, answer, h: int, q: int, keys) -> str:
    where = f"in head {h + 1}, query “{labels[q]}”"
    if len(answer) > 1:
        named = join_words([f"“{labels[i]}” ({row[i]:.3f})" for i in answer])
        return (f"{where} gives its largest weights to {named}, equal to within {TIE}, so each of them is right"
                + _shared_vectors(labels, keys, answer))
    top = answer[0]
    text = f"{where} gives its largest weight, {row[top]:.3f}, to key “{labels[top]}”"
    rest = np.delete(np.arange(len(row)), top)
    if (row[rest] == 0).all():
        return text + ", and 0 to every other key"
    if row[rest].max() < 0.0005:
        return text + ", and 0.000 (to 3 decimals) to every other key"
    return text + _second(labels, row, rest, keys)


def _second(labels, row, rest, keys) -> str:
    """The runner-up of a row whose largest weight has no tie: the largest weight of the other keys, and every key
    within TIE of it (a tie for second place), each with its own weight; too many such keys are summed up."""
    order = rest[np.argsort(-row[rest], kind="stable")]  # by weight, ties in position order
    second = order[row[order] >= row[order[0]] - TIE]
    if len(second) == 1:
        return f"; the next largest, {row[second[0]]:.3f}, goes to “{labels[second[0]]}”"
    if len(second) > NAMED:  # near-zero weights, all within TIE of each other: name the largest alone
        others = row[order[1:]].max()
        bound = "0.000 (to 3 decimals)" if others < 0.0005 else f"at most {others:.3f}"
        return (f"; the next largest, {row[order[0]]:.3f}, goes to “{labels[order[0]]}”, and each of the other "
                f"{len(order) - 1} keys gets {bound}")
    named = join_words([f"“{labels[i]}” ({row[i]:.3f})" for i in second])
    return f"; the next largest weights, equal to within {TIE}, go to {named}" + _shared_vectors(labels, keys, second)


def _shared_vectors(labels, keys, tied) -> str:
    """Why keys tie when they are the same vector: keys with one key vector (to float rounding) get the same
    weight from every query. "The" and "the" are one: a word's vector ignores case."""
    groups = []
    for i in tied:
        group = next((g for g in groups if np.allclose(keys[g[0]], keys[i], rtol=1e-5, atol=1e-6)), None)
        (group.append(int(i)) if group is not None else groups.append([int(i)]))
    same = [g for g in groups if len(g) > 1]
    if not same:
        return ""
    parts = "; ".join(join_words([f"“{labels[i]}”" for i in g]) for g in same)
    return (f" ({parts} have the same key vector in this head, so every query that may see both gives them the same "
            "weight)")


def change_reason(before, after, h: int, q: int) -> str:
    la, lb = token_labels(before.tokens), token_labels(after.tokens)
    wa, wb = before.weights[h, q].astype(float), after.weights[h, q].astype(float)  # (T,), (T',)
    a, b = wa.max(), wb.max()
    tops = [_top(t, h, q) for t in (before, after)]  # (keys sharing the largest score, gap to the next lower score)
    text = (f"in head {h + 1}, the largest weight in the row of query “{la[q]}” goes from {a:.3f} "
            f"({_holders(la, tops[0][0], wa)}) to {b:.3f} ({_holders(lb, tops[1][0], wb)}), ")
    d = b - a
    if d == 0:
        text += "so it does not change"
    elif abs(d) < EDGES[0]:
        text += f"so it stays within 0.01 (it changes by {amount(d)})"
    else:
        text += f"{'up' if d > 0 else 'down'} by {amount(d)}"
    held = [int(k) for k in tops[0][0] if k < len(wb) and la[k] == lb[k]]  # the key(s) that held it before
    if held and not set(held) & {int(k) for k in tops[1][0]}:  # another key holds the largest weight now
        if len(held) == 1:
            text += f" (a different key: “{la[held[0]]}” itself now gets {wb[held[0]]:.3f})"
        else:  # a tie before: each of the keys that shared it, by name
            text += (f" (a different key: {join_words([f'“{la[k]}”' for k in held])}, which shared it, now get "
                     f"{join_words([f'{wb[k]:.3f}' for k in held])})")
    renormalised = _renormalised(before, after, h, q)
    if renormalised:
        return text + renormalised
    text += _shared_top(before, after, h, tops)
    gaps = [_gap(t, h, q) for t in (before, after)]
    if None not in gaps:
        if len(tops[0][0]) > 1 or len(tops[1][0]) > 1:
            return text + (f"; among the keys it may attend to, the gap between the largest scaled score and the next "
                           f"lower one goes from {_number(tops[0][1])} to {_number(tops[1][1])}")
        return text + (f"; among the keys it may attend to, the gap between the two largest scaled scores goes "
                       f"from {gaps[0]:.3f} to {gaps[1]:.3f}")
    if gaps[1] is None:
        return text + f", since “{lb[int(wb.argmax())]}” is the only key it may attend to after the change"
    return text + f", since “{la[int(wa.argmax())]}” was the only key it could attend to before the change"


def _top(trace, h: int, q: int):
    """The keys query q may attend to whose scaled score equals the row's largest (to float rounding), and the
    gap from that score down to the next lower one (None if every key it sees has that score)."""
    seen = np.flatnonzero(trace.mask[q])
    s = trace.scaled[h, q][seen].astype(float)
    level = np.isclose(s, s.max(), rtol=1e-6, atol=1e-6)
    below = s[~level]
    return seen[level], (float(s.max() - below.max()) if below.size else None)


def _holders(labels, tied, weights) -> str:
    if len(tied) == 1:
        return f"key “{labels[tied[0]]}”"
    return f"keys {join_words([f'“{labels[i]}”' for i in tied])}, {weights[tied[0]]:.3f} each"


def _shared_top(before, after, h: int, tops) -> str:
    """When several keys share the row's largest score, before or after: why (one key vector, or equal scores), and
    what it bounds: n keys with the largest weight each get at most 1/n of the row."""
    parts = []
    for when, trace, (tied, _) in (("before the change", before, tops[0]), ("after it", after, tops[1])):
        if len(tied) < 2:
            continue
        labels = token_labels(trace.tokens)
        k = trace.k[h][tied]
        same = np.allclose(k, k[0], rtol=1e-5, atol=1e-6)
        why = "have the same key vector in this head, so they get the same score" if same else "get the same score"
        parts.append((join_words([f"“{labels[i]}”" for i in tied]), why, len(tied), when))
    if not parts:
        return ""
    if len(parts) == 2 and parts[0][:3] == parts[1][:3]:
        parts = [(*parts[0][:3], "before and after the change")]
    return "".join(f"; {names} {why} {when}: they share the largest weight, and "
                   + (f"none of the {n} can get more than 1/{n} = {1 / n:.3f}" if n > 2 else
                      "neither can get more than 1/2 = 0.500") + " of the row" for names, why, n, when in parts)


def _number(x) -> str:
    return "none" if x is None else f"{x:.3f}"


def _renormalised(before, after, h: int, q: int) -> str:
    """The reason when the change only blocks or unblocks keys of this row (a mask): the scores of the keys seen
    before and after are unchanged, and the softmax shares the row's whole 1 among the keys it may see."""
    n = min(len(before.tokens), len(after.tokens))
    if list(before.tokens[:n]) != list(after.tokens[:n]):
        return ""
    T = max(len(before.tokens), len(after.tokens))
    seen_b, seen_a = np.zeros(T, bool), np.zeros(T, bool)
    seen_b[: len(before.tokens)], seen_a[: len(after.tokens)] = before.mask[q], after.mask[q]
    both, lost, gained = seen_b & seen_a, seen_b & ~seen_a, seen_a & ~seen_b
    sb, sa = before.scaled[h, q].astype(float), after.scaled[h, q].astype(float)
    common = np.flatnonzero(both)
    if not common.size or not np.allclose(sb[common], sa[common], rtol=1e-6, atol=1e-6):  # the scores moved
        return ""
    if not (lost.any() or gained.any()):
        added = len(after.tokens) - len(before.tokens)
        return ("; it may attend to the same keys as before, with the same scores"
                + (f" (the {added} tokens added are blocked for it)" if added > 0 else ""))
    la, lb = token_labels(before.tokens), token_labels(after.tokens)
    wb, wa = before.weights[h, q].astype(float), after.weights[h, q].astype(float)
    held, holds = wb[common].sum(), wa[common].sum()  # the share of the keys seen both times, before and after
    j = int(wa.argmax())
    text = "; the mask leaves the score of every key the query still sees as it was"
    if lost.any():
        text += f": it blocks {join_words([f'“{la[i]}”' for i in np.flatnonzero(lost)])}"
    if gained.any():
        seen = join_words([f"“{lb[i]}”" for i in np.flatnonzero(gained)])
        text += f"{' and' if lost.any() else ':'} it lets the query see {seen}"
    text += (f", and the softmax shares the whole 1 among the keys it may see. The keys it sees both times held "
             f"{held:.3f} of its weight and now hold {holds:.3f}")
    if both[j]:
        return text + (f", so each of their weights is multiplied by {holds:.3f} / {held:.3f}: “{lb[j]}” gets "
                       f"{wb[j]:.3f} × {holds:.3f} / {held:.3f} ≈ {wa[j]:.3f}")
    return text + f", and the largest weight now goes to “{lb[j]}”, a key it could not see before"


def _gap(trace, h: int, q: int):
    """Largest minus second-largest scaled score among the keys the query may attend to, or None."""
    allowed = np.sort(trace.scaled[h, q][trace.mask[q]].astype(float))  # (keys,)
    return None if len(allowed) < 2 else allowed[-1] - allowed[-2]


def amount(d: float) -> str:
    """|Δ| printed with enough digits that it never reads as a range edge it is not (0.0996, not 0.100)."""
    a = abs(d)
    for digits in range(3, 8):
        text = f"{a:.{digits}f}"
        if float(text) not in EDGES or a in EDGES:
            return text
    return repr(a)


def blocked_reason(labels, keys, rows, lead: str) -> str:
    if rows:
        names = join_words([f"“{labels[i]}”" for i in rows])
        rows_, their = ("rows", "their") if len(rows) > 1 else ("row", "its")
        return f"{lead}, {rows_} {names} may attend to no key, so {their} weights are all 0"
    fewest = int(np.argmin(keys))
    n = int(keys[fewest])
    if int(np.max(keys)) == n:  # every row sees as many keys: no row is the fewest
        return f"{lead}, every row may attend to {n} key{'s' if n != 1 else ''}, so no row is fully blocked"
    return (f"{lead}, every row may attend to at least one key (the fewest, {n} key{'s' if n != 1 else ''}, "
            f"for row “{labels[fewest]}”), so no row is fully blocked")
