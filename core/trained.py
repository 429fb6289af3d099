"""`trained_trace(text)`: a real model's attention, layer by layer, as the lab's own traces.

The model is the built-in all-MiniLM-L6-v2, or a local BERT or GPT-2 checkpoint by its name
(core.models). Each layer's `AttentionTrace` is made by that layer's `MultiHeadAttention.trace`
on that layer's attention input, so the charts and the scenes that read a lesson's trace read a
trained layer unchanged. What a lesson on a trained model must keep (its own sizes and settings,
a sentence it can read) is its `TrainedLesson`'s to say (trained_lesson.py).
"""

from dataclasses import dataclass

import numpy as np
import torch

from . import models
from .config import AttentionConfig
from .devices import resolve_device
from .minilm import MINILM
from .trace import AttentionTrace


@dataclass(frozen=True, eq=False)
class TrainedTrace:
    text: str  # the sentence as typed
    tokens: list  # T word pieces ("[CLS]" first and "[SEP]" last for BERT; GPT-2 adds none)
    ids: np.ndarray  # (T,) the word pieces' ids in the model's vocabulary
    layers: tuple  # L AttentionTraces: layers[i] is layer i + 1, its x that layer's attention input
    weights: np.ndarray  # (L, H, T, T) every layer's attention weights, weights[i] == layers[i].weights
    hidden_states: np.ndarray  # (L + 1, T, D) the embeddings (layer 1's input), then each layer's output
    model: str = MINILM.name  # the model's name
    causal: bool = False  # True for GPT-2: each token attends to itself and the tokens before it

    @property
    def num_layers(self) -> int:
        return len(self.layers)

    @property
    def num_heads(self) -> int:
        return self.weights.shape[1]

    @property
    def last_hidden_state(self) -> np.ndarray:
        """(T, D) the last layer's output, as `transformers`' `last_hidden_state` (GPT-2: after ln_f)."""
        return self.hidden_states[-1]

    def layer(self, n: int) -> AttentionTrace:
        """Layer n, counted from 1 as a person says it (layer 1 reads the embeddings)."""
        if not 1 <= n <= self.num_layers:
            raise IndexError(f"layer {n} is not between 1 and {self.num_layers}")
        return self.layers[n - 1]


def encode(text: str, model: str = "") -> tuple[list[str], list[int]]:
    """(word pieces, ids) of `text` as `model` reads it."""
    return models.encode_one(models.model_info(model), text)


def trained_trace(text: str, device: str = "auto", model: str = "") -> TrainedTrace:
    """A trained model (MiniLM unless `model` names another) reading `text`, every intermediate of
    every layer.

    The text is checked as a lesson is (`AttentionConfig.trained`): an empty text, one of more
    than `MAX_TOKENS` word pieces or `MAX_ATTENTION_CELLS` weights, a missing model package or a
    folder the lab cannot run raises `ConfigError` with a message. Same text, same device =>
    identical numbers.
    """
    cfg = AttentionConfig.trained(text, device=device, model=model)
    info = cfg.trained_lesson.model
    dev = resolve_device(cfg.device)
    net = models.load(info, dev)
    tokens, ids = models.encode_one(info, text)
    ids = torch.tensor([ids], device=dev)  # (1, T)
    with torch.no_grad():
        hidden, _ = net(ids)  # L + 1 × (1, T, D)
    layers = tuple(net.trace_layer(i, hidden[i][0], tokens).with_config(cfg.replace(layer=i + 1))
                   for i in range(len(net.blocks)))
    return TrainedTrace(text=text, tokens=tokens, ids=ids[0].cpu().numpy(), layers=layers,
                        weights=np.stack([t.weights for t in layers]),
                        hidden_states=torch.cat(hidden).cpu().numpy(), model=info.name, causal=info.causal)
