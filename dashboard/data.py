"""Cached calls into `core`, keyed on plain values (`cfg.key()`, ints), never on tensors."""

import streamlit as st

from core import AttentionConfig, ConfigError, analysis, run_trace
from core.views import stage_summary

SATURATION_D_KS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


@st.cache_data(max_entries=64, show_spinner=False)
def _trace(key: str, _cfg_json: str):
    """`key` is the hash of `_cfg_json`, so only it needs hashing."""
    return run_trace(AttentionConfig.from_json(_cfg_json))


def trace(cfg: AttentionConfig):
    return _trace(cfg.key(), cfg.to_json())


@st.cache_data(max_entries=16, show_spinner=False)
def saturation(T: int, seeds: int) -> tuple[dict, dict]:
    """(with ÷√d_k, without) as core.analysis.saturation reports them."""
    return (analysis.saturation(SATURATION_D_KS, T=T, seeds=range(seeds), scaled=True),
            analysis.saturation(SATURATION_D_KS, T=T, seeds=range(seeds), scaled=False))


@st.cache_data(max_entries=64, show_spinner=False)
def score_row(d_k: int, T: int, seed: int, scaled: bool):
    return analysis.score_row(d_k, T, seed, scaled)


@st.cache_data(max_entries=16, show_spinner=False)
def positional(T: int, d: int):
    """(table (T, d), similarity (T, T)) of the sinusoidal encoding."""
    return analysis.positional_table(T, d), analysis.positional_similarity(T, d)


def traces_by_positional(cfg: AttentionConfig) -> dict:
    """The same lesson under every positional encoding that works for it."""
    out = {}
    for p in ("none", "sinusoidal", "learned", "rotary"):
        try:
            out[p] = trace(cfg.replace(positional=p))
        except ConfigError as err:  # e.g. rotary needs an even d_k
            out[p] = err
    return out


@st.cache_data(max_entries=32, show_spinner=False)
def _block(key: str, _cfg_json: str, norm_first: bool):
    stages = analysis.block_stages(AttentionConfig.from_json(_cfg_json), norm_first=norm_first)
    return stages, stage_summary(stages)


def block(cfg: AttentionConfig, norm_first: bool):
    """(stages name -> (T, D), summary rows) of one Transformer block on the lesson."""
    return _block(cfg.key(), cfg.to_json(), norm_first)
