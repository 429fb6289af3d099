"""`trained_trace(text)`: a real model's attention, layer by layer, as the lab's own traces.

The model is the built-in all-MiniLM-L6-v2, or a local BERT or GPT-2 checkpoint by its name
(core.models). Each layer's `AttentionTrace` is made by that layer's `MultiHeadAttention.trace`
on that layer's attention input, so the charts and the scenes that read a lesson's trace read a
trained layer unchanged. `check_settings` and `check_tokens` say what a lesson on a trained model
must keep (its own sizes and settings, a sentence it can read).
"""

import math
from dataclasses import dataclass

import numpy as np
import torch

from . import models
from .config import MAX_ATTENTION_CELLS, MAX_TOKENS, MINILM, AttentionConfig, check, resolve_device
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


def model_info(model: str = "") -> models.ModelInfo:
    """The model called `model` ("" or MiniLM's name: the built-in one), or a ConfigError saying why not."""
    if model in ("", MINILM.name):
        return models.ModelInfo(MINILM.name, "bert", MINILM.layers, MINILM.heads, MINILM.d_model, 0, models.BUILT_IN)
    return models.find(model)


def check_settings(cfg: AttentionConfig):
    """A trained lesson's sizes and settings are its model's own (AttentionConfig checks them here): a
    setting that would differ is refused, never silently overridden."""
    m = cfg.trained_model
    check(1 <= cfg.layer <= m.layers, "layer",
          f"The layer must be between 1 and {m.layers} (the trained model has {m.layers}), got {cfg.layer}.")
    check(cfg.d_model == m.d_model, "d_model",
          f"The trained model has d_model {m.d_model}, so d_model must be {m.d_model}, got {cfg.d_model}.")
    check(cfg.num_heads == m.heads, "num_heads", f"The trained model has {m.heads} heads in each layer, "
          f"so the number of heads must be {m.heads}, got {cfg.num_heads}.")
    sees, mask = ("itself and the tokens before it", "causal") if m.causal else ("every other", "none")
    check(cfg.mask == mask, "mask", f"The trained model lets every word piece attend to {sees}, as it was "
          f"trained, so the mask must be {mask}, got '{cfg.mask}'.")
    check(cfg.positional == "none", "positional", f"The trained model adds its own learned positions, "
          f"so the positional encoding must be none, got '{cfg.positional}'.")
    check(cfg.scale, "scale", "The trained model was trained dividing its scores by √d_k, so that "
          "division must stay on.")
    check(cfg.temperature == 1.0, "temperature", f"The trained model's weights are shown as it computes "
          f"them, so the temperature must be 1, got {cfg.temperature:g}.")


def check_tokens(cfg: AttentionConfig):
    """A trained lesson's sentence: at least two tokens, at most MAX_TOKENS, and MAX_ATTENTION_CELLS weights."""
    m, n = cfg.trained_model, len(cfg.tokens)
    # GPT-2 adds no [CLS] or [SEP]; its first token can look only at itself, so a sentence needs two
    pieces = "tokens" if m.causal else "word pieces with [CLS] and [SEP]"
    check(n > 1 + (not m.causal), "text", "The text is empty: type a few words to attend over." if n != 1 else
          "The text makes one token, which can attend only to itself: type at least two.")
    check(n <= MAX_TOKENS, "text", f"The text makes {n} {pieces}; the lab shows at most {MAX_TOKENS}. Shorten it.")
    cells, most = m.layers * m.heads * n * n, math.isqrt(MAX_ATTENTION_CELLS // (m.layers * m.heads))
    check(cells <= MAX_ATTENTION_CELLS, "text", f"{m.name} has {m.layers} layers × {m.heads} heads: at {n} "
          f"{pieces.split()[0]} that is {cells:,} attention weights, past the lab's bound of "
          f"{MAX_ATTENTION_CELLS:,} per sentence (layers × heads × T²). Shorten it to at most {most} "
          f"{pieces.split(' with')[0]}.")


def encode(text: str, model: str = "") -> tuple[list[str], list[int]]:
    """(word pieces, ids) of `text` as `model` reads it."""
    return models.encode_one(model_info(model), text)


def trained_trace(text: str, device: str = "auto", model: str = "") -> TrainedTrace:
    """A trained model (MiniLM unless `model` names another) reading `text`, every intermediate of
    every layer.

    The text is checked as a lesson is (`AttentionConfig.trained`): an empty text, one of more
    than `MAX_TOKENS` word pieces or `MAX_ATTENTION_CELLS` weights, a missing model package or a
    folder the lab cannot run raises `ConfigError` with a message. Same text, same device =>
    identical numbers.
    """
    cfg = AttentionConfig.trained(text, device=device, model=model)
    info = model_info(cfg.model)
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
