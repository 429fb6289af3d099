"""Property tests over the space of lessons a student can configure."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import AttentionConfig, run_trace
from core.analysis import block_stages


@st.composite
def lessons(draw):
    heads = draw(st.sampled_from([1, 2, 4, 8]))
    d_model = heads * draw(st.sampled_from([2, 4, 6, 8]))
    source = draw(st.sampled_from(["text", "random"]))
    T = draw(st.integers(1, 24))
    text = " ".join(draw(st.lists(st.sampled_from(["the", "cat", "sat", ",", "on", "mat", "."]),
                                  min_size=T, max_size=T)))
    mask = draw(st.sampled_from(["none", "causal", "padding", "window", "custom"]))
    custom = tuple(tuple(draw(st.booleans()) for _ in range(T)) for _ in range(T))
    return AttentionConfig(
        source=source, text=text, seq_len=T, d_model=d_model, num_heads=heads, mask=mask,
        pad_length=draw(st.integers(1, T)), window=draw(st.integers(1, T + 2)),
        custom_mask=custom if mask == "custom" else (),
        positional=draw(st.sampled_from(["none", "sinusoidal", "learned", "rotary"])),
        scale=draw(st.booleans()), temperature=draw(st.floats(0.05, 10.0)),
        seed=draw(st.integers(0, 2**32 - 1)), device="cpu")


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lessons())
def test_traces_are_finite_normalised_shaped_and_reproducible(cfg):
    t = run_trace(cfg)
    T, D, H, d_k = cfg.num_tokens, cfg.d_model, cfg.num_heads, cfg.d_k
    assert t.q.shape == t.k.shape == t.v.shape == t.heads.shape == (H, T, d_k)
    assert t.scores.shape == t.scaled.shape == t.masked.shape == t.weights.shape == (H, T, T)
    assert t.x.shape == t.concat.shape == t.output.shape == (T, D) and t.mask.shape == (T, T)
    for name in ("x", "q", "k", "v", "scores", "scaled", "weights", "heads", "concat", "output"):
        assert np.isfinite(getattr(t, name)).all(), name
    assert not np.isnan(t.masked).any()
    sums = t.weights.sum(-1)  # (H, T)
    assert np.allclose(sums[:, ~t.blocked_rows], 1, atol=1e-5)
    assert (t.weights[:, t.blocked_rows] == 0).all()
    assert (t.weights[:, ~t.mask] == 0).all()
    assert np.array_equal(t.blocked_rows, ~t.mask.any(-1))
    again = run_trace(AttentionConfig.from_dict(cfg.to_dict()))
    for name in ("weights", "output", "masked"):
        assert np.array_equal(getattr(t, name), getattr(again, name)), name


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lessons())
def test_the_blocks_attention_stage_is_the_lessons_attention(cfg):
    np.testing.assert_allclose(block_stages(cfg)["attention"], run_trace(cfg).output, atol=1e-4, rtol=1e-4)
