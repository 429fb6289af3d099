"""Tokens and their embeddings: deterministic, and independent of the lesson's seed."""

import torch

from core import AttentionConfig, embed_tokens, lesson_inputs, lesson_module, random_inputs, tokenize


def test_tokenize_words_and_punctuation():
    assert tokenize("The cat sat, didn't it?") == ["The", "cat", "sat", ",", "didn't", "it", "?"]
    assert tokenize("it’s 'quoted' rock'n'roll") == ["it’s", "'", "quoted", "'", "rock'n'roll"]
    assert tokenize("  ") == []


def test_control_and_format_characters_are_not_tokens():
    assert tokenize("before\x00after\x1b[31mred\u202eevil\x07") == ["before", "after", "[", "31mred", "evil"]
    assert tokenize("\x00\u200b\x7f") == []


def test_same_word_same_vector_whatever_the_seed_or_sentence():
    a = lesson_inputs(AttentionConfig(text="the cat sat", seed=0))
    b = lesson_inputs(AttentionConfig(text="a cat ran", seed=99))
    torch.testing.assert_close(a[1], b[1], rtol=0, atol=0)
    assert not torch.equal(a[0], a[1])
    torch.testing.assert_close(embed_tokens(["The"], 8), embed_tokens(["the"], 8), rtol=0, atol=0)


def test_wider_embeddings_extend_narrower_ones():
    torch.testing.assert_close(embed_tokens(["cat"], 16)[:, :8], embed_tokens(["cat"], 8), rtol=0, atol=0)


def test_projections_follow_the_seed():
    w0 = lesson_module(AttentionConfig(seed=0)).in_proj.weight
    assert torch.equal(w0, lesson_module(AttentionConfig(seed=0)).in_proj.weight)
    assert not torch.equal(w0, lesson_module(AttentionConfig(seed=1)).in_proj.weight)


def test_random_inputs_follow_the_seed():
    assert torch.equal(random_inputs(4, 8, 3), random_inputs(4, 8, 3))
    assert not torch.equal(random_inputs(4, 8, 3), random_inputs(4, 8, 4))


def test_inputs_and_weights_are_independent_draws():
    # One generator for both would make W_Q's first rows equal x / √D: q = x·xᵀ / √D.
    cfg = AttentionConfig(source="random", seq_len=4, d_model=8, num_heads=1)
    x, w_q = lesson_inputs(cfg), lesson_module(cfg).in_proj.weight[:8]
    assert not torch.allclose(w_q[:4] * 8**0.5, x)
    corr = torch.corrcoef(torch.stack([x.flatten(), (w_q[:4] * 8**0.5).flatten()]))[0, 1]
    assert abs(corr) < 0.6
