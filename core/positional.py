"""Positional encodings: attention alone ignores order, so positions are injected.

- sinusoidal (Vaswani et al. 2017): fixed waves added to the embeddings;
- learned: one trainable vector per position, added to the embeddings;
- rotary (Su et al. 2021): q and k are rotated by an angle proportional to their position,
  so q·k depends only on the offset between the two positions.
"""

import torch
from torch import nn


def _frequencies(d: int, base: float, device=None, dtype=torch.float32) -> torch.Tensor:
    """1 / base^(2i/d) for i = 0..ceil(d/2)-1: one frequency per pair of dimensions."""
    two_i = torch.arange(0, d, 2, device=device, dtype=dtype)  # (ceil(d/2),)
    return base ** (-two_i / d)


def sinusoidal_encoding(T: int, d: int, base: float = 10000.0, device=None, dtype=torch.float32):
    """PE[pos, 2i] = sin(pos / base^(2i/d)), PE[pos, 2i+1] = cos(pos / base^(2i/d))."""
    pos = torch.arange(T, device=device, dtype=dtype).reshape(T, 1)  # (T, 1)
    angles = pos * _frequencies(d, base, device, dtype)  # (T, ceil(d/2))
    pe = torch.zeros(T, d, device=device, dtype=dtype)  # (T, d)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles[:, : d // 2])  # an odd d has one sine column more
    return pe


class LearnedPositionalEncoding(nn.Module):
    """One vector per position, learned with the model (here: as initialised from a seed)."""

    def __init__(self, max_len: int, d: int, table: torch.Tensor | None = None):
        super().__init__()
        # Given a table (max_len, d), nn.Embedding takes it as it is: no draw from the global RNG.
        self.table = nn.Embedding(max_len, d, _weight=table)

    @classmethod
    def from_table(cls, table: torch.Tensor) -> "LearnedPositionalEncoding":
        """An encoding whose vectors are the rows of `table` (max_len, d)."""
        return cls(*table.shape, table=table)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        T = x.size(-2)
        return x + self.table.weight[:T]  # (..., T, d)


def apply_rotary(x: torch.Tensor, positions=None, base: float = 10000.0) -> torch.Tensor:
    """Rotate each pair (x[2i], x[2i+1]) of x (..., T, d) by the angle pos / base^(2i/d)."""
    T, d = x.shape[-2], x.shape[-1]
    if d % 2:
        raise ValueError(f"rotary positions need an even head size, got {d}")
    if positions is None:
        positions = torch.arange(T, device=x.device)
    pos = positions.to(device=x.device, dtype=x.dtype).reshape(T, 1)  # (T, 1)
    angles = pos * _frequencies(d, base, x.device, x.dtype)  # (T, d/2)
    cos, sin = torch.cos(angles), torch.sin(angles)  # (T, d/2)
    even, odd = x[..., 0::2], x[..., 1::2]  # (..., T, d/2)
    rotated = torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1)
    return rotated.flatten(-2)  # (..., T, d)
