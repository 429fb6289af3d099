"""Norm-based attention (Kobayashi et al. 2020): core's ‖α_ij f(x_j)‖ against transformers' BertModel
modules, the measures on hand-made numbers, and the lecturer's measurement of layer 5, head 6."""

import numpy as np
import pytest

from core import NORM_PATTERNS, contribution_shares, norm_patterns, trained_trace, value_norms, weighted_norms
from tests.core.conftest import needs_model, reference_run

EXAMPLE = "The cat sat on the mat because it was tired."
TEXTS = [EXAMPLE, "The ball was chased by the dog until it was exhausted.", "Hi!"]


@needs_model
def test_weighted_norms_match_bert_models_value_and_output_modules(reference):
    found = reference_run(reference, TEXTS)
    for text in TEXTS:
        t = trained_trace(text, device="cpu")
        tokens, weights, norms = found[text]
        assert t.tokens == tokens
        ours = value_norms(t.layers)  # (L, H, T)
        assert ours.shape == (6, 12, len(tokens))
        np.testing.assert_allclose(ours, norms, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(weighted_norms(t.weights, ours), weights * norms[..., None, :], rtol=1e-5, atol=1e-5)


def test_the_measures_on_hand_made_numbers():
    """[CLS] a b [SEP], one head: [CLS]'s value is 10 times shorter than a's and b's."""
    w = np.array([[[[1, 0, 0, 0], [0.8, 0.2, 0, 0], [0.5, 0, 0.25, 0.25], [0.25] * 4]]])  # (1, 1, 4, 4)
    norms = np.array([[[0.5, 5.0, 5.0, 2.0]]])  # (1, 1, 4)
    shares = contribution_shares(w, norms)[0, 0]
    np.testing.assert_allclose(shares[1], [0.4 / 1.4, 1.0 / 1.4, 0, 0])
    np.testing.assert_allclose(shares[2], [0.25 / 2.0, 0, 1.25 / 2.0, 0.5 / 2.0])  # 0.5·0.5, 0.25·5, 0.25·2
    p = {k: float(v[0, 0]) for k, v in norm_patterns(w, norms).items()}
    assert set(p) == set(NORM_PATTERNS)
    assert p["cls_share"] == pytest.approx((0.4 / 1.4 + 0.25 / 2.0) / 2)
    assert p["sep_share"] == pytest.approx((0 + 0.5 / 2.0) / 2)
    assert p["cls_shorter"] == pytest.approx(10.0)
    assert np.all(contribution_shares(np.zeros((1, 1, 3, 3)), np.ones((1, 1, 3))) == 0)  # no NaN


@needs_model
def test_layer_5_head_6_weighs_cls_but_takes_little_from_it():
    """The lecturer's measurement (layer 5, head 6 counted from 1: index [4, 5]) on the example."""
    t = trained_trace(EXAMPLE, device="cpu")
    norms = value_norms(t.layers)
    words = slice(1, len(t.tokens) - 1)
    assert 0.86 < t.weights[4, 5, words, 0].mean() < 0.92
    p = norm_patterns(t.weights, norms)
    assert 0.2 < p["cls_share"][4, 5] < 0.25
    assert 30 < p["cls_shorter"][4, 5] < 45
