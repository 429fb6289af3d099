"""attention-lab's core: every number the dashboard shows and the animations draw."""

from .attention import attention
from .block import TransformerBlock
from .changes import CHANGES, apply_change, available_changes, describe_change
from .compare import CompareError, Comparison, compare
from .config import MAX_TOKENS, MINILM, AttentionConfig, ConfigError
from .device import available_devices, resolve_device
from .guided_heads import HEADS_WORTH_A_LOOK, HeadNote
from .head_patterns import PATTERNS, head_patterns
from .inputs import embed_tokens, random_inputs, tokenize
from .lesson import lesson_inputs, lesson_mask, lesson_module, lesson_scale, run_trace
from .masks import blocked_rows, causal_mask, from_torch_mask, padding_mask, to_torch_mask, window_mask
from .multihead import MultiHeadAttention
from .positional import LearnedPositionalEncoding, apply_rotary, sinusoidal_encoding
from .presets import PRESETS
from .question import Question, QuestionError
from .questions import blocked_question, change_question, focus_question, suggest
from .trace import AttentionTrace
from .trained import TrainedTrace, trained_trace

__all__ = [
    "AttentionConfig", "AttentionTrace", "CHANGES", "CompareError", "Comparison", "ConfigError",
    "HEADS_WORTH_A_LOOK", "HeadNote", "LearnedPositionalEncoding", "MAX_TOKENS", "MINILM", "MultiHeadAttention",
    "PATTERNS", "PRESETS", "Question", "QuestionError", "TrainedTrace", "TransformerBlock", "apply_change",
    "apply_rotary", "attention", "available_changes", "available_devices", "blocked_question", "blocked_rows",
    "causal_mask", "change_question", "compare", "describe_change", "embed_tokens", "focus_question",
    "from_torch_mask", "head_patterns", "lesson_inputs", "lesson_mask", "lesson_module", "lesson_scale",
    "padding_mask", "random_inputs", "resolve_device", "run_trace", "sinusoidal_encoding", "suggest",
    "to_torch_mask", "tokenize", "trained_trace", "window_mask",
]
