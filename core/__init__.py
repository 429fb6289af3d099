"""attention-lab's core: every number the dashboard shows and the animations draw."""

from .attention import attention, blocked_rows, fast_attention
from .block import TransformerBlock
from .config import AttentionConfig
from .devices import available_devices
from .errors import ConfigError
from .film import Film, LearnSettings
from .guided_heads import HEADS_WORTH_A_LOOK
from .head_patterns import PATTERNS, head_patterns
from .learn import train
from .lesson import embed_tokens, lesson_inputs, lesson_mask, lesson_module, random_inputs, run_trace
from .limits import MAX_TOKENS
from .masks import causal_mask, from_torch_mask, padding_mask, to_torch_mask, window_mask
from .minilm import MINILM
from .multihead import MultiHeadAttention
from .positional import LearnedPositionalEncoding, apply_rotary, sinusoidal_encoding
from .presets import PRESETS
from .tokens import tokenize
from .trace import AttentionTrace
from .trained import TrainedTrace, trained_trace
from .value_norms import (
    NORM_PATTERNS,
    HeadNorms,
    contribution_shares,
    head_norms,
    norm_patterns,
    value_norms,
    weighted_norms,
)

__all__ = [
    "AttentionConfig", "AttentionTrace", "ConfigError", "Film", "HEADS_WORTH_A_LOOK", "HeadNorms", "LearnSettings",
    "LearnedPositionalEncoding", "MAX_TOKENS", "MINILM", "NORM_PATTERNS", "MultiHeadAttention", "PATTERNS",
    "PRESETS", "TrainedTrace", "TransformerBlock",
    "apply_rotary", "attention", "available_devices", "blocked_rows", "causal_mask", "contribution_shares",
    "embed_tokens", "fast_attention", "head_norms",
    "from_torch_mask", "head_patterns", "lesson_inputs", "lesson_mask", "lesson_module", "norm_patterns",
    "padding_mask",
    "random_inputs", "run_trace", "sinusoidal_encoding", "to_torch_mask", "tokenize", "train", "trained_trace",
    "value_norms", "weighted_norms", "window_mask",
]
