"""Keep-masks: True means "this query may attend to this key".

That is the polarity of `F.scaled_dot_product_attention`, and of the article's `attention()`
(`mask == 0 -> -inf`, fed `tril(ones)` by its MultiHead). The article's masking listing uses the
opposite (`triu(ones, 1)` marks the blocked cells), as does `nn.MultiheadAttention` (True =
blocked); the two helpers at the bottom are the one place where we convert.
"""

import torch


def causal_mask(T: int, device=None) -> torch.Tensor:
    """Query i may look at keys 0..i: the lower triangle, diagonal included."""
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()  # (T, T)


def padding_mask(lengths, T: int, device=None) -> torch.Tensor:
    """Sequence b has `lengths[b]` real tokens; every query may look only at those keys."""
    lengths = torch.as_tensor(lengths, device=device).reshape(-1, 1, 1)  # (B, 1, 1)
    keys = torch.arange(T, device=lengths.device).reshape(1, 1, T)  # (1, 1, T)
    return (keys < lengths).expand(-1, T, T)  # (B, T, T)


def window_mask(T: int, w: int, causal: bool = True, device=None) -> torch.Tensor:
    """Sliding window of width w: query i sees keys i-w+1..i (or |i-j| < w if not causal)."""
    if w < 1:
        raise ValueError(f"the window must be at least 1 token wide, got {w}")
    pos = torch.arange(T, device=device)
    offset = pos.reshape(T, 1) - pos.reshape(1, T)  # (T, T) i - j
    keep = offset.abs() < w
    return keep & (offset >= 0) if causal else keep  # (T, T)


def to_torch_mask(keep: torch.Tensor) -> torch.Tensor:
    """Our keep-mask as `nn.MultiheadAttention`'s `attn_mask` (True = blocked)."""
    return ~keep.bool()


def from_torch_mask(torch_mask: torch.Tensor) -> torch.Tensor:
    """`nn.MultiheadAttention`'s `attn_mask` (bool True = blocked, or additive float) as a keep-mask."""
    if torch_mask.dtype == torch.bool:
        return ~torch_mask
    return ~torch.isneginf(torch_mask)
