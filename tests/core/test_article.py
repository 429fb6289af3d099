"""The article's examples, reproduced (shared/seed/attention-article.txt)."""

import math

import torch

from core import PRESETS, attention, causal_mask, run_trace


def test_worked_example_weights_and_output():
    q = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    v = torch.tensor([[10.0, 0.0], [0.0, 20.0]])
    out, w = attention(q, q.clone(), v)
    # By hand: softmax([1/√2, 0]) = [e^a, 1] / (e^a + 1) with a = 1/√2.
    a = math.exp(1 / math.sqrt(2))
    assert torch.allclose(w, torch.tensor([[a, 1], [1, a]]) / (a + 1))
    assert [[f"{x:.3f}" for x in row] for row in w.tolist()] == [["0.670", "0.330"], ["0.330", "0.670"]]
    assert [[f"{x:.2f}" for x in row] for row in out.tolist()] == [["6.70", "6.60"], ["3.30", "13.40"]]


def test_worked_example_preset_through_run_trace():
    trace = run_trace(PRESETS["article-2x2"])
    assert [[f"{x:.3f}" for x in row] for row in trace.weights[0]] == [["0.670", "0.330"], ["0.330", "0.670"]]
    assert [[f"{x:.2f}" for x in row] for row in trace.output] == [["6.70", "6.60"], ["3.30", "13.40"]]


def test_first_listing_rows_sum_to_one():
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(1, 4, 8, generator=gen)
    wq, wk, wv = (torch.randn(8, 8, generator=gen) for _ in range(3))
    out, w = attention(x @ wq, x @ wk, x @ wv)
    assert out.shape == (1, 4, 8)
    assert torch.allclose(w.sum(-1), torch.ones(1, 4))


def test_article_4x8_preset_shapes():
    trace = run_trace(PRESETS["article-4x8"])
    assert trace.weights.shape == (1, 4, 4) and trace.output.shape == (4, 8)


def test_causal_listing_blocks_the_upper_triangle():
    # The article fills mask = triu(ones, 1) with -inf; our keep-mask is its complement.
    blocked = torch.triu(torch.ones(4, 4), diagonal=1).bool()
    assert torch.equal(causal_mask(4), ~blocked)
    trace = run_trace(PRESETS["article-causal"])
    assert (trace.masked[0][blocked.numpy()] == -math.inf).all()
    assert (trace.weights[0][blocked.numpy()] == 0).all()
