"""Numbers for the lessons around attention: why √d_k, what positions look like, what a
whole block does. The front ends plot these; they compute none of them."""

import math

import numpy as np
import torch

from .attention import attention
from .bert import load_minilm
from .block import TransformerBlock
from .config import MINILM, AttentionConfig, ConfigError
from .device import resolve_device
from .lesson import lesson_inputs, lesson_mask
from .positional import sinusoidal_encoding


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


def block_stages(cfg: AttentionConfig, d_ff: int | None = None, norm_first: bool = False,
                 activation: str | None = None) -> dict:
    """Each stage of a Transformer block on the lesson's tokens: name -> (T, D) numpy.

    Random lessons build a block from the seed (d_ff 4·D and ReLU unless given). The trained
    model's lesson walks through its own layer `cfg.layer` (post-LN, GELU, d_ff 1536).
    """
    device = resolve_device(cfg.device)
    if cfg.source == "trained":
        block = _trained_block(cfg, d_ff, norm_first, activation, device)
    else:
        block = _seeded_block(cfg, d_ff or 4 * cfg.d_model, norm_first, activation or "relu", device)
    x = lesson_inputs(cfg, device)  # (T, D)
    mask = lesson_mask(cfg, device)
    with torch.no_grad():
        stages = block.stages(x.unsqueeze(0), mask)
    return {name: t[0].cpu().numpy() for name, t in stages.items()}


def _seeded_block(cfg, d_ff, norm_first, activation, device) -> TransformerBlock:
    torch_state = torch.random.get_rng_state()
    torch.manual_seed(cfg.seed)  # the block's own weights, from the lesson's seed
    try:
        block = TransformerBlock(cfg.d_model, cfg.num_heads, d_ff, norm_first=norm_first, activation=activation)
    finally:
        torch.random.set_rng_state(torch_state)
    return block.to(device).eval()


def _trained_block(cfg, d_ff, norm_first, activation, device) -> TransformerBlock:
    """The model's own block; a different block shape asked for is refused, not ignored."""
    if norm_first or activation not in (None, "gelu") or d_ff not in (None, MINILM.d_ff):
        raise ConfigError(f"The trained model's blocks are its own: LayerNorm after each sub-layer, GELU, "
                          f"d_ff {MINILM.d_ff}.", "source")
    return load_minilm(device).blocks[cfg.layer - 1]
