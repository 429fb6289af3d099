"""Scaled dot-product attention: softmax(Q·Kᵀ / √d_k) · V."""

import math

import torch


def attention(q, k, v, mask=None, scale=None):
    """Return `(output, weights)` for queries q (..., T_q, d_k), keys k (..., T_k, d_k), values v.

    `mask` is a keep-mask broadcastable to (..., T_q, T_k): True (or 1) = may attend.
    `scale` multiplies the scores; by default 1/√d_k. A query whose keys are all blocked
    gets weights 0 and output 0 (as `F.scaled_dot_product_attention` does), never NaN.
    """
    scale = 1.0 / math.sqrt(q.size(-1)) if scale is None else scale
    # Folding the scale into q costs T·d_k multiplications instead of T·T.
    scores = (q * scale) @ k.transpose(-2, -1)  # (..., T_q, T_k)
    if mask is not None:
        keep = mask.bool()
        scores = scores.masked_fill(~keep, float("-inf"))
    weights = torch.softmax(scores, dim=-1)  # (..., T_q, T_k)
    if mask is not None:
        empty = ~keep.any(dim=-1, keepdim=True)  # (..., T_q, 1)
        # softmax of a row of -inf is 0/0 = NaN; only pay for the clean-up when it happens.
        if bool(empty.any()):
            weights = weights.masked_fill(empty, 0.0)
    return weights @ v, weights  # (..., T_q, d_v), (..., T_q, T_k)
