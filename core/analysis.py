"""Numbers for the lessons around attention: why √d_k, what positions look like, what a
whole block does. The front ends plot these; they compute none of them."""

import math

import numpy as np
import torch

from .attention import attention
from .bert import load_minilm
from .block import TransformerBlock
from .config import AttentionConfig
from .devices import resolve_device
from .errors import ConfigError
from .lesson import (
    add_positions,
    generator,
    lesson_inputs,
    lesson_mask,
    lesson_module,
    lesson_scale,
    token_vectors,
    unfilled,
)
from .minilm import MINILM
from .positional import sinusoidal_encoding

FF_MULTIPLE = 4  # d_ff = 4 · d_model, as in the 2017 paper and most models since


def _entropy(weights: torch.Tensor) -> torch.Tensor:
    """Shannon entropy of each row in nats; 0 * log 0 counts as 0."""
    return -(weights * weights.clamp_min(1e-30).log()).sum(dim=-1)


def score_row(d_k: int, T: int, seed: int, scaled: bool) -> np.ndarray:
    """One query's weights over T random keys (entries N(0, 1)) of size d_k."""
    gen = torch.Generator().manual_seed(seed)
    q, k = torch.randn(1, d_k, generator=gen), torch.randn(T, d_k, generator=gen)
    _, weights = attention(q, k, k, scale=1 / math.sqrt(d_k) if scaled else 1.0)  # (1, T)
    return weights[0].numpy()


def saturation(d_ks, T: int = 16, seeds=range(20), scaled: bool = True) -> dict:
    """Mean row entropy and mean largest weight of softmax(q·kᵀ [÷√d_k]) for each d_k.

    Without the scale, q·k has variance d_k, so softmax tends to one-hot as d_k grows:
    entropy falls to 0 and the largest weight rises to 1. With it, both stay put.
    """
    entropy, largest = [], []
    for d_k in d_ks:
        e, m = [], []
        for seed in seeds:
            gen = torch.Generator().manual_seed(seed)
            q, k = torch.randn(T, d_k, generator=gen), torch.randn(T, d_k, generator=gen)
            _, w = attention(q, k, k, scale=1 / math.sqrt(d_k) if scaled else 1.0)  # (T, T)
            e.append(_entropy(w).mean().item())
            m.append(w.max(dim=-1).values.mean().item())
        entropy.append(float(np.mean(e)))
        largest.append(float(np.mean(m)))
    return {"d_k": list(d_ks), "entropy": entropy, "max_weight": largest,
            "uniform_entropy": math.log(T)}


def positional_table(T: int, d: int) -> np.ndarray:
    """The sinusoidal encoding (T, d) as numpy."""
    return sinusoidal_encoding(T, d).numpy()


def positional_similarity(T: int, d: int) -> np.ndarray:
    """Cosine similarity between the sinusoidal encodings of every pair of positions (T, T)."""
    pe = sinusoidal_encoding(T, d)
    pe = pe / pe.norm(dim=-1, keepdim=True)
    return (pe @ pe.T).numpy()


def lesson_block(cfg: AttentionConfig, norm_first: bool = False, d_ff: int | None = None,
                 activation: str | None = None, device=None) -> TransformerBlock:
    """A Transformer block around the lesson's own attention (its W_Q, W_K, W_V, W_O and rotary).

    Like the lesson's attention it has no biases; the feed-forward weights are drawn N(0, 1/fan_in)
    from the lesson's seed on a generator of their own (never torch's global one: sessions run in
    threads), and LayerNorm starts as the identity (weight 1). ReLU unless `activation` says
    otherwise. The trained model's lesson is its own layer `cfg.layer` (post-LN, GELU, d_ff 1536).
    """
    if cfg.source == "trained":
        return _trained_block(cfg, d_ff, norm_first, activation, device)
    activation = activation or "relu"
    if cfg.source == "manual":
        raise ConfigError("A Transformer block starts from token vectors x, and hand-entered Q, K, V skip that "
                          "step: choose a sentence or random tokens to see the block.", "source")
    D, d_ff = cfg.d_model, d_ff or FF_MULTIPLE * cfg.d_model
    block = unfilled(TransformerBlock, D, cfg.num_heads, d_ff, norm_first=norm_first, activation=activation,
                     bias=False)
    block.attn = lesson_module(cfg)
    gen = generator(cfg.seed, "feed-forward")
    with torch.no_grad():
        block.linear1.weight.copy_(torch.randn(d_ff, D, generator=gen) / math.sqrt(D))
        block.linear2.weight.copy_(torch.randn(D, d_ff, generator=gen) / math.sqrt(d_ff))
        block.norm1.reset_parameters(), block.norm2.reset_parameters()  # weight 1: the identity
    return block.to(device).eval()


def block_stages(cfg: AttentionConfig, norm_first: bool = False, d_ff: int | None = None,
                 activation: str | None = None) -> dict:
    """Each stage of the lesson's Transformer block on its tokens: name -> (T, D) numpy.

    The attention stage uses the lesson's mask and scale (÷√d_k or not, ÷ temperature), so in a
    post-LN block it equals `run_trace(cfg).output`.
    """
    device = resolve_device(cfg.device)
    block = lesson_block(cfg, norm_first, d_ff, activation, device)
    x = lesson_inputs(cfg, device)  # (T, D)
    with torch.no_grad():
        stages = block.stages(x.unsqueeze(0), lesson_mask(cfg, device), scale=lesson_scale(cfg))
    return {name: t[0].cpu().numpy() for name, t in stages.items()}


def block_parameters(cfg: AttentionConfig, d_ff: int | None = None) -> dict:
    """How many numbers each part of the lesson's block holds: part -> count (counted off the modules)."""
    block = lesson_block(cfg, d_ff=d_ff)
    parts = {"attention (W_Q, W_K, W_V, W_O)": [block.attn],
             "feed-forward (two layers)": [block.linear1, block.linear2],
             "LayerNorm (two)": [block.norm1, block.norm2]}
    return {name: sum(p.numel() for m in modules for p in m.parameters()) for name, modules in parts.items()}


def shuffle_demo(cfg: AttentionConfig, order) -> dict:
    """The lesson's attention output for its tokens and for the same tokens in `order`, with no mask.

    Returns {"positional": p, "output": (T, D), "shuffled": (T, D)} where "shuffled" row i is the
    output of token order[i]. Without positions, attention is permutation-equivariant: the shuffled
    rows are the output rows in the new order. With positions (added or rotary), they are not.
    """
    c = cfg.replace(mask="none", custom_mask=())
    order = torch.as_tensor(list(order))
    x = token_vectors(c)  # (T, D) before positions
    module = lesson_module(c)
    with torch.no_grad():
        out = module(add_positions(c, x))[0]  # (T, D)
        shuffled = module(add_positions(c, x[order]))[0]  # (T, D), positions 0..T-1 again
    return {"positional": c.positional, "output": out.numpy(), "shuffled": shuffled.numpy()}


def _trained_block(cfg, d_ff, norm_first, activation, device) -> TransformerBlock:
    """The model's own block; a different block shape asked for is refused, not ignored."""
    if cfg.model:
        raise ConfigError("The block view runs the built-in MiniLM only.", "model")
    if norm_first or activation not in (None, "gelu") or d_ff not in (None, MINILM.d_ff):
        raise ConfigError(f"The trained model's blocks are its own: LayerNorm after each sub-layer, GELU, "
                          f"d_ff {MINILM.d_ff}.", "source")
    return load_minilm(device).blocks[cfg.layer - 1]
