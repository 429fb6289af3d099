"""`TrainedLesson`: what a trained model fixes in a lesson on it.

Its sizes and its mask are the model's own, its tokens are the model's word pieces, and its
sentence is bounded by the lab's limits. `AttentionConfig` (source "trained") checks itself
against one; trained.py runs the model.
"""

import math
from dataclasses import dataclass

from . import models
from .errors import check, quote
from .limits import MAX_ATTENTION_CELLS, MAX_TOKENS


@dataclass(frozen=True)
class TrainedLesson:
    """A lesson on one trained model: the settings that model fixes, and how it reads a sentence."""

    model: models.ModelInfo

    @classmethod
    def of(cls, name: str = "") -> "TrainedLesson":
        """The lesson on the model called `name` ("" or MiniLM's name: the built-in one), or a ConfigError."""
        return cls(models.model_info(name))

    @property
    def mask(self) -> str:
        """GPT-2 lets each token see itself and the tokens before it; BERT lets it see every token."""
        return "causal" if self.model.causal else "none"

    def settings(self) -> dict:
        """The settings the model fixes, as `AttentionConfig` fields."""
        return {"d_model": self.model.d_model, "num_heads": self.model.heads, "mask": self.mask}

    def read(self, text: str) -> list[str]:
        """The model's own word pieces of `text` ([CLS] first and [SEP] last, for BERT)."""
        return models.encode_one(self.model, text)[0]

    def check(self, cfg):
        """A lesson's sizes and settings (an `AttentionConfig`) are the model's own: a setting that would
        differ is refused, never silently overridden."""
        m = self.model
        check(1 <= cfg.layer <= m.layers, "layer",
              f"The layer must be between 1 and {m.layers} (the trained model has {m.layers}), got {cfg.layer}.")
        check(cfg.d_model == m.d_model, "d_model",
              f"The trained model has d_model {m.d_model}, so d_model must be {m.d_model}, got {cfg.d_model}.")
        check(cfg.num_heads == m.heads, "num_heads", f"The trained model has {m.heads} heads in each layer, "
              f"so the number of heads must be {m.heads}, got {cfg.num_heads}.")
        sees = "itself and the tokens before it" if m.causal else "every other"
        check(cfg.mask == self.mask, "mask", f"The trained model lets every word piece attend to {sees}, as it "
              f"was trained, so the mask must be {self.mask}, got {quote(cfg.mask)}.")
        check(cfg.positional == "none", "positional", f"The trained model adds its own learned positions, "
              f"so the positional encoding must be none, got {quote(cfg.positional)}.")
        check(cfg.scale, "scale", "The trained model was trained dividing its scores by √d_k, so that "
              "division must stay on.")
        check(cfg.temperature == 1.0, "temperature", f"The trained model's weights are shown as it computes "
              f"them, so the temperature must be 1, got {cfg.temperature:g}.")

    def check_tokens(self, n: int):
        """A sentence of n tokens: at least two, at most MAX_TOKENS, and MAX_ATTENTION_CELLS weights."""
        m = self.model
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
