"""attention-lab's core: every number the dashboard shows and the animations draw."""

from .attention import attention
from .block import TransformerBlock
from .config import MAX_TOKENS, AttentionConfig, ConfigError
from .device import available_devices, resolve_device
from .inputs import embed_tokens, random_inputs, tokenize
from .lesson import lesson_inputs, lesson_mask, lesson_module, lesson_scale, run_trace
from .masks import blocked_rows, causal_mask, from_torch_mask, padding_mask, to_torch_mask, window_mask
from .multihead import MultiHeadAttention
from .positional import LearnedPositionalEncoding, apply_rotary, sinusoidal_encoding
from .presets import PRESETS
from .trace import AttentionTrace

__all__ = [
    "AttentionConfig", "AttentionTrace", "ConfigError", "LearnedPositionalEncoding", "MAX_TOKENS",
    "MultiHeadAttention", "PRESETS", "TransformerBlock", "apply_rotary", "attention",
    "available_devices", "blocked_rows", "causal_mask", "embed_tokens", "from_torch_mask",
    "lesson_inputs", "lesson_mask", "lesson_module", "lesson_scale", "padding_mask",
    "random_inputs", "resolve_device", "run_trace", "sinusoidal_encoding", "to_torch_mask",
    "tokenize", "window_mask",
]
