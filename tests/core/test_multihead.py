"""`MultiHeadAttention` against `nn.MultiheadAttention`, and its two paths against each other."""

import pytest
import torch
from torch import nn

from core import MultiHeadAttention, causal_mask, fast_attention, padding_mask, to_torch_mask, window_mask
from core.attention import softmax_


def _reference(d_model, heads, bias, batch_first, dtype, device, seed=0):
    torch.manual_seed(seed)
    ref = nn.MultiheadAttention(d_model, heads, bias=bias, batch_first=batch_first)
    if bias:  # PyTorch starts biases at 0; random ones make the comparison bite
        with torch.no_grad():
            ref.in_proj_bias.normal_()
            ref.out_proj.bias.normal_()
    return ref.to(device=device, dtype=dtype).eval()


def _mask(kind, T, device):
    if kind == "causal":
        return causal_mask(T, device=device)
    if kind == "window":
        return window_mask(T, 3, device=device)
    gen = torch.Generator().manual_seed(7)
    random = torch.rand(T, T, generator=gen) > 0.5
    random.fill_diagonal_(True)  # no blocked row: nn.MultiheadAttention returns NaN there
    return None if kind == "none" else random.to(device)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("batch_first", [True, False])
@pytest.mark.parametrize("kind", ["none", "causal", "window", "random"])
def test_from_torch_matches_per_head(kind, batch_first, bias, dtype, device, tolerance):
    B, T, D, H = 2, 7, 16, 4
    ref = _reference(D, H, bias, batch_first, dtype, device)
    ours = MultiHeadAttention.from_torch(ref).eval()
    x = torch.randn(B, T, D, dtype=dtype, device=device)
    mask = _mask(kind, T, device)
    xr = x if batch_first else x.transpose(0, 1)
    ref_out, ref_w = ref(xr, xr, xr, attn_mask=None if mask is None else to_torch_mask(mask),
                         need_weights=True, average_attn_weights=False)
    ref_out = ref_out if batch_first else ref_out.transpose(0, 1)
    out, w = ours(x, mask)
    assert w.shape == (B, H, T, T)
    torch.testing.assert_close(w, ref_w, **tolerance(dtype))
    torch.testing.assert_close(out, ref_out, **tolerance(dtype))
    fast, none = ours(x, mask, need_weights=False)
    assert none is None
    torch.testing.assert_close(fast, out, **tolerance(dtype))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_padding_matches_key_padding_mask(dtype, device, tolerance):
    B, T, D, H = 3, 6, 12, 3
    ref = _reference(D, H, True, True, dtype, device)
    ours = MultiHeadAttention.from_torch(ref).eval()
    x = torch.randn(B, T, D, dtype=dtype, device=device)
    lengths = torch.tensor([2, 6, 4], device=device)
    key_padding = torch.arange(T, device=device) >= lengths[:, None]  # (B, T) True = padding
    ref_out, ref_w = ref(x, x, x, key_padding_mask=key_padding, average_attn_weights=False)
    out, w = ours(x, padding_mask(lengths, T, device=device))  # (B, T, T) keep-mask
    torch.testing.assert_close(w, ref_w, **tolerance(dtype))
    torch.testing.assert_close(out, ref_out, **tolerance(dtype))


def test_per_batch_and_per_head_masks(tolerance):
    B, T, D, H = 2, 5, 8, 2
    ours = MultiHeadAttention(D, H).double().eval()
    x = torch.randn(B, T, D, dtype=torch.float64)
    per_head = torch.stack([causal_mask(T), window_mask(T, 2)]).expand(B, H, T, T)
    out, w = ours(x, per_head)
    assert (w[:, 0][~causal_mask(T).expand(B, T, T)] == 0).all()
    assert (w[:, 1][~window_mask(T, 2).expand(B, T, T)] == 0).all()
    torch.testing.assert_close(ours(x, per_head, need_weights=False)[0], out, **tolerance(torch.float64))


def test_trace_equals_forward_and_fully_blocked_row():
    torch.manual_seed(0)
    ours = MultiHeadAttention(8, 2).eval()
    x = torch.randn(5, 8)
    mask = causal_mask(5).clone()
    mask[3] = False
    out, w = ours(x, mask)
    fast, _ = ours(x, mask, need_weights=False)
    trace = ours.trace(x, mask)
    torch.testing.assert_close(torch.from_numpy(trace.weights), w)
    torch.testing.assert_close(torch.from_numpy(trace.output), out)
    torch.testing.assert_close(fast, out)
    assert trace.blocked_rows.tolist() == [False, False, False, True, False]
    assert (trace.weights[:, 3] == 0).all() and (trace.heads[:, 3] == 0).all()
    # With W_O's bias, the output of a blocked row is that bias: what attention added is 0.
    torch.testing.assert_close(out[3], ours.out_proj.bias)


@pytest.mark.parametrize("T", [5, 20])  # both of the softmax's CPU paths (rows shorter than 16, and not)
@pytest.mark.parametrize("masked", [False, True])
def test_trace_shows_the_tensors_the_softmax_used(T, masked, device):
    # TransformerLens' rule: a recorded intermediate is the one the forward pass used, bit for bit,
    # not a second computation that agrees only to rounding.
    torch.manual_seed(2)
    ours = MultiHeadAttention(24, 4).to(device).eval()  # d_k 6: 1/√6 rounds (a power of 2 would not)
    x = torch.randn(T, 24, device=device)
    mask = causal_mask(T, device=device).clone() if masked else None
    if masked:
        mask[2] = False  # a fully blocked row
    with torch.no_grad():
        out, w = ours(x, mask)
    t = ours.trace(x, mask)
    scores, scaled, masked_scores, weights = (torch.from_numpy(a) for a in (t.scores, t.scaled, t.masked, t.weights))
    keep = torch.from_numpy(t.mask)
    assert torch.equal(scaled, scores * t.scale)
    assert torch.equal(masked_scores, scaled.masked_fill(~keep, float("-inf")))
    # The softmax again on the trace's device: CUDA's kernels round otherwise than the CPU's. A blocked row: 0/0 -> 0
    softmaxed = softmax_(masked_scores.to(device, copy=True)).nan_to_num(0.0)
    assert softmaxed.device == x.device and torch.equal(weights, softmaxed.cpu())
    assert torch.equal(weights, w.cpu()) and torch.equal(torch.from_numpy(t.output), out.cpu())
    q, k, v = (torch.from_numpy(a).to(device) for a in (t.q, t.k, t.v))
    heads, again = fast_attention(q[None], k[None], v[None], None if mask is None else keep.to(device), t.scale)
    assert torch.equal(torch.from_numpy(t.heads), heads[0].cpu()) and torch.equal(weights, again[0].cpu())


def test_trace_matrices_reproduce_the_projections():
    torch.manual_seed(1)
    ours = MultiHeadAttention(8, 2, bias=False)
    x = torch.randn(4, 8)
    t = ours.trace(x)
    q = (x.numpy() @ t.w_q).reshape(4, 2, 4).transpose(1, 0, 2)  # (H, T, d_k)
    assert abs(q - t.q).max() < 1e-5
    assert abs(t.concat @ t.w_o - t.output).max() < 1e-5
    assert abs(t.scaled - t.scores / 2.0).max() < 1e-6  # d_k = 4


def test_rotary_needs_even_head_and_divisible_heads():
    with pytest.raises(ValueError, match="not divisible by 4 heads"):
        MultiHeadAttention(10, 4)
    with pytest.raises(ValueError, match="even head size"):
        MultiHeadAttention(6, 2, rotary=True)


def test_from_torch_refuses_cross_attention_sizes():
    with pytest.raises(ValueError, match="self-attention"):
        MultiHeadAttention.from_torch(nn.MultiheadAttention(8, 2, kdim=4, vdim=4))
