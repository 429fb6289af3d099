"""`run_trace`: the lesson's numbers, checked against an independent computation."""

import math
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from core import (
    MAX_TOKENS,
    PRESETS,
    AttentionConfig,
    ConfigError,
    embed_tokens,
    lesson_inputs,
    lesson_mask,
    lesson_module,
    run_trace,
    sinusoidal_encoding,
)
from core.analysis import block_parameters, block_stages, positional_similarity, saturation, score_row, shuffle_demo
from core.lesson import generator
from core.trace import token_labels


def test_trace_matches_sdpa_step_by_step():
    cfg = AttentionConfig(text="the cat sat on the mat", d_model=12, num_heads=3, mask="causal",
                          positional="sinusoidal", temperature=0.5, seed=4)
    t = run_trace(cfg)
    module, x = lesson_module(cfg).requires_grad_(False), lesson_inputs(cfg)
    q, k, v = ((x @ w.T).reshape(6, 3, 4).transpose(0, 1) for w in module.in_proj.weight.chunk(3))
    scale = 1 / (math.sqrt(4) * 0.5)
    heads = F.scaled_dot_product_attention(q, k, v, attn_mask=lesson_mask(cfg), scale=scale)  # (H, T, d_k)
    np.testing.assert_allclose(t.heads, heads.numpy(), atol=1e-5)
    np.testing.assert_allclose(t.scores, (q @ k.transpose(-2, -1)).numpy(), atol=1e-5)
    np.testing.assert_allclose(t.scaled, t.scores * scale, atol=1e-5)
    assert t.tokens == ["the", "cat", "sat", "on", "the", "mat"]
    assert t.config == cfg and t.scale == pytest.approx(scale)


def test_positions_are_added_to_the_embeddings():
    base = AttentionConfig(d_model=8, num_heads=2)
    with_pe = lesson_inputs(base.replace(positional="sinusoidal"))
    torch.testing.assert_close(with_pe - lesson_inputs(base), sinusoidal_encoding(7, 8))
    assert not torch.equal(lesson_inputs(base.replace(positional="learned")), lesson_inputs(base))


def test_rotary_changes_attention_but_not_values():
    base = AttentionConfig(d_model=8, num_heads=2)
    plain, rot = run_trace(base), run_trace(base.replace(positional="rotary"))
    assert np.array_equal(plain.v, rot.v) and not np.allclose(plain.weights, rot.weights)


def test_no_scale_and_custom_mask_with_blocked_row():
    grid = tuple(tuple(j <= i and i != 1 for j in range(3)) for i in range(3))
    t = run_trace(AttentionConfig(source="random", seq_len=3, d_model=4, num_heads=1, scale=False,
                                  mask="custom", custom_mask=grid))
    assert t.scale == 1.0 and np.array_equal(t.scaled, t.scores)
    assert t.blocked_rows.tolist() == [False, True, False]
    assert (t.weights[0, 1] == 0).all() and np.isneginf(t.masked[0, 1]).all()


def test_every_preset_runs():
    for name, cfg in PRESETS.items():
        t = run_trace(cfg)
        assert t.weights.shape == (cfg.num_heads, cfg.num_tokens, cfg.num_tokens), name


def test_run_trace_on_each_device(device):
    cfg = PRESETS["causal-sentence"]
    on_device = run_trace(cfg.replace(device=device.type))
    on_cpu = run_trace(cfg.replace(device="cpu"))
    np.testing.assert_allclose(on_device.weights, on_cpu.weights, atol=1e-5)
    np.testing.assert_allclose(on_device.output, on_cpu.output, atol=1e-5)


def test_saturation_without_scale_tends_to_one_hot():
    d_ks = [2, 32, 512]
    raw, scaled = saturation(d_ks, T=16, seeds=range(5), scaled=False), saturation(d_ks, T=16, seeds=range(5))
    assert raw["entropy"][0] > raw["entropy"][1] > raw["entropy"][2]
    assert raw["max_weight"][2] > 0.85 and max(scaled["max_weight"]) < 0.4
    assert max(scaled["entropy"]) - min(scaled["entropy"]) < 0.2
    assert scaled["uniform_entropy"] == pytest.approx(math.log(16))
    row = score_row(8, 5, seed=0, scaled=True)
    assert row.shape == (5,) and row.sum() == pytest.approx(1, abs=1e-6)


def test_positional_similarity_is_one_on_the_diagonal():
    sim = positional_similarity(10, 16)
    np.testing.assert_allclose(np.diag(sim), 1, atol=1e-6)
    assert sim[0, 1] > sim[0, 9]  # near positions look more alike


@pytest.mark.parametrize("name", [n for n, c in PRESETS.items() if c.source != "manual"])
def test_post_ln_blocks_attention_stage_is_the_lessons_attention(name):
    cfg = PRESETS[name]
    stages = block_stages(cfg)
    np.testing.assert_allclose(stages["attention"], run_trace(cfg).output, atol=1e-5)
    assert all(v.shape == (cfg.num_tokens, cfg.d_model) for v in stages.values())


def test_blocks_follow_the_lessons_scale_temperature_and_rotary():
    base = AttentionConfig(d_model=8, num_heads=2, positional="rotary")
    for cfg in (base, base.replace(scale=False), base.replace(temperature=0.2), base.replace(mask="causal")):
        np.testing.assert_allclose(block_stages(cfg)["attention"], run_trace(cfg).output, atol=1e-5)
    assert not np.allclose(block_stages(base)["attention"], block_stages(base.replace(temperature=0.2))["attention"])


def test_hand_entered_lessons_have_no_block_and_say_why():
    cfg = PRESETS["article-2x2"]
    np.testing.assert_array_equal(lesson_inputs(cfg).numpy(), np.array(cfg.q, dtype=np.float32))
    with pytest.raises(ConfigError, match="hand-entered Q, K, V skip that step"):
        block_stages(cfg)


def test_block_parameters_count_like_torchs_layer_and_by_hand():
    cfg = AttentionConfig(d_model=16, num_heads=4)
    counts = block_parameters(cfg)
    D = 16
    assert list(counts.values()) == [4 * D * D, 2 * D * 4 * D, 2 * D]  # W_Q,K,V,O; two FFN layers; two LN scales
    ref = torch.nn.TransformerEncoderLayer(D, 4, dim_feedforward=4 * D, bias=False)
    assert sum(counts.values()) == sum(p.numel() for p in ref.parameters())
    assert counts["feed-forward (two layers)"] > sum(counts.values()) / 2  # most of the block


@pytest.mark.parametrize("source", ["text", "random"])
def test_shuffling_tokens_shuffles_the_output_only_without_positions(source):
    order = [3, 0, 6, 1, 5, 2, 4]
    base = AttentionConfig(source=source, seq_len=7, d_model=8, num_heads=2, mask="causal")
    plain = shuffle_demo(base, order)
    np.testing.assert_allclose(plain["shuffled"], plain["output"][order], atol=1e-5)
    for positional in ("sinusoidal", "learned", "rotary"):
        demo = shuffle_demo(base.replace(positional=positional), order)
        assert np.abs(demo["shuffled"] - demo["output"][order]).max() > 1e-2, positional


def test_two_sessions_in_threads_get_the_numbers_they_would_get_alone():
    from concurrent.futures import ThreadPoolExecutor

    lessons = [AttentionConfig(d_model=16, num_heads=2, positional="learned", seed=s) for s in (1, 2)]

    def numbers(cfg):
        return run_trace(cfg).output, block_stages(cfg)["output"], block_stages(cfg, norm_first=True)["output"]

    alone = [numbers(c) for c in lessons]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns every few bytecodes, as under a busy server
    try:
        with ThreadPoolExecutor(4) as pool:
            together = list(pool.map(numbers, lessons * 25))
    finally:
        sys.setswitchinterval(interval)
    for i, got in enumerate(together):
        for a, b in zip(got, alone[i % 2], strict=True):
            # Another lesson's weights would differ by whole units; threads may only split a sum
            # across cores differently (torch's intra-op pool), a difference in the last bits.
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_lessons_leave_torchs_global_random_state_alone():
    cfg = AttentionConfig(d_model=16, num_heads=2, positional="learned", seed=5)
    before = torch.random.get_rng_state()
    run_trace(cfg), block_stages(cfg), block_parameters(cfg), shuffle_demo(cfg, range(7))
    assert torch.equal(torch.random.get_rng_state(), before)


def test_rotary_trace_matches_sdpa_on_independently_rotated_q_and_k():
    cfg = AttentionConfig(d_model=8, num_heads=2, positional="rotary", mask="causal")
    t, module, x = run_trace(cfg), lesson_module(cfg).requires_grad_(False), lesson_inputs(cfg)
    T, H, d_k = cfg.num_tokens, 2, 4
    q, k, v = ((x @ w.T).reshape(T, H, d_k).transpose(0, 1) for w in module.in_proj.weight.chunk(3))

    def rotate(a):  # pairs (a[2i], a[2i+1]) as complex numbers times e^(i·pos·θ_i), θ_i = 10000^(-2i/d_k)
        theta = 10000.0 ** (-torch.arange(0, d_k, 2, dtype=torch.float64) / d_k)
        turn = torch.polar(torch.ones(T, d_k // 2, dtype=torch.float64), torch.arange(T)[:, None] * theta)
        pairs = torch.view_as_complex(a.double().reshape(H, T, d_k // 2, 2).contiguous())
        return torch.view_as_real(pairs * turn).reshape(H, T, d_k).float()

    q, k = rotate(q), rotate(k)
    heads = F.scaled_dot_product_attention(q, k, v, attn_mask=lesson_mask(cfg))
    np.testing.assert_allclose(t.q, q.numpy(), atol=1e-5)
    np.testing.assert_allclose(t.heads, heads.numpy(), atol=1e-5)


def test_learned_positions_trace_matches_sdpa_on_a_seeded_table():
    cfg = AttentionConfig(d_model=8, num_heads=2, positional="learned", seed=3)
    table = torch.randn(MAX_TOKENS, 8, generator=generator(3, "positions"))[: cfg.num_tokens]
    x = embed_tokens(cfg.tokens, 8) + table
    module = lesson_module(cfg).requires_grad_(False)
    q, k, v = ((x @ w.T).reshape(7, 2, 4).transpose(0, 1) for w in module.in_proj.weight.chunk(3))
    np.testing.assert_allclose(run_trace(cfg).heads, F.scaled_dot_product_attention(q, k, v).numpy(), atol=1e-5)


def test_padding_demo_appends_pad_tokens_and_keeps_every_real_token():
    from core.lesson import with_mask

    cfg = with_mask(PRESETS["default"], "padding")
    assert cfg.tokens == ["The", "cat", "sat", "on", "the", "mat", ".", "PAD", "PAD"]
    assert cfg.pad_length == 7
    keep = run_trace(cfg).mask
    assert keep[:, :7].all() and not keep[:, 7:].any()


def test_padding_demo_of_random_and_hand_entered_lessons():
    from core.lesson import with_mask

    random = with_mask(AttentionConfig(source="random", seq_len=5), "padding")
    assert (random.seq_len, random.pad_length) == (7, 5)
    manual = with_mask(PRESETS["article-2x2"], "padding")
    assert manual.num_tokens == 4 and manual.pad_length == 2
    assert manual.v[2:] == ((0.0, 0.0), (0.0, 0.0))
    full = AttentionConfig(source="random", seq_len=64)
    assert with_mask(full, "padding").pad_length == 64  # no room for padding: every token stays real


def test_blocked_row_demo_blocks_only_the_first_query():
    from core.lesson import with_mask

    t = run_trace(with_mask(PRESETS["default"], "custom"))
    assert t.blocked_rows.tolist() == [True] + [False] * 6
    assert with_mask(PRESETS["padding"], "padding") == PRESETS["padding"]


def test_token_labels_mark_punctuation_and_symbols_only_tokens_with_angle_brackets():
    """A bare "." is a speck on a projected axis; words with an apostrophe or a hyphen stay as they are."""
    assert token_labels([".", "—", "?!", "+", "didn't", "[CLS]", "##s", "e-mail", "x"]) == [
        "1 ⟨.⟩", "2 ⟨—⟩", "3 ⟨?!⟩", "4 ⟨+⟩", "5 didn't", "6 [CLS]", "7 ##s", "8 e-mail", "9 x"]


def test_token_labels_number_tokens_from_1_so_repeated_words_stay_apart():
    labels = token_labels(["The", "cat", "the", "cat", ","])
    assert labels == ["1 The", "2 cat", "3 the", "4 cat", "5 ⟨,⟩"] and len(set(labels)) == 5
    assert token_labels(run_trace(AttentionConfig(text="a a")).tokens) == ["1 a", "2 a"]


def test_row_flatness_flat_is_the_mean_of_one_over_keys_under_a_causal_mask():
    """Rows 2..T of a causal T-token lesson see 2..T keys: a flat row gives each 1/i, so the baseline is
    the mean of 1/i, which is larger than 1/(mean keys) (Jensen) -- the number page 1 used to say."""
    from core.trace import row_flatness

    cfg = PRESETS["causal-sentence"]
    T = cfg.num_tokens
    flat = row_flatness(run_trace(cfg), 0)
    assert flat["keys"] == pytest.approx(sum(range(2, T + 1)) / (T - 1))
    assert flat["flat"] == pytest.approx(sum(1 / i for i in range(2, T + 1)) / (T - 1))
    assert flat["flat"] > 1 / flat["keys"] + 0.04
    unmasked = row_flatness(run_trace(PRESETS["default"]), 0)
    assert unmasked["flat"] == pytest.approx(1 / PRESETS["default"].num_tokens)
