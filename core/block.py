"""A Transformer encoder block: attention and a feed-forward network, each wrapped in a
residual connection and LayerNorm (after the sum, post-LN as in the 2017 paper, or before the
sub-layer, pre-LN as in GPT-2 and most large decoders since; BERT-style encoders are post-LN)."""

from functools import partial

import torch.nn.functional as F
from torch import nn

from .multihead import MultiHeadAttention

ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu,
               # GPT-2's "gelu_new": GELU's tanh approximation (Hendrycks & Gimpel 2016), as GPT-2 was trained
               "gelu_tanh": partial(F.gelu, approximate="tanh")}


class TransformerBlock(nn.Module):
    def __init__(self, d_model: int, num_heads: int, d_ff: int, dropout: float = 0.0,
                 norm_first: bool = False, activation: str = "relu", bias: bool = True,
                 layer_norm_eps: float = 1e-5):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got '{activation}'")
        self.attn = MultiHeadAttention(d_model, num_heads, bias=bias)
        self.linear1 = nn.Linear(d_model, d_ff, bias=bias)
        self.linear2 = nn.Linear(d_ff, d_model, bias=bias)
        self.norm1 = nn.LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.norm2 = nn.LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.dropout, self.dropout1, self.dropout2 = (nn.Dropout(dropout) for _ in range(3))
        self.norm_first, self.activation = norm_first, activation

    @classmethod
    def from_torch(cls, layer: nn.TransformerEncoderLayer) -> "TransformerBlock":
        """A copy of `nn.TransformerEncoderLayer` (its activation must be relu or gelu)."""
        act = layer.activation
        name = {F.relu: "relu", F.gelu: "gelu"}.get(act) or type(act).__name__.lower()
        ref = layer.linear1.weight
        ours = cls(layer.self_attn.embed_dim, layer.self_attn.num_heads, layer.linear1.out_features,
                   dropout=layer.dropout.p, norm_first=layer.norm_first, activation=name,
                   bias=layer.linear1.bias is not None, layer_norm_eps=layer.norm1.eps)
        ours = ours.to(device=ref.device, dtype=ref.dtype)
        ours.attn = MultiHeadAttention.from_torch(layer.self_attn)
        for part in ("linear1", "linear2", "norm1", "norm2"):
            getattr(ours, part).load_state_dict(getattr(layer, part).state_dict())
        return ours

    def _attend(self, x, mask, scale, need_weights):
        out, weights = self.attn(x, mask, need_weights=need_weights, scale=scale)  # (B, T, D), (B, H, T, T)|None
        return self.dropout1(out), weights

    def _feed_forward(self, x):
        hidden = ACTIVATIONS[self.activation](self.linear1(x))  # (B, T, d_ff)
        return self.dropout2(self.linear2(self.dropout(hidden)))  # (B, T, D)

    def forward(self, x, mask=None, scale=None):
        return self.stages(x, mask, scale)["output"]

    def stages(self, x, mask=None, scale=None, need_weights: bool = False) -> dict:
        """Each stage's output in order, for a lesson that walks through the block.

        `mask`: a keep-mask (T, T) or (B, T, T), e.g. `padding_mask(lengths, T)`.
        `scale` multiplies the attention scores (default 1/√d_k), as in `attention`.
        `need_weights`: also keep the attention weights as "weights" (B, H, T, T); the attention
        then runs on core's own `attention` (the teaching path) instead of PyTorch's fused kernel.
        """
        s = {"input": x}
        if self.norm_first:  # x + f(LN(x))
            s["norm1"] = self.norm1(x)
            s["attention"], weights = self._attend(s["norm1"], mask, scale, need_weights)
            s["residual1"] = x + s["attention"]
            s["norm2"] = self.norm2(s["residual1"])
            s["feed_forward"] = self._feed_forward(s["norm2"])
            s["residual2"] = s["residual1"] + s["feed_forward"]
        else:  # LN(x + f(x))
            s["attention"], weights = self._attend(x, mask, scale, need_weights)
            s["residual1"] = x + s["attention"]
            s["norm1"] = self.norm1(s["residual1"])
            s["feed_forward"] = self._feed_forward(s["norm1"])
            s["residual2"] = s["norm1"] + s["feed_forward"]
            s["norm2"] = self.norm2(s["residual2"])
        s["output"] = s["residual2"] if self.norm_first else s["norm2"]
        if need_weights:
            s["weights"] = weights
        return s
