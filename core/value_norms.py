"""Weight is not contribution: what each head passes on from each key (Kobayashi et al. 2020,
"Attention is Not Only a Weight: Analyzing Transformers with Vector Norms").

A head's share of layer output for query i is Σ_j α_ij f(x_j) with f(x_j) = (x_j W_V^h + b_V^h) W_O^h:
the key's value, *its value bias included* (Kobayashi et al. include it), through the head's own rows
of W_O. W_O's bias is added once per token, not per key, so it is left out, as in the paper. Because
α_ij ≥ 0, ‖α_ij f(x_j)‖ = α_ij ‖f(x_j)‖: a large weight on a key whose transformed value is short
passes on little. Layers and heads are counted from 1 in prose; the arrays are indexed from 0.
"""

from dataclasses import dataclass

import numpy as np

NORM_PATTERNS = {
    "cls_share": "mean share of the norm-weighted contribution ‖α·f(x)‖ that a word piece takes from [CLS]",
    "sep_share": "mean share of the norm-weighted contribution ‖α·f(x)‖ that a word piece takes from [SEP]",
    "cls_shorter": "a word piece's mean ‖f(x)‖ divided by [CLS]'s: how many times shorter [CLS]'s transformed value is",
}


def value_norms(layers) -> np.ndarray:
    """‖f(x_j)‖ for every layer, head and key: (L, H, T) from L AttentionTraces (`TrainedTrace.layers`).

    Each trace's `v` (H, T, d_k) is x·W_V + b_V split by head; `w_o` (D, D) maps the concatenated
    heads to the output (x·W convention), so head h owns its rows h·d_k … (h+1)·d_k − 1.
    """
    out = []
    for t in layers:
        H, T, d_k = t.v.shape
        w_o = np.asarray(t.w_o, dtype=np.float64).reshape(H, d_k, -1)  # (H, d_k, D): each head's rows of W_O
        f = np.einsum("htk,hkd->htd", np.asarray(t.v, dtype=np.float64), w_o)  # (H, T, D) = f(x_j) per head
        out.append(np.linalg.norm(f, axis=-1))  # (H, T)
    return np.stack(out)  # (L, H, T)


def weighted_norms(weights: np.ndarray, norms: np.ndarray) -> np.ndarray:
    """‖α_ij f(x_j)‖ = α_ij ‖f(x_j)‖: weights (L, H, T, T) and norms (L, H, T) -> (L, H, T, T)."""
    return np.asarray(weights, dtype=np.float64) * np.asarray(norms, dtype=np.float64)[..., None, :]


def contribution_shares(weights: np.ndarray, norms: np.ndarray) -> np.ndarray:
    """Each row of ‖α_ij f(x_j)‖ divided by its sum: which keys a query's head output is made of, on
    the same 0..1 scale as the weights (L, H, T, T). A row with no contribution stays 0."""
    wn = weighted_norms(weights, norms)
    total = wn.sum(-1, keepdims=True)
    return np.divide(wn, total, out=np.zeros_like(wn), where=total > 0)


@dataclass(frozen=True, eq=False)
class HeadNorms:
    """One head's norm view on one sentence, the two maps the Trained heads page draws side by side and the
    value lengths its caption quotes. T word pieces."""

    weights: np.ndarray  # (T, T) α_ij, the head's attention weights
    lengths: np.ndarray  # (T,) ‖f(x_j)‖, each key's transformed value's length
    shares: np.ndarray  # (T, T) α_ij ‖f(x_j)‖ ÷ its row's sum: which keys query i's head output is made of


def head_norms(weights: np.ndarray, norms: np.ndarray, layer: int, head: int) -> HeadNorms:
    """Layer `layer`, head `head` (counted from 1) of every layer's weights (L, H, T, T) and `value_norms` (L, H, T):
    the numbers of the page's norm view and of the handout's, from one place."""
    w, lengths = weights[layer - 1, head - 1], norms[layer - 1, head - 1]  # (T, T), (T,)
    shares = contribution_shares(w[None, None], lengths[None, None])[0, 0]  # (T, T)
    return HeadNorms(np.asarray(w, dtype=np.float64), np.asarray(lengths, dtype=np.float64), shares)


def norm_patterns(weights: np.ndarray, norms: np.ndarray) -> dict[str, np.ndarray]:
    """Each of `NORM_PATTERNS` as an (L, H) array, for one sentence "[CLS] w_1 … w_n [SEP]".

    Means are over the word pieces' query rows (i = 1..T-2), as in `head_patterns`; the word
    pieces' mean ‖f(x)‖ is over keys 1..T-2.
    """
    T = np.asarray(weights).shape[-1]
    if T < 3:
        raise ValueError(f"a sentence needs [CLS], a word piece and [SEP]: T = {T}")
    shares = contribution_shares(weights, norms)[..., 1:-1, :]  # (L, H, n, T): the word pieces' rows
    norms = np.asarray(norms, dtype=np.float64)
    return {
        "cls_share": shares[..., 0].mean(-1),
        "sep_share": shares[..., -1].mean(-1),
        "cls_shorter": norms[..., 1:-1].mean(-1) / norms[..., 0],
    }
