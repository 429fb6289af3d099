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


# The article's listings, copied verbatim (only `torch.manual_seed(0)` added before the first: the article
# draws unseeded, and the preset fixes that seed). Run by torch itself, not by any code of ours.
def _article_first_listing():
    import torch, math  # noqa: E401, I001
    import torch.nn.functional as F

    def attention(q, k, v, mask=None):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        weights = F.softmax(scores, dim=-1)
        return weights @ v, weights

    torch.manual_seed(0)
    x = torch.randn(1, 4, 8)                  # batch=1, 4 tokens, dim 8
    Wq, Wk, Wv = (torch.randn(8, 8) for _ in range(3))
    out, w = attention(x @ Wq, x @ Wk, x @ Wv)
    print(out.shape, w.sum(-1))               # each row of weights sums to 1
    return out, w, attention


def _article_causal_listing():
    scores=torch.zeros(4,4)  # noqa: E225, E231
    mask=torch.triu(torch.ones(4,4),diagonal=1).bool()  # noqa: E225, E231
    scores=scores.masked_fill(mask,float('-inf'))  # noqa: E225, E231
    print(scores)
    return scores, mask


def test_article_4x8_preset_is_the_articles_first_listing():
    with torch.random.fork_rng():
        out, w, _ = _article_first_listing()
    trace = run_trace(PRESETS["article-4x8"])
    torch.testing.assert_close(torch.from_numpy(trace.weights[0]), w[0])
    torch.testing.assert_close(torch.from_numpy(trace.output), out[0])
    assert torch.allclose(w.sum(-1), torch.ones(1, 4))
    # W ~ N(0, 1) with no 1/√d: the article's own listing saturates (largest weight of a row, on average)
    assert trace.weights[0].max(-1).mean() > 0.9


def test_article_causal_preset_is_the_articles_masking_listing():
    scores, blocked = _article_causal_listing()
    trace = run_trace(PRESETS["article-causal"])
    assert torch.equal(torch.from_numpy(trace.masked[0]), scores)  # 0 kept, −∞ blocked, cell for cell
    assert torch.equal(causal_mask(4), ~blocked)  # the same cells, in the opposite polarity to its attention()
    weights = torch.softmax(scores, dim=-1)
    torch.testing.assert_close(torch.from_numpy(trace.weights[0]), weights)
    assert [[f"{x:.3f}" for x in row] for row in trace.weights[0]] == [
        ["1.000", "0.000", "0.000", "0.000"], ["0.500", "0.500", "0.000", "0.000"],
        ["0.333", "0.333", "0.333", "0.000"], ["0.250", "0.250", "0.250", "0.250"]]


def test_the_articles_attention_gives_nan_on_a_fully_blocked_row_and_core_gives_zero():
    with torch.random.fork_rng():
        _, _, article = _article_first_listing()
    q = k = v = torch.zeros(1, 4, 4)
    keep = torch.ones(4, 4).tril()
    keep[0] = 0  # the first query may see no key
    out, w = article(q, k, v, keep)
    assert torch.isnan(w[0, 0]).all() and torch.isnan(out[0, 0]).all()
    ours, ours_w = attention(q, k, v, keep.bool())
    assert torch.equal(ours_w[0, 0], torch.zeros(4)) and torch.equal(ours[0, 0], torch.zeros(4))
    from core.article import article_attention  # the page shows the NaN with our copy: it is the same

    copy_out, copy_w = article_attention(q, k, v, keep)
    assert torch.isnan(copy_w[0, 0]).all() and torch.equal(copy_w[0, 1:], w[0, 1:])
