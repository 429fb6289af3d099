"""`trained_trace(text)`: a real model's attention, layer by layer, as the lab's own traces.

Each layer's `AttentionTrace` is made by that layer's `MultiHeadAttention.trace` on that layer's
input, so the charts and the scenes that read a lesson's trace read a trained layer unchanged.
"""

from dataclasses import dataclass

import numpy as np
import torch

from .bert import load_minilm
from .config import AttentionConfig
from .device import resolve_device
from .pretrained import encode_one
from .trace import AttentionTrace


@dataclass(frozen=True, eq=False)
class TrainedTrace:
    text: str  # the sentence as typed
    tokens: list  # T word pieces, "[CLS]" first and "[SEP]" last
    ids: np.ndarray  # (T,) the word pieces' ids in the model's vocabulary
    layers: tuple  # L AttentionTraces: layers[i] is layer i + 1, its x that layer's input
    weights: np.ndarray  # (L, H, T, T) every layer's attention weights, weights[i] == layers[i].weights
    hidden_states: np.ndarray  # (L + 1, T, D) the embeddings (layer 1's input), then each layer's output

    @property
    def num_layers(self) -> int:
        return len(self.layers)

    @property
    def num_heads(self) -> int:
        return self.weights.shape[1]

    @property
    def last_hidden_state(self) -> np.ndarray:
        """(T, D) the last layer's output, as `transformers`' `last_hidden_state`."""
        return self.hidden_states[-1]

    def layer(self, n: int) -> AttentionTrace:
        """Layer n, counted from 1 as a person says it (layer 1 reads the embeddings)."""
        if not 1 <= n <= self.num_layers:
            raise IndexError(f"layer {n} is not between 1 and {self.num_layers}")
        return self.layers[n - 1]


def trained_trace(text: str, device: str = "auto") -> TrainedTrace:
    """all-MiniLM-L6-v2 reading `text`, with every intermediate of every layer.

    The text is checked as a lesson is (`AttentionConfig.trained`): an empty text, one of more
    than `MAX_TOKENS` word pieces, or a missing model package raises `ConfigError` with a message.
    Same text, same device => identical numbers.
    """
    cfg = AttentionConfig.trained(text, device=device)
    dev = resolve_device(cfg.device)
    model = load_minilm(dev)
    tokens, ids = encode_one(text)
    ids = torch.tensor([ids], device=dev)  # (1, T)
    with torch.no_grad():
        hidden, _ = model(ids)  # L + 1 × (1, T, D)
    layers = tuple(block.attn.trace(x[0], tokens=tokens).with_config(cfg.replace(layer=i + 1))
                   for i, (block, x) in enumerate(zip(model.blocks, hidden, strict=False)))
    return TrainedTrace(text=text, tokens=tokens, ids=ids[0].cpu().numpy(), layers=layers,
                        weights=np.stack([t.weights for t in layers]),
                        hidden_states=torch.cat(hidden).cpu().numpy())
