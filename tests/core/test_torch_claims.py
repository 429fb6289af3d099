"""What the pages and videos say PyTorch does, checked against the installed PyTorch itself, so that a
sentence breaks when PyTorch changes: the fully blocked row (Masking page, masking video) and the
softmax's gradient (Why √d_k page, scaling video)."""

import torch
import torch.nn.functional as F

from core import attention


def _blocked_first_row(T: int = 3, d: int = 4):
    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, T, d, generator=gen) for _ in range(3))
    keep = torch.ones(T, T, dtype=torch.bool)
    keep[0] = False  # query 1 may attend to no key
    return q, k, v, keep


def test_sdpa_returns_no_weights_and_zero_for_a_fully_blocked_row():
    q, k, v, keep = _blocked_first_row()
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    assert isinstance(out, torch.Tensor)  # one tensor: the output, no weights
    assert torch.equal(out[0, 0], torch.zeros(4))
    assert torch.isfinite(out).all()


def test_multihead_attention_gives_nan_with_weights_and_zero_before_w_o_without():
    q, k, v, keep = _blocked_first_row()
    mha = torch.nn.MultiheadAttention(4, 1, batch_first=True)
    with torch.no_grad():
        mha.out_proj.bias.fill_(0.5)  # so "0 before W_O" shows as the bias after it
        out, w = mha(q, k, v, attn_mask=~keep, need_weights=True)  # its polarity: True = blocked
        assert torch.isnan(out[0, 0]).all() and torch.isnan(w[0, 0]).all()
        assert torch.isfinite(out[0, 1:]).all()
        out, w = mha(q, k, v, attn_mask=~keep, need_weights=False)
    assert w is None
    torch.testing.assert_close(out[0, 0], mha.out_proj.bias)  # W_O · 0 + b: the row was 0 before W_O


def test_the_article_softmax_gives_nan_where_the_lab_gives_zero():
    q, k, v, keep = _blocked_first_row()
    scores = (q @ k.transpose(-2, -1)).masked_fill(keep == 0, float("-inf"))
    assert torch.isnan(F.softmax(scores, dim=-1)[0, 0]).all()
    out, w = attention(q, k, v, mask=keep)
    assert torch.equal(w[0, 0], torch.zeros(3)) and torch.equal(out[0, 0], torch.zeros(4))


def test_softmax_jacobian_is_diag_p_minus_outer_p_and_vanishes_when_saturated():
    s = torch.tensor([1.0, 0.5, -0.3], dtype=torch.float64)
    p = torch.softmax(s, 0)
    jac = torch.autograd.functional.jacobian(lambda x: torch.softmax(x, 0), s)
    torch.testing.assert_close(jac, torch.diag(p) - torch.outer(p, p))
    saturated = torch.autograd.functional.jacobian(lambda x: torch.softmax(x, 0), s * 40)
    assert saturated.abs().max() < 1e-8 < jac.abs().max() / 10  # almost no gradient reaches the scores


def test_saturated_softmax_still_passes_the_gradient_to_the_values():
    q = torch.tensor([[4.0, 0.0]], dtype=torch.float64) * 20  # one query, saturating its row
    k = torch.tensor([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]], dtype=torch.float64, requires_grad=True)
    v = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
    p = torch.softmax(q @ k.T, -1)  # (1, 3)
    out = p @ v  # (1, 2)
    out[0, 0].backward()
    assert k.grad.abs().max() < 1e-10  # the scores, so W_Q and W_K, learn nothing
    torch.testing.assert_close(v.grad[:, 0], p[0].detach())  # ∂out_i/∂v_j = p_ij
    assert v.grad[0, 0] > 0.99


def test_a_saturated_head_freezes_w_q_and_w_k_but_not_w_v_and_w_o():
    """Why √d_k page and scaling video: "almost no gradient reaches the scores, nor through them W_Q and
    W_K … through it to W_V. W_O … gets its gradient without passing through the softmax at all", on
    PyTorch's own nn.MultiheadAttention with one head whose rows are saturated."""
    torch.manual_seed(0)
    d, T = 4, 5
    mha = torch.nn.MultiheadAttention(d, 1, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight[:d] *= 2000  # W_Q: scores far apart, every row's softmax one-hot
    x = torch.randn(1, T, d, dtype=torch.float64)
    out, p = mha(x, x, x, need_weights=True)
    assert p.max(-1).values.min() > 1 - 1e-9  # saturated
    out.square().sum().backward()
    g_q, g_k, g_v = mha.in_proj_weight.grad.split(d)  # the gradients of W_Q, W_K, W_V
    assert g_q.abs().max() < 1e-8 and g_k.abs().max() < 1e-8  # the pattern is frozen
    assert g_v.abs().max() > 1e-2 and mha.out_proj.weight.grad.abs().max() > 1e-2  # the OV circuit learns
    # W_O's gradient is (d loss / d out)ᵀ · (the heads' weighted sum): no softmax Jacobian in it
    heads = p @ F.linear(x, mha.in_proj_weight[2 * d:].detach(), mha.in_proj_bias[2 * d:].detach())  # (1, T, d)
    torch.testing.assert_close(mha.out_proj.weight.grad, (2 * out.detach())[0].T @ heads.detach()[0])
