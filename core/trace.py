"""`AttentionTrace`: every intermediate of one attention layer on one sequence, as numpy.

Both front ends (the dashboard's charts and the manim scenes) read these arrays and nothing
else, so a number on screen and a number in a video are the same number. Also here: a trace's
token labels, and how flat a head's rows are (`row_flatness`).
"""

import unicodedata
from dataclasses import dataclass, field, replace

import numpy as np


def shown_token(token: str) -> str:
    """A token of punctuation or symbols only ("." "," "—") in angle brackets, "⟨.⟩": a bare full
    stop is a speck on a chart's axis and next to invisible on a projector."""
    if token and all(unicodedata.category(ch)[0] in "PS" for ch in token):
        return f"⟨{token}⟩"
    return token


def token_labels(tokens) -> list[str]:
    """ "1 the", "2 cat", ... "5 the", "7 ⟨.⟩": a trace's tokens numbered, so repeated words stay separate
    rows and columns (the charts' axes, and the choices of a question); punctuation marked (`shown_token`)."""
    return [f"{i + 1} {shown_token(t)}" for i, t in enumerate(tokens)]


@dataclass(frozen=True, eq=False)
class AttentionTrace:
    tokens: list  # T labels
    x: np.ndarray  # (T, D) the input after positions (hand-entered lessons: Q as entered)
    q: np.ndarray  # (H, T, d_k) queries per head (after rotary, if any)
    k: np.ndarray  # (H, T, d_k) keys per head (after rotary, if any)
    v: np.ndarray  # (H, T, d_k) values per head
    scores: np.ndarray  # (H, T, T) q·kᵀ
    scaled: np.ndarray  # (H, T, T) scores × scale (÷√d_k and ÷temperature)
    mask: np.ndarray  # (T, T) keep-mask, True = may attend
    masked: np.ndarray  # (H, T, T) scaled, −inf where blocked
    weights: np.ndarray  # (H, T, T) softmax; rows sum to 1, or are all 0 when blocked
    heads: np.ndarray  # (H, T, d_k) weights @ v
    concat: np.ndarray  # (T, D) heads side by side
    output: np.ndarray  # (T, D) concat @ W_O (+ bias)
    w_q: np.ndarray  # (D, D) q = x @ w_q (+ bias); same for k, v, o
    w_k: np.ndarray
    w_v: np.ndarray
    w_o: np.ndarray
    scale: float  # the factor the scores were multiplied by
    blocked_rows: np.ndarray  # (T,) True where a query may attend to no key
    config: object = field(default=None)  # the AttentionConfig, when made by run_trace

    @property
    def num_heads(self) -> int:
        return self.q.shape[0]

    @property
    def d_k(self) -> int:
        return self.q.shape[-1]

    @property
    def mean_weights(self) -> np.ndarray:
        """The weights averaged over heads (T, T), as `nn.MultiheadAttention` reports by default."""
        return self.weights.mean(axis=0)

    def with_config(self, config) -> "AttentionTrace":
        return replace(self, config=config)


def row_flatness(trace, h: int) -> dict | None:
    """How flat head h's rows are: over the rows that may see at least two keys, the mean span
    of the scaled scores over the keys they see (largest minus smallest; softmax makes the
    largest weight e^span times the smallest), the mean largest weight, the mean number of keys a
    row sees, and "flat": the mean of 1/keys, the weight a perfectly flat row gives each key, on
    average (under a causal mask rows see different numbers of keys, and the mean of 1/keys is
    not 1/(mean keys)). None: no such row."""
    spans, tops, keys = [], [], []
    for i in range(trace.mask.shape[0]):
        seen = np.flatnonzero(trace.mask[i])
        if len(seen) < 2:
            continue
        row = trace.scaled[h, i, seen]
        spans.append(float(row.max() - row.min()))
        tops.append(float(trace.weights[h, i, seen].max()))
        keys.append(len(seen))
    if not spans:
        return None
    return {"span": float(np.mean(spans)), "top": float(np.mean(tops)), "keys": float(np.mean(keys)),
            "flat": float(np.mean(1 / np.asarray(keys)))}
