"""A tiny causal Transformer built from core's own attention, small enough to train in class.

Attention-only, like the toy models of Olsson et al. (2022, "In-context Learning and
Induction Heads"): token embedding (+ learned positions) → L residual attention layers →
unembedding. No MLPs: a layer only moves information between positions, so what the model
learns about order is in the attention weights a page shows. No LayerNorm either: the residual
stream stays a plain sum a student can follow, and in our runs a LayerNorm (final or in every
layer) made the induction head form no sooner.
"""

import torch
from torch import nn

from .masks import causal_mask
from .multihead import MultiHeadAttention


class TinyTransformer(nn.Module):
    """tokens (B, T) → logits (B, T, vocab); `forward(..., need_weights=True)` also returns the
    weights each layer used, (B, L, H, T, T)."""

    def __init__(self, vocab: int, max_len: int, d_model: int, heads: int, layers: int,
                 positions: bool = True, causal: bool = True):
        super().__init__()
        self.causal = causal
        self.embed = nn.Embedding(vocab, d_model)
        self.positions = nn.Embedding(max_len, d_model) if positions else None
        self.layers = nn.ModuleList(MultiHeadAttention(d_model, heads) for _ in range(layers))
        self.unembed = nn.Linear(d_model, vocab)

    @classmethod
    def empty(cls, **shape) -> "TinyTransformer":
        """A model with uninitialised weights, to be loaded: built on the meta device, so no
        draw touches the global RNG (sessions share one process)."""
        with torch.device("meta"):
            model = cls(**shape)
        return model.to_empty(device="cpu")

    @classmethod
    def seeded(cls, generator: torch.Generator, **shape) -> "TinyTransformer":
        """A model whose first weights come from `generator` alone: PyTorch's default
        initialisation, except the unembedding, which starts at zero so that the first guesses
        are uniform and the loss starts at chance, ln(vocab)."""
        model = cls.empty(**shape)
        with torch.no_grad():
            for module in model.modules():
                if isinstance(module, nn.Embedding):
                    module.weight.normal_(0.0, 1.0, generator=generator)
                elif isinstance(module, nn.Linear):
                    bound = module.in_features ** -0.5
                    module.weight.uniform_(-bound, bound, generator=generator)
                    module.bias.uniform_(-bound, bound, generator=generator)
            model.unembed.weight.zero_()
            model.unembed.bias.zero_()
        return model

    def forward(self, tokens, need_weights: bool = False):
        """tokens (B, T) → (logits (B, T, vocab), weights (B, L, H, T, T) or None)."""
        T = tokens.shape[1]
        x = self.embed(tokens)  # (B, T, D)
        if self.positions is not None:
            x = x + self.positions.weight[:T]  # (B, T, D)
        mask = causal_mask(T, device=tokens.device) if self.causal else None  # (T, T)
        kept = []
        for layer in self.layers:
            out, weights = layer(x, mask, need_weights=need_weights)  # (B, T, D), (B, H, T, T)
            x = x + out  # the residual stream: each layer adds what it read
            kept.append(weights)
        logits = self.unembed(x)  # (B, T, vocab)
        return logits, (torch.stack(kept, dim=1) if need_weights else None)
