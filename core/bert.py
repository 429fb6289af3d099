"""BERT encoders (all-MiniLM-L6-v2 built in, and local BERT checkpoints), run by core's own pieces.

BERT (Devlin et al. 2019) adds a learned vector per word piece, per position and per segment,
normalises the sum, then runs post-LN encoder blocks with GELU: exactly `TransformerBlock`
(attention through `MultiHeadAttention`, LayerNorm eps 1e-12). Only the weights are BERT's.
"""

import threading
from functools import lru_cache

import torch
from torch import nn

from .block import TransformerBlock
from .checkpoint import Shape
from .devices import resolve_device
from .minilm import MINILM
from .pretrained import model_dir, read_weights
from .trace import AttentionTrace


class Embeddings(nn.Module):
    """word + learned position + token type (all 0: one sentence), then LayerNorm: layer 1's input."""

    def __init__(self, vocab_size: int, d_model: int = MINILM.d_model, max_positions: int = MINILM.max_positions,
                 type_vocab_size: int = 2, eps: float = MINILM.layer_norm_eps):
        super().__init__()
        # The tables start at zero: they are always read from the model's file. (A random draw
        # would only be overwritten, and on the meta device its first use costs ~2 s of imports.)
        table = lambda rows: nn.Embedding(rows, d_model, _weight=torch.zeros(rows, d_model))
        self.word, self.position, self.token_type = table(vocab_size), table(max_positions), table(type_vocab_size)
        self.norm = nn.LayerNorm(d_model, eps=eps)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        T = ids.shape[-1]
        x = self.word(ids) + self.token_type.weight[0]  # (B, T, D), in BERT's order of sums
        return self.norm(x + self.position.weight[:T])  # (B, T, D)


def minilm_shape(vocab_size: int) -> Shape:
    m = MINILM
    return Shape("bert", m.layers, m.heads, m.d_model, m.d_ff, vocab_size, m.max_positions, m.layer_norm_eps, "gelu",
                 type_vocab_size=2)


class Bert(nn.Module):
    """Embeddings, then post-LN blocks: any BERT-family encoder of the given shape (MiniLM is one)."""

    causal = False

    def __init__(self, shape: Shape):
        super().__init__()
        s = self.shape = shape
        self.embeddings = Embeddings(s.vocab_size, s.d_model, s.max_positions, s.type_vocab_size, s.eps)
        self.blocks = nn.ModuleList(TransformerBlock(s.d_model, s.heads, s.d_ff, activation=s.activation,
                                                     layer_norm_eps=s.eps) for _ in range(s.layers))

    @classmethod
    def from_weights(cls, tensors: dict, shape: Shape | None = None) -> "Bert":
        """The model holding `tensors` (safetensors names, e.g. "encoder.layer.0.attention.self.query.weight",
        with or without a "bert." prefix); `shape` defaults to MiniLM's."""
        tensors = {_plain(k): v for k, v in tensors.items()}
        shape = shape or minilm_shape(tensors["embeddings.word_embeddings.weight"].shape[0])
        state = _rename(tensors, shape.layers)
        # Built on the meta device (no memory, no random draws), then handed the file's tensors:
        # building on the CPU draws 23 M random numbers only to overwrite them (0.3 s of a 0.6 s load).
        with torch.device("meta"):
            model = cls(shape)
        model.load_state_dict(state, strict=True, assign=True)
        return model.eval().requires_grad_(False)

    def forward(self, ids: torch.Tensor, keep: torch.Tensor | None = None):
        """ids (B, T) -> (hidden states, weights), with every attention weight kept.

        hidden states: L + 1 tensors (B, T, D), the embeddings then each layer's output;
        weights: L tensors (B, H, T, T). `keep` (B, T, T): a keep-mask, e.g.
        `padding_mask(lengths, T)` for a padded batch (padding keys then get weight 0).
        """
        x = self.embeddings(ids)  # (B, T, D)
        hidden, weights = [x], []
        for block in self.blocks:
            s = block.stages(x, keep, need_weights=True)
            x = s["output"]  # (B, T, D)
            hidden.append(x)
            weights.append(s["weights"])  # (B, H, T, T)
        return hidden, weights

    def trace_layer(self, i: int, x: torch.Tensor, tokens) -> AttentionTrace:
        """Layer i's attention (from 0) on its input x (T, D): post-LN, so the attention reads x itself."""
        return self.blocks[i].attn.trace(x, tokens=tokens)


MiniLM = Bert  # the built-in model is a BERT of MiniLM's shape


def _plain(name: str) -> str:
    """A task model's names (BertForMaskedLM: "bert.encoder...") and old ones (LayerNorm.gamma) as BertModel's."""
    name = name.removeprefix("bert.")
    return name.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias")


def _rename(t: dict, layers: int = MINILM.layers) -> dict:
    """safetensors names -> Bert's parameter names; W_Q, W_K, W_V stacked as `in_proj`."""
    state = {f"embeddings.{ours}.weight": t[f"embeddings.{theirs}_embeddings.weight"]
             for ours, theirs in (("word", "word"), ("position", "position"), ("token_type", "token_type"))}
    state |= {f"embeddings.norm.{p}": t[f"embeddings.LayerNorm.{p}"] for p in ("weight", "bias")}
    for i in range(layers):
        src, dst = f"encoder.layer.{i}.", f"blocks.{i}."
        for p in ("weight", "bias"):
            qkv = [t[f"{src}attention.self.{n}.{p}"] for n in ("query", "key", "value")]
            state[f"{dst}attn.in_proj.{p}"] = torch.cat(qkv)  # (3D, D) or (3D,)
            state[f"{dst}attn.out_proj.{p}"] = t[f"{src}attention.output.dense.{p}"]
            state[f"{dst}norm1.{p}"] = t[f"{src}attention.output.LayerNorm.{p}"]
            state[f"{dst}linear1.{p}"] = t[f"{src}intermediate.dense.{p}"]
            state[f"{dst}linear2.{p}"] = t[f"{src}output.dense.{p}"]
            state[f"{dst}norm2.{p}"] = t[f"{src}output.LayerNorm.{p}"]
    return state


_LOCK = threading.Lock()  # Streamlit sessions are threads: the first one loads, the others wait


@lru_cache(maxsize=4)  # one copy per device at most (cpu, cuda, mps)
def _load(folder, device: str) -> MiniLM:
    return MiniLM.from_weights(read_weights(folder)).to(device)


def load_minilm(device="cpu") -> MiniLM:
    """The trained model on `device` (a name as in `AttentionConfig.device`, or a `torch.device`),
    read once per process and device, in eval mode without gradients.

    Shared by every caller: use it, never change its weights.
    """
    device = device if isinstance(device, torch.device) else resolve_device(device)
    folder = model_dir()
    with _LOCK:
        return _load(folder, str(device))
