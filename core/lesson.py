"""From a lesson's settings to its numbers: `run_trace(cfg)` is the one entry point that the
dashboard and the animations share. What a lesson runs on: its tokens and their vectors (a
sentence, a seed, or hand-entered matrices), its weights, its mask."""

import copy
import hashlib
import math

import torch

from .config import AttentionConfig
from .devices import resolve_device
from .limits import MAX_D_MODEL, MAX_TOKENS
from .masks import causal_mask, padding_mask, window_mask
from .models import load
from .multihead import MultiHeadAttention
from .positional import LearnedPositionalEncoding, sinusoidal_encoding
from .trace import AttentionTrace
from .trained import trained_trace


# -- the tokens' vectors ----------------------------------------------------------------------
def _hash_seed(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")


def _word_seed(token: str) -> int:
    return _hash_seed(token.lower())


def generator(seed: int, stream: str) -> torch.Generator:
    """A CPU generator for one use of a lesson's seed ("inputs", "weights", "positions").

    Separate streams keep those draws independent: one generator seeded alike for inputs
    and weights would make W_Q's first rows a copy of x, and q = x·xᵀ a bright diagonal.
    """
    return torch.Generator().manual_seed(_hash_seed(f"{stream}:{seed}"))


def embed_tokens(tokens: list[str], d_model: int) -> torch.Tensor:
    """A fixed vector per word (case-insensitive), the same in every lesson and for every seed.

    Each word's vector is the first d_model entries of one N(0, 1) draw seeded by the word
    itself, so "cat" keeps its leading entries when d_model grows. Made on the CPU so that
    every device starts from the same numbers.
    """
    rows = []
    for token in tokens:
        gen = torch.Generator().manual_seed(_word_seed(token))
        rows.append(torch.randn(MAX_D_MODEL, generator=gen)[:d_model])
    return torch.stack(rows) if rows else torch.zeros(0, d_model)  # (T, D)


def random_inputs(T: int, d_model: int, seed: int) -> torch.Tensor:
    """T random token vectors N(0, 1) from a seed, made on the CPU."""
    return torch.randn(T, d_model, generator=generator(seed, "inputs"))  # (T, D)


# -- the lesson's mask, weights and inputs ------------------------------------------------------
def lesson_mask(cfg: AttentionConfig, device=None) -> torch.Tensor:
    """The (T, T) keep-mask that the settings describe."""
    T = cfg.num_tokens
    if cfg.mask == "causal":
        return causal_mask(T, device=device)
    if cfg.mask == "padding":
        return padding_mask([cfg.pad_length], T, device=device)[0]
    if cfg.mask == "window":
        return window_mask(T, cfg.window, device=device)
    if cfg.mask == "custom":
        return torch.tensor(cfg.custom_mask, dtype=torch.bool, device=device)
    return torch.ones(T, T, dtype=torch.bool, device=device)


PAD_TOKEN = "PAD"
DEMO_PADDING = 2  # padding tokens a demo appends to a lesson that has none


def with_mask(cfg: AttentionConfig, kind: str) -> AttentionConfig:
    """The lesson under another mask kind, by one rule for the dashboard and the videos.

    - padding: a lesson without padding gets DEMO_PADDING padding tokens appended ("PAD"
      words, random rows or zero rows), so that real tokens are never called padding;
    - custom: a lesson without a custom grid gets a causal one whose first query may see
      nothing, to show a fully blocked row;
    - the others keep every other setting.
    """
    if kind == cfg.mask:
        return cfg
    if kind == "padding":
        return _padded(cfg)
    if kind == "custom":
        T = cfg.num_tokens
        grid = tuple(tuple(0 < i and j <= i for j in range(T)) for i in range(T))
        return cfg.replace(mask="custom", custom_mask=grid)
    return cfg.replace(mask=kind, custom_mask=())


def _padded(cfg: AttentionConfig) -> AttentionConfig:
    T = cfg.num_tokens
    extra = min(DEMO_PADDING, MAX_TOKENS - T)
    base = dict(mask="padding", pad_length=T, custom_mask=())
    if cfg.source == "text":
        return cfg.replace(text=cfg.text.rstrip() + f" {PAD_TOKEN}" * extra, **base)
    if cfg.source == "random":
        return cfg.replace(seq_len=T + extra, **base)
    zeros = ((0.0,) * cfg.d_model,) * extra  # hand-entered: padding rows of zeros
    return cfg.replace(q=cfg.q + zeros, k=cfg.k + zeros, v=cfg.v + zeros, **base)


def unfilled(cls, *args, **kwargs):
    """A module whose parameters are allocated but not initialised, on the CPU: for callers that
    fill every one. nn.Linear's own initialisation would draw from torch's global RNG, which all
    sessions share (they run in threads), and is far slower at large d_model (docs/performance.md)."""
    with torch.device("meta"):
        module = cls(*args, **kwargs)
    return module.to_empty(device="cpu")


def lesson_module(cfg: AttentionConfig, device=None) -> MultiHeadAttention:
    """W_Q, W_K, W_V, W_O drawn N(0, 1/D) from the seed, with no biases (the article draws N(0, 1): PRESETS).

    With inputs of unit variance, q·k then has variance d_k: exactly what ÷√d_k undoes.
    Weights are drawn on the CPU, so every device starts from the same numbers.
    The trained model: a copy of its layer `cfg.layer`'s attention (biases included).
    """
    if cfg.source == "trained":
        dev = device if isinstance(device, torch.device) else resolve_device(device or "cpu")
        model = load(cfg.trained_lesson.model, dev)
        return copy.deepcopy(model.blocks[cfg.layer - 1].attn)
    D = cfg.d_model
    module = unfilled(MultiHeadAttention, D, cfg.num_heads, bias=False, rotary=cfg.positional == "rotary")
    gen = generator(cfg.seed, "weights")
    with torch.no_grad():
        module.in_proj.weight.copy_(torch.randn(3 * D, D, generator=gen) / math.sqrt(D))
        module.out_proj.weight.copy_(torch.randn(D, D, generator=gen) / math.sqrt(D))
    return module.to(device)


def lesson_inputs(cfg: AttentionConfig, device=None) -> torch.Tensor:
    """The token vectors x (T, D) after positions are added.

    Hand-entered lessons have no embeddings: x is the entered Q, as in their trace. The trained
    model: the input of layer `cfg.layer` (its own embeddings and positions, then the layers before).
    """
    if cfg.source == "trained":
        whole = trained_trace(cfg.text, cfg.device, cfg.model)
        return torch.from_numpy(whole.hidden_states[cfg.layer - 1]).to(device)
    if cfg.source == "manual":
        return torch.tensor(cfg.q, dtype=torch.float32, device=device)  # positions: none or rotary
    return add_positions(cfg, token_vectors(cfg)).to(device)  # (T, D)


def token_vectors(cfg: AttentionConfig) -> torch.Tensor:
    """Each token's vector before positions (T, D), on the CPU: a word's own vector, or a seeded draw."""
    if cfg.source == "text":
        return embed_tokens(cfg.tokens, cfg.d_model)
    return random_inputs(cfg.seq_len, cfg.d_model, cfg.seed)


def add_positions(cfg: AttentionConfig, x: torch.Tensor) -> torch.Tensor:
    """x (T, D) plus the lesson's position vectors (sinusoidal or learned; rotary acts on q and k later)."""
    T = x.shape[0]
    if cfg.positional == "sinusoidal":
        return x + sinusoidal_encoding(T, cfg.d_model, device=x.device)
    if cfg.positional == "learned":
        table = torch.randn(MAX_TOKENS, cfg.d_model, generator=generator(cfg.seed, "positions"))
        with torch.no_grad():  # the lesson's table is data, not a parameter being trained
            return LearnedPositionalEncoding.from_table(table.to(x.device))(x)
    return x


def lesson_scale(cfg: AttentionConfig) -> float:
    """The factor the scores are multiplied by: 1/√d_k (if on) and 1/temperature."""
    return (1.0 / math.sqrt(cfg.d_k) if cfg.scale else 1.0) / cfg.temperature


def _manual_module(cfg: AttentionConfig, device) -> MultiHeadAttention:
    """Identity projections, so the entered Q, K, V are used as they are and W_O = I."""
    D = cfg.d_model
    module = unfilled(MultiHeadAttention, D, cfg.num_heads, bias=False, rotary=cfg.positional == "rotary")
    with torch.no_grad():
        module.in_proj.weight.copy_(torch.eye(D).repeat(3, 1))
        module.out_proj.weight.copy_(torch.eye(D))
    return module.to(device)


def run_trace(cfg: AttentionConfig) -> AttentionTrace:
    """Every intermediate of the lesson `cfg`, as numpy arrays. Same cfg ⇒ identical trace.

    The trained model: layer `cfg.layer` of `trained_trace(cfg.text)` (12 heads).
    """
    if cfg.source == "trained":
        return trained_trace(cfg.text, cfg.device, cfg.model).layer(cfg.layer).with_config(cfg)
    device = resolve_device(cfg.device)
    mask = lesson_mask(cfg, device)
    if cfg.source == "manual":
        qkv = [torch.tensor(m, dtype=torch.float32, device=device) for m in (cfg.q, cfg.k, cfg.v)]
        module, x = _manual_module(cfg, device), qkv[0]
    else:
        module, x, qkv = lesson_module(cfg, device), lesson_inputs(cfg, device), None
    trace = module.trace(x, mask, scale=lesson_scale(cfg), tokens=cfg.tokens, qkv=qkv)
    return trace.with_config(cfg)
