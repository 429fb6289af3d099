"""Cached calls into `core`, keyed on plain values (`cfg.key()`, ints), never on tensors.

One cache per server, bounded by memory (ATTENTION_LAB_LESSON_CACHE_MB, default 256 MB: about
fifteen of the largest lessons, thousands of classroom-sized ones), shared by every session.
"""

import os

import streamlit as st

from core import AttentionConfig, ConfigError, analysis, run_trace
from core.views import stage_summary
from dashboard.memo import MemoryLRU

SATURATION_D_KS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
BUDGET_BYTES = int(float(os.environ.get("ATTENTION_LAB_LESSON_CACHE_MB", "256")) * 1024**2)


@st.cache_resource(show_spinner=False)
def memo() -> MemoryLRU:
    return MemoryLRU(BUDGET_BYTES)


def trace(cfg: AttentionConfig):
    return memo().get_or_make(("trace", cfg.key()), lambda: run_trace(cfg))


def saturation(T: int, seeds: int) -> tuple[dict, dict]:
    """(with ÷√d_k, without) as core.analysis.saturation reports them."""
    return memo().get_or_make(("saturation", T, seeds), lambda: tuple(
        analysis.saturation(SATURATION_D_KS, T=T, seeds=range(seeds), scaled=s) for s in (True, False)))


def score_row(d_k: int, T: int, seed: int, scaled: bool):
    return memo().get_or_make(("score_row", d_k, T, seed, scaled), lambda: analysis.score_row(d_k, T, seed, scaled))


def positional(T: int, d: int):
    """(table (T, d), similarity (T, T)) of the sinusoidal encoding."""
    return memo().get_or_make(("positional", T, d), lambda: (analysis.positional_table(T, d),
                                                              analysis.positional_similarity(T, d)))


def traces_by_positional(cfg: AttentionConfig) -> dict:
    """The same lesson under every positional encoding that works for it."""
    out = {}
    for p in ("none", "sinusoidal", "learned", "rotary"):
        try:
            out[p] = trace(cfg.replace(positional=p))
        except ConfigError as err:  # e.g. rotary needs an even d_k
            out[p] = err
    return out


def block(cfg: AttentionConfig, norm_first: bool):
    """(stages name -> (T, D), summary rows) of the lesson's Transformer block."""

    def make():
        stages = analysis.block_stages(cfg, norm_first=norm_first)
        return stages, stage_summary(stages)

    return memo().get_or_make(("block", cfg.key(), norm_first), make)


def block_parameters(cfg: AttentionConfig) -> dict:
    return memo().get_or_make(("block_parameters", cfg.key()), lambda: analysis.block_parameters(cfg))


def shuffle_demo(cfg: AttentionConfig, order: tuple) -> dict:
    return memo().get_or_make(("shuffle", cfg.key(), order), lambda: analysis.shuffle_demo(cfg, order))
