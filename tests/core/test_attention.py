"""`attention` (the formula), `fast_attention` (what the lab runs) and the masks against
`F.scaled_dot_product_attention`, and the two paths against each other."""

import math

import pytest
import torch
import torch.nn.functional as F

from core import (
    attention,
    blocked_rows,
    causal_mask,
    fast_attention,
    from_torch_mask,
    padding_mask,
    to_torch_mask,
    window_mask,
)

# Every test of a path runs on both: the formula a student reads and the fast path the lab runs.
paths = pytest.mark.parametrize("attend", [attention, fast_attention], ids=["formula", "fast"])


def _qkv(shape, dtype, device, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(*shape, generator=gen, dtype=dtype).to(device) for _ in range(3)]


def _masks(T, device):
    gen = torch.Generator().manual_seed(1)
    random = torch.rand(T, T, generator=gen) > 0.4
    random[:, 0] = True  # keep every row alive: SDPA's reference has no blocked row here
    return {
        "none": None,
        "causal": causal_mask(T, device=device),
        "padding": padding_mask([3, T], T, device=device).unsqueeze(1),  # (B, 1, T, T)
        "window": window_mask(T, 2, device=device),
        "symmetric window": window_mask(T, 2, causal=False, device=device),
        "random": random.to(device),
    }


@paths
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kind", ["none", "causal", "padding", "window", "symmetric window", "random"])
def test_matches_sdpa(attend, kind, dtype, device, tolerance):
    q, k, v = _qkv((2, 3, 6, 8), dtype, device)  # (B, H, T, d_k)
    mask = _masks(6, device)[kind]
    out, w = attend(q, k, v, mask)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert out.device == q.device and w.shape == (2, 3, 6, 6)
    torch.testing.assert_close(out, ref, **tolerance(dtype))
    torch.testing.assert_close(w.sum(-1), torch.ones_like(w.sum(-1)), **tolerance(dtype))


@paths
@pytest.mark.parametrize("T, d_k", [(40, 8), (40, 16), (33, 24), (64, 64)])
def test_long_sequences_without_autograd_match_sdpa(attend, T, d_k, device, tolerance):
    # The fast path's in-place steps (no autograd) and both orders of weights @ v.
    q, k, v = _qkv((2, 2, T, d_k), torch.float64, device)
    mask = causal_mask(T, device=device).clone()
    mask[5] = False  # one blocked row
    with torch.no_grad():
        out, w = attend(q, k, v, mask)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask), **tolerance(torch.float64))
    assert (w[..., 5, :] == 0).all() and torch.isfinite(w).all()


@paths
@pytest.mark.parametrize("T, d_k", [(6, 4), (40, 8), (33, 24)])
def test_gradients_match_sdpa_including_a_blocked_row(attend, T, d_k, device, tolerance):
    # The out-of-place steps that autograd takes: a backward pass through ours and through SDPA.
    mask = causal_mask(T, device=device).clone()
    mask[2] = False  # a fully blocked row: its gradients must stay finite (0), as in SDPA
    grads = []
    for fn in (lambda q, k, v: attend(q, k, v, mask)[0],
               lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=mask)):
        q, k, v = (t.requires_grad_() for t in _qkv((2, 2, T, d_k), torch.float64, device))
        out = fn(q, k, v)
        (out * torch.linspace(-1, 1, out.numel(), dtype=out.dtype, device=device).view_as(out)).sum().backward()
        grads.append((out.detach(), q.grad, k.grad, v.grad))
    for ours, ref in zip(*grads, strict=True):
        assert torch.isfinite(ours).all()
        torch.testing.assert_close(ours, ref, **tolerance(torch.float64))


@paths
@pytest.mark.parametrize("scale", [1.0, 0.1, 3.0])
def test_custom_scale_matches_sdpa(attend, scale, device, tolerance):
    q, k, v = _qkv((4, 5, 16), torch.float64, device)
    out, _ = attend(q, k, v, scale=scale)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, scale=scale), **tolerance(torch.float64))


@paths
def test_any_leading_dimensions_and_unbatched(attend):
    q, k, v = _qkv((5, 4), torch.float64, "cpu")
    out, w = attend(q, k, v)
    batched, wb = attend(*(t.expand(2, 3, 5, 4) for t in (q, k, v)))
    assert out.shape == (5, 4) and batched.shape == (2, 3, 5, 4)
    torch.testing.assert_close(batched[1, 2], out)


@paths
def test_weights_by_hand(attend):
    q = torch.tensor([[1.0, 2.0]])
    k = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    _, w = attend(q, k, k)
    s = torch.tensor([1.0, 2.0, 3.0]) / math.sqrt(2)
    assert torch.allclose(w[0], s.exp() / s.exp().sum())


@paths
def test_fully_blocked_row_gives_zeros_not_nan(attend, device):
    q, k, v = _qkv((4, 8), torch.float32, device)
    for t in (q, k, v):
        t.requires_grad_(True)
    mask = causal_mask(4, device=device).clone()
    mask[2] = False  # query 2 may look at nothing
    out, w = attend(q, k, v, mask)
    assert torch.equal(w[2], torch.zeros(4, device=device)) and torch.equal(out[2], torch.zeros(8, device=device))
    assert torch.isfinite(w).all() and torch.isfinite(out).all()
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask))
    out.sum().backward()
    assert all(torch.isfinite(t.grad).all() for t in (q, k, v))
    assert blocked_rows(mask).tolist() == [False, False, True, False]


@paths
def test_integer_mask_is_a_keep_mask(attend):
    q, k, v = _qkv((3, 4), torch.float64, "cpu")
    out_int, _ = attend(q, k, v, torch.ones(3, 3).tril())
    out_bool, _ = attend(q, k, v, causal_mask(3))
    torch.testing.assert_close(out_int, out_bool)


# Shapes on both sides of each of the fast path's choices: rows shorter than 16 (its spelled-out
# softmax), 32 keys and more with values of width 16 or less (its transposed product), and not.
@pytest.mark.parametrize("T, d_k", [(5, 4), (20, 8), (40, 8), (33, 24)])
@pytest.mark.parametrize("kind", ["none", "causal", "padding", "window", "random"])
@pytest.mark.parametrize("grad", [False, True], ids=["no grad", "grad"])
def test_the_fast_path_gives_the_formulas_numbers(kind, T, d_k, grad, device, tolerance):
    q, k, v = (t.requires_grad_(grad) for t in _qkv((2, 3, T, d_k), torch.float32, device))
    mask = _masks(T, device)[kind]
    if mask is not None:
        mask = mask.expand(2, 3, T, T).clone()
        mask[0, 1, 3] = False  # a fully blocked row
    out, w = attention(q, k, v, mask)
    steps = {}
    with torch.set_grad_enabled(grad):
        fast_out, fast_w = fast_attention(q, k, v, mask)
        kept_out, kept_w = fast_attention(q, k, v, mask, steps=steps)
    torch.testing.assert_close(fast_out, out, **tolerance(torch.float32))
    torch.testing.assert_close(fast_w, w, **tolerance(torch.float32))
    assert torch.equal(kept_out, fast_out) and torch.equal(kept_w, fast_w)  # keeping the steps changes nothing
    scores = q @ k.transpose(-2, -1)
    torch.testing.assert_close(steps["scores"], scores)
    torch.testing.assert_close(steps["scaled"], scores / math.sqrt(d_k))
    blocked = torch.zeros_like(scores, dtype=torch.bool) if mask is None else ~mask
    assert torch.equal(steps["masked"].isneginf(), blocked)


def test_mask_shapes_and_values():
    assert window_mask(5, 2).int().tolist() == [
        [1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [0, 1, 1, 0, 0], [0, 0, 1, 1, 0], [0, 0, 0, 1, 1]]
    assert window_mask(3, 2, causal=False).int().tolist() == [[1, 1, 0], [1, 1, 1], [0, 1, 1]]
    pad = padding_mask([2, 3], 3)
    assert pad.shape == (2, 3, 3) and pad[0].int().tolist() == [[1, 1, 0]] * 3
    with pytest.raises(ValueError, match="at least 1"):
        window_mask(4, 0)


def test_torch_polarity_round_trip():
    keep = window_mask(6, 3)
    assert torch.equal(to_torch_mask(keep), ~keep)
    assert torch.equal(from_torch_mask(to_torch_mask(keep)), keep)
    additive = torch.zeros(6, 6).masked_fill(~keep, float("-inf"))
    assert torch.equal(from_torch_mask(additive), keep)
