"""From a lesson's settings to its numbers: `run_trace(cfg)` is the one entry point that the
dashboard and the animations share."""

import copy
import math

import torch

from .bert import load_minilm
from .config import MAX_TOKENS, AttentionConfig
from .device import resolve_device
from .inputs import embed_tokens, generator, random_inputs
from .masks import causal_mask, padding_mask, window_mask
from .multihead import MultiHeadAttention
from .positional import LearnedPositionalEncoding, sinusoidal_encoding
from .trace import AttentionTrace
from .trained import trained_trace


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


def lesson_module(cfg: AttentionConfig, device=None) -> MultiHeadAttention:
    """W_Q, W_K, W_V, W_O drawn N(0, 1/D) from the seed (no biases, as in the article).

    With inputs of unit variance, q·k then has variance d_k: exactly what ÷√d_k undoes.
    Weights are drawn on the CPU, so every device starts from the same numbers.
    The trained model: a copy of its layer `cfg.layer`'s attention (biases included).
    """
    if cfg.source == "trained":
        return copy.deepcopy(load_minilm(device or "cpu").blocks[cfg.layer - 1].attn)
    D = cfg.d_model
    module = MultiHeadAttention(D, cfg.num_heads, bias=False, rotary=cfg.positional == "rotary")
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
        return torch.from_numpy(trained_trace(cfg.text, cfg.device).hidden_states[cfg.layer - 1]).to(device)
    if cfg.source == "manual":
        return torch.tensor(cfg.q, dtype=torch.float32, device=device)  # positions: none or rotary
    if cfg.source == "text":
        x = embed_tokens(cfg.tokens, cfg.d_model)
    else:
        x = random_inputs(cfg.seq_len, cfg.d_model, cfg.seed)
    T = x.shape[0]
    if cfg.positional == "sinusoidal":
        x = x + sinusoidal_encoding(T, cfg.d_model)
    elif cfg.positional == "learned":
        table = LearnedPositionalEncoding(MAX_TOKENS, cfg.d_model)
        gen = generator(cfg.seed, "positions")
        with torch.no_grad():
            table.table.weight.copy_(torch.randn(MAX_TOKENS, cfg.d_model, generator=gen))
            x = table(x)
    return x.to(device)  # (T, D)


def lesson_scale(cfg: AttentionConfig) -> float:
    """The factor the scores are multiplied by: 1/√d_k (if on) and 1/temperature."""
    return (1.0 / math.sqrt(cfg.d_k) if cfg.scale else 1.0) / cfg.temperature


def _manual_module(cfg: AttentionConfig, device) -> MultiHeadAttention:
    """Identity projections, so the entered Q, K, V are used as they are and W_O = I."""
    D = cfg.d_model
    module = MultiHeadAttention(D, cfg.num_heads, bias=False, rotary=cfg.positional == "rotary")
    with torch.no_grad():
        module.in_proj.weight.copy_(torch.eye(D).repeat(3, 1))
        module.out_proj.weight.copy_(torch.eye(D))
    return module.to(device)


def run_trace(cfg: AttentionConfig) -> AttentionTrace:
    """Every intermediate of the lesson `cfg`, as numpy arrays. Same cfg ⇒ identical trace.

    The trained model: layer `cfg.layer` of `trained_trace(cfg.text)` (12 heads).
    """
    if cfg.source == "trained":
        return trained_trace(cfg.text, cfg.device).layer(cfg.layer).with_config(cfg)
    device = resolve_device(cfg.device)
    mask = lesson_mask(cfg, device)
    if cfg.source == "manual":
        qkv = [torch.tensor(m, dtype=torch.float32, device=device) for m in (cfg.q, cfg.k, cfg.v)]
        module, x = _manual_module(cfg, device), qkv[0]
    else:
        module, x, qkv = lesson_module(cfg, device), lesson_inputs(cfg, device), None
    trace = module.trace(x, mask, scale=lesson_scale(cfg), tokens=cfg.tokens, qkv=qkv)
    return trace.with_config(cfg)
