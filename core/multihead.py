"""Multi-head self-attention, with a teaching path that keeps every intermediate."""

import math

import torch
import torch.nn.functional as F
from torch import nn

from .attention import blocked_rows, fast_attention
from .positional import apply_rotary
from .trace import AttentionTrace


def _numpy(t: torch.Tensor):
    return t.detach().cpu().numpy()


class MultiHeadAttention(nn.Module):
    """h heads of size d_k = d_model / h, each attending on its own, then mixed by W_O."""

    def __init__(self, d_model: int, num_heads: int, bias: bool = True, rotary: bool = False):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"d_model {d_model} is not divisible by {num_heads} heads")
        if rotary and (d_model // num_heads) % 2:
            raise ValueError(f"rotary positions need an even head size, got {d_model // num_heads}")
        self.d_model, self.num_heads, self.d_k = d_model, num_heads, d_model // num_heads
        self.rotary = rotary
        self.in_proj = nn.Linear(d_model, 3 * d_model, bias=bias)  # W_Q, W_K, W_V stacked
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)  # W_O

    @classmethod
    def from_torch(cls, mha: nn.MultiheadAttention) -> "MultiHeadAttention":
        """A copy of `nn.MultiheadAttention`'s weights (batch_first either way: weights do not care)."""
        if not mha._qkv_same_embed_dim or mha.bias_k is not None or mha.add_zero_attn:
            raise ValueError("only plain self-attention (kdim = vdim = embed_dim) can be copied")
        ref = mha.in_proj_weight
        ours = cls(mha.embed_dim, mha.num_heads, bias=mha.in_proj_bias is not None)
        ours = ours.to(device=ref.device, dtype=ref.dtype)
        with torch.no_grad():
            ours.in_proj.weight.copy_(mha.in_proj_weight)
            ours.out_proj.weight.copy_(mha.out_proj.weight)
            if mha.in_proj_bias is not None:
                ours.in_proj.bias.copy_(mha.in_proj_bias)
                ours.out_proj.bias.copy_(mha.out_proj.bias)
        return ours

    def _split(self, t):
        """(B, T, D) -> (B, H, T, d_k): each head takes its own slice of the dimensions."""
        B, T, _ = t.shape
        return t.view(B, T, self.num_heads, self.d_k).transpose(1, 2)

    def _project(self, x, qkv=None):
        """1) project: x (B, T, D) -> q, k, v (B, H, T, d_k); or split hand-entered qkv."""
        if qkv is None:
            B, T, _ = x.shape
            qkv = F.linear(x, self.in_proj.weight, self.in_proj.bias)  # (B, T, 3D)
            qkv = qkv.view(B, T, 3, self.num_heads, self.d_k)  # (B, T, 3, H, d_k)
            # One copy into head-major order spares every later matmul a copy of its own.
            q, k, v = qkv.permute(2, 0, 3, 1, 4).contiguous().unbind(0)  # 3 × (B, H, T, d_k)
        else:
            q, k, v = (self._split(t) for t in qkv)
        if self.rotary:
            q, k = apply_rotary(q), apply_rotary(k)
        return q, k, v

    def _merge(self, heads):
        """3) concat: (B, H, T, d_k) -> (B, T, D)."""
        B, H, T, d_k = heads.shape
        return heads.transpose(1, 2).reshape(B, T, H * d_k)

    @staticmethod
    def _head_mask(mask):
        """A keep-mask (T, T), (B, T, T) or (B, H, T, T) made broadcastable to (B, H, T, T)."""
        if mask is None:
            return None
        mask = mask.bool()
        return mask.unsqueeze(1) if mask.dim() == 3 else mask

    def forward(self, x, mask=None, need_weights: bool = True, scale=None):
        """x (B, T, D) or (T, D) -> (output like x, weights (B, H, T, T) or None)."""
        unbatched = x.dim() == 2
        x = x.unsqueeze(0) if unbatched else x  # (B, T, D)
        q, k, v = self._project(x)  # (B, H, T, d_k)
        mask = self._head_mask(mask)
        if need_weights:  # 2) attend, keeping the weights
            heads, weights = fast_attention(q, k, v, mask, scale)  # (B, H, T, d_k), (B, H, T, T)
        else:  # 2) attend on PyTorch's fused kernel; a fully blocked row gives 0 there too
            heads, weights = F.scaled_dot_product_attention(q, k, v, mask, scale=scale), None
        out = F.linear(self._merge(heads), self.out_proj.weight, self.out_proj.bias)  # (B, T, D)
        if unbatched:
            out, weights = out[0], None if weights is None else weights[0]
        return out, weights

    @torch.no_grad()
    def trace(self, x, mask=None, scale=None, tokens=None, qkv=None) -> AttentionTrace:
        """Every intermediate for one sequence x (T, D), step by step as in the formula.

        `qkv`: hand-entered (Q, K, V), each (T, D), used instead of projecting x.
        """
        x = x.reshape(1, *x.shape[-2:])  # (1, T, D)
        T = x.shape[1]
        mask = torch.ones(T, T, dtype=torch.bool, device=x.device) if mask is None else mask
        mask = mask.bool().reshape(T, T)  # (T, T)
        scale = 1.0 / math.sqrt(self.d_k) if scale is None else scale
        qkv = None if qkv is None else [t.reshape(1, T, -1) for t in qkv]
        q, k, v = self._project(x, qkv)  # (1, H, T, d_k)
        # 2) attend: the call `forward` makes; `steps` keeps what went into its softmax, so the
        # scores shown are the scores used (TransformerLens' rule), not a second computation.
        steps = {}
        heads, weights = fast_attention(q, k, v, mask, scale, steps=steps)  # (1, H, T, d_k), (1, H, T, T)
        concat = self._merge(heads)  # (1, T, D)
        output = F.linear(concat, self.out_proj.weight, self.out_proj.bias)  # (1, T, D)
        q, k, v, heads, weights, concat, output = (t[0] for t in (q, k, v, heads, weights, concat, output))
        scores, scaled, masked = (steps[name][0] for name in ("scores", "scaled", "masked"))  # (H, T, T)
        w_q, w_k, w_v = self.in_proj.weight.t().chunk(3, dim=-1)  # 3 × (D, D)
        return AttentionTrace(
            tokens=list(tokens) if tokens is not None else [str(i) for i in range(T)],
            x=_numpy(x[0]), q=_numpy(q), k=_numpy(k), v=_numpy(v),
            scores=_numpy(scores), scaled=_numpy(scaled), mask=_numpy(mask),
            masked=_numpy(masked), weights=_numpy(weights), heads=_numpy(heads),
            concat=_numpy(concat), output=_numpy(output),
            w_q=_numpy(w_q), w_k=_numpy(w_k), w_v=_numpy(w_v), w_o=_numpy(self.out_proj.weight.t()),
            scale=float(scale), blocked_rows=_numpy(blocked_rows(mask)),
        )
