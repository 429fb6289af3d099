"""What each trained head does on a sentence, measured from its weights rather than claimed.

Layers and heads are counted from 1, as a person says them ("layer 1, head 3"); the arrays
below are indexed from 0, so layer 1 head 3 is `patterns["previous"][0, 2]`.
"""

import numpy as np

PATTERNS = {
    "previous": "mean weight a word piece puts on the piece just before it",
    "next": "mean weight a word piece puts on the piece just after it",
    "cls": "mean weight a word piece puts on [CLS]",
    "sep": "mean weight a word piece puts on [SEP]",
    "self": "mean weight a word piece puts on itself",
    "entropy": "mean entropy of a word piece's weights, in nats (0 = all on one piece)",
    "spread": "evenness: that entropy divided by ln T, the entropy of a uniform row (1 = evenly spread)",
    "one_word": "share of word pieces whose largest weight on a word piece goes to the piece most of them pick",
}


def head_patterns(weights: np.ndarray) -> dict[str, np.ndarray]:
    """For weights (L, H, T, T) of one sentence "[CLS] w_1 … w_n [SEP]" (T = n + 2, n ≥ 1):
    each of `PATTERNS` as an (L, H) array.

    Every measure is a mean over the query rows of the sentence's word pieces, i = 1..T-2;
    the rows of [CLS] (i = 0) and [SEP] (i = T-1) are left out: they are not words, and one
    has no previous piece, the other no next one. For row i:
    - previous: w[i, i-1] (for the first word piece, the previous piece is [CLS]);
    - next: w[i, i+1] (for the last word piece, the next piece is [SEP]);
    - cls: w[i, 0]; sep: w[i, T-1]; self: w[i, i];
    - entropy: -Σ_j w[i, j] ln w[i, j] (0 · ln 0 = 0); spread: the mean entropy ÷ ln T;
    - one_word: row i's top word piece is argmax_j w[i, j] over j = 1..T-2 ([CLS] and [SEP] aside);
      the share of rows whose top piece is the one most rows pick (by position; a tie picks the earlier).
    Pass `TrainedTrace.weights`, or one layer's `weights[None]` for a (1, H) result.
    """
    w = np.asarray(weights, dtype=np.float64)
    T = w.shape[-1]
    if T < 3:
        raise ValueError(f"a sentence needs [CLS], a word piece and [SEP]: T = {T}")
    rows = np.arange(1, T - 1)  # the word pieces' query rows
    words = w[..., rows, :]  # (L, H, n, T)
    logs = np.log(np.where(words > 0, words, 1.0))  # 0 · ln 0 counts as 0
    entropy = -(words * logs).sum(-1).mean(-1)
    return {
        "previous": w[..., rows, rows - 1].mean(-1),
        "next": w[..., rows, rows + 1].mean(-1),
        "cls": words[..., 0].mean(-1),
        "sep": words[..., -1].mean(-1),
        "self": w[..., rows, rows].mean(-1),
        "entropy": entropy,
        "spread": entropy / np.log(T),
        "one_word": _picks(words[..., 1:-1]).max(-1) / len(rows),
    }


def _picks(rows: np.ndarray) -> np.ndarray:
    """(..., n, n) word rows over word columns -> (..., n): how many rows have each column as their top."""
    top = rows.argmax(-1)  # (..., n)
    return (top[..., None] == np.arange(rows.shape[-1])).sum(-2)


def one_word(weights: np.ndarray, tokens: list) -> tuple[str, int, int]:
    """For one head's weights (T, T): the word piece most word pieces' rows weigh most ([CLS] and
    [SEP] aside), how many rows do, and how many rows there are."""
    picks = _picks(np.asarray(weights)[1:-1, 1:-1])
    j = int(picks.argmax())
    return tokens[j + 1], int(picks[j]), len(picks)


def top_word(weights: np.ndarray, tokens: list, query: str) -> tuple[str, float]:
    """For one head's weights (T, T): the word piece that the first `query` piece weighs most,
    [CLS] and [SEP] left out, and that weight."""
    i = tokens.index(query)
    row = np.asarray(weights)[i, 1:-1]  # the word pieces' columns
    j = int(np.argmax(row))
    return tokens[j + 1], float(row[j])


def strongest(patterns: dict[str, np.ndarray], name: str, count: int = 5) -> list[tuple[int, int, float]]:
    """The `count` heads with the highest value of pattern `name` (lowest, for entropy and spread), as
    (layer, head, value) counted from 1."""
    values = patterns[name]
    order = np.argsort(values, axis=None)
    order = order if name in ("entropy", "spread") else order[::-1]
    L, H = np.unravel_index(order[:count], values.shape)
    return [(int(l_) + 1, int(h) + 1, float(values[l_, h])) for l_, h in zip(L, H, strict=True)]


# A causal model (GPT-2) adds no [CLS] or [SEP], and its token i sees only tokens 0..i: "next" and
# the last token are out of its reach, and a uniform row over what it sees has entropy ln(i + 1).
CAUSAL_PATTERNS = {
    "previous": "mean weight a token puts on the token just before it",
    "first": "mean weight a token puts on the sentence's first token",
    "self": "mean weight a token puts on itself",
    "entropy": "mean entropy of a token's weights, in nats (0 = all on one token)",
    "spread": "evenness: mean of each row's entropy divided by ln(i + 1), the entropy of a uniform row over "
              "the i + 1 tokens it sees (1 = evenly spread)",
}


def causal_patterns(weights: np.ndarray) -> dict[str, np.ndarray]:
    """For a causal model's weights (L, H, T, T) of T ≥ 2 tokens: each of `CAUSAL_PATTERNS` as an (L, H)
    array, a mean over the query rows i = 1..T-1 (row 0 has one key to see: itself, with weight 1)."""
    w = np.asarray(weights, dtype=np.float64)
    T = w.shape[-1]
    if T < 2:
        raise ValueError(f"a causal sentence needs two tokens: T = {T}")
    rows = np.arange(1, T)
    seen = w[..., rows, :]  # (L, H, T-1, T)
    entropy = -(seen * np.log(np.where(seen > 0, seen, 1.0))).sum(-1)  # (L, H, T-1)
    return {
        "previous": w[..., rows, rows - 1].mean(-1),
        "first": seen[..., 0].mean(-1),
        "self": w[..., rows, rows].mean(-1),
        "entropy": entropy.mean(-1),
        "spread": (entropy / np.log(rows + 1)).mean(-1),
    }
