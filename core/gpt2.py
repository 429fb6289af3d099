"""GPT-2 (Radford et al. 2019), a causal decoder, run by core's own pieces.

Each token's vector is its learned word vector plus a learned position vector; then pre-LN
blocks (x + attn(LN(x)), then x + FFN(LN(x)), GELU's tanh form), every query blocked from the
keys after it by the causal mask; a last LayerNorm (ln_f) ends the stack. That is
`TransformerBlock(norm_first=True)` with `causal_mask`: only the weights are GPT-2's.

GPT-2 stores its projections as "Conv1D" layers whose weight is (in, out), the transpose of
`nn.Linear`'s (out, in); its c_attn holds W_Q, W_K, W_V side by side, in that order, which is
`MultiHeadAttention.in_proj` once transposed.
"""

import math

import torch
from torch import nn

from .block import TransformerBlock
from .checkpoint import Shape
from .masks import causal_mask
from .trace import AttentionTrace


class GPT2(nn.Module):
    causal = True

    def __init__(self, shape: Shape):
        super().__init__()
        s = self.shape = shape
        table = lambda rows: nn.Embedding(rows, s.d_model, _weight=torch.zeros(rows, s.d_model))
        self.word, self.position = table(s.vocab_size), table(s.max_positions)
        self.blocks = nn.ModuleList(TransformerBlock(s.d_model, s.heads, s.d_ff, norm_first=True,
                                                     activation=s.activation, layer_norm_eps=s.eps)
                                    for _ in range(s.layers))
        self.norm = nn.LayerNorm(s.d_model, eps=s.eps)  # ln_f

    @classmethod
    def from_weights(cls, tensors: dict, shape: Shape) -> "GPT2":
        """The model holding `tensors` (GPT2Model's names, "h.0.attn.c_attn.weight", or GPT2LMHeadModel's
        with a "transformer." prefix)."""
        tensors = {k.removeprefix("transformer."): v for k, v in tensors.items()}
        with torch.device("meta"):  # no memory and no random draws: the file's tensors are assigned below
            model = cls(shape)
        model.load_state_dict(_rename(tensors, shape.layers), strict=True, assign=True)
        return model.eval().requires_grad_(False)

    def scale(self, i: int) -> float:
        """Layer i's score factor (from 0): 1/√d_k, and ÷ (i + 1) where the checkpoint asks for it."""
        d_k = self.shape.d_model // self.shape.heads
        return 1.0 / math.sqrt(d_k) / ((i + 1) if self.shape.scale_by_layer else 1)

    def forward(self, ids: torch.Tensor, keep: torch.Tensor | None = None):
        """ids (B, T) -> (hidden states, weights), with every attention weight kept.

        hidden states: L + 1 tensors (B, T, D): the embeddings, then each block's output, the last
        one after ln_f (as `transformers` reports them); weights: L tensors (B, H, T, T), zero above
        the diagonal. `keep` (B, T, T): a further keep-mask (padding), combined with the causal one.
        """
        T = ids.shape[-1]
        mask = causal_mask(T, device=ids.device)  # (T, T)
        mask = mask if keep is None else keep.bool() & mask  # (T, T) or (B, T, T)
        x = self.word(ids) + self.position.weight[:T]  # (B, T, D)
        hidden, weights = [x], []
        for i, block in enumerate(self.blocks):
            s = block.stages(x, mask, scale=self.scale(i), need_weights=True)
            x = s["output"]  # (B, T, D)
            hidden.append(x)
            weights.append(s["weights"])  # (B, H, T, T)
        hidden[-1] = self.norm(x)
        return hidden, weights

    def trace_layer(self, i: int, x: torch.Tensor, tokens) -> AttentionTrace:
        """Layer i's attention (from 0) on its input x (T, D): pre-LN, so the attention reads LN(x)."""
        block, T = self.blocks[i], x.shape[-2]
        with torch.no_grad():
            return block.attn.trace(block.norm1(x), causal_mask(T, device=x.device), self.scale(i), tokens)


def _rename(t: dict, layers: int) -> dict:
    """GPT-2's names -> GPT2's parameter names, Conv1D weights (in, out) transposed to Linear's (out, in)."""
    state = {"word.weight": t["wte.weight"], "position.weight": t["wpe.weight"],
             "norm.weight": t["ln_f.weight"], "norm.bias": t["ln_f.bias"]}
    for i in range(layers):
        src, dst = f"h.{i}.", f"blocks.{i}."
        for ours, theirs in (("attn.in_proj", "attn.c_attn"), ("attn.out_proj", "attn.c_proj"),
                             ("linear1", "mlp.c_fc"), ("linear2", "mlp.c_proj")):
            state[f"{dst}{ours}.weight"] = t[f"{src}{theirs}.weight"].t().contiguous()  # (in, out) -> (out, in)
            state[f"{dst}{ours}.bias"] = t[f"{src}{theirs}.bias"]
        for ours, theirs in (("norm1", "ln_1"), ("norm2", "ln_2")):
            for p in ("weight", "bias"):
                state[f"{dst}{ours}.{p}"] = t[f"{src}{theirs}.{p}"]
    return state
