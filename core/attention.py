"""Scaled dot-product attention: softmax(Q·Kᵀ / √d_k) · V.

`attention` is the formula as a student reads it, one step a line. `fast_attention` gives the
same numbers with less memory and time (tests hold the two together, and both to
`F.scaled_dot_product_attention`); the lab's modules run it.
"""

import math

import torch


def attention(q, k, v, mask=None, scale=None):
    """Return `(output, weights)` for queries q (..., T_q, d_k), keys k (..., T_k, d_k), values v.

    `mask` is a keep-mask broadcastable to (..., T_q, T_k): True (or 1) = may attend.
    `scale` multiplies the scores; by default 1/√d_k. A query whose keys are all blocked
    gets weights 0 and output 0, never NaN (`F.scaled_dot_product_attention`, which returns no
    weights, gives such a row output 0 too, since PyTorch 2.5).
    """
    scale = 1.0 / math.sqrt(q.size(-1)) if scale is None else scale
    scores = q @ k.transpose(-2, -1)  # (..., T_q, T_k): each query's dot product with each key
    scaled = scores * scale  # (..., T_q, T_k)
    keep = torch.ones_like(scaled, dtype=torch.bool) if mask is None else mask.bool()  # (..., T_q, T_k)
    masked = scaled.masked_fill(~keep, float("-inf"))  # (..., T_q, T_k): e^-inf = 0, no weight
    weights = torch.softmax(masked, dim=-1)  # (..., T_q, T_k): each row sums to 1
    weights = weights.masked_fill(blocked_rows(keep).unsqueeze(-1), 0.0)  # no key to see: 0/0 = NaN, made 0
    return weights @ v, weights  # (..., T_q, d_v), (..., T_q, T_k)


def blocked_rows(mask: torch.Tensor) -> torch.Tensor:
    """Queries that may attend to no key at all; their weights and output are 0."""
    return ~mask.any(dim=-1)  # (..., T)


def fast_attention(q, k, v, mask=None, scale=None, steps=None):
    """`attention`, the same arguments and numbers, computed faster.

    Without autograd, and with no steps to keep, each step writes over the scores: one buffer, not
    four. Short rows take a spelled-out softmax and narrow values a transposed product (below).
    `steps`: a dict that receives the tensors this call used, by the trace's names: `scores`,
    `scaled` and `masked` (what is shown is what went into the softmax, bit for bit).
    """
    scale = 1.0 / math.sqrt(q.size(-1)) if scale is None else scale
    scores = q @ k.transpose(-2, -1)  # (..., T_q, T_k), a fresh tensor: ours to overwrite
    autograd = torch.is_grad_enabled() and scores.requires_grad
    in_place = not autograd and steps is None
    scaled = scores.mul_(scale) if in_place else scores * scale  # (..., T_q, T_k)
    keep = None if mask is None else mask.bool()
    masked = scaled if keep is None else _fill(scaled, ~keep, float("-inf"), in_place)  # (..., T_q, T_k)
    if steps is not None:
        steps.update(scores=scores, scaled=scaled, masked=masked)
    weights = torch.softmax(masked, dim=-1) if autograd else softmax_(masked if in_place else masked.clone())
    # softmax of a row of -inf is 0/0 = NaN; only pay for the clean-up when such a row exists.
    if keep is not None:
        blocked = blocked_rows(keep).unsqueeze(-1)  # (..., T_q, 1)
        if bool(blocked.any()):
            weights = _fill(weights, blocked, 0.0, not autograd)
    return _weighted_sum(weights, v), weights  # (..., T_q, d_v), (..., T_q, T_k)


def softmax_(scores):
    """softmax over the last dimension, written over `scores`: the one `fast_attention` takes.

    PyTorch's fused CPU kernel is slow on rows shorter than its vector width, where lessons live:
    there the three steps spelled out are faster (docs/performance.md).
    """
    if scores.is_cpu and scores.size(-1) < 16:
        scores.sub_(scores.amax(dim=-1, keepdim=True)).exp_()
        return scores.div_(scores.sum(dim=-1, keepdim=True))
    return torch.softmax(scores, dim=-1, out=scores)


def _weighted_sum(weights, v):
    """weights @ v. CPU BLAS is slow at a narrow product (d_v far below T_k): there the
    transposed product (vᵀ · weightsᵀ)ᵀ gives the same numbers faster (docs/performance.md)."""
    if v.is_cpu and v.size(-1) <= 16 and weights.size(-1) >= 32:
        return (v.transpose(-2, -1) @ weights.transpose(-2, -1)).transpose(-2, -1)
    return weights @ v


def _fill(t, where, value, in_place):
    """t with value where `where` holds; written into t when allowed and shapes agree."""
    if in_place:
        try:
            return t.masked_fill_(where, value)
        except RuntimeError:  # `where` has a batch dimension that t lacks: needs a new tensor
            pass
    return t.masked_fill(where, value)
