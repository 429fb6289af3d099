"""`TransformerBlock` against `nn.TransformerEncoderLayer`."""

import pytest
import torch
from torch import nn

from core import TransformerBlock, causal_mask, padding_mask, to_torch_mask, window_mask


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("kind", ["none", "causal", "window"])
def test_from_torch_matches_encoder_layer(kind, activation, norm_first, dtype, device, tolerance):
    B, T, D, H = 2, 6, 16, 4
    torch.manual_seed(0)
    ref = nn.TransformerEncoderLayer(D, H, dim_feedforward=32, dropout=0.1, activation=activation,
                                     norm_first=norm_first, batch_first=True)
    with torch.no_grad():  # non-trivial LayerNorm parameters and attention biases
        for p in (ref.norm1.weight, ref.norm1.bias, ref.norm2.weight, ref.norm2.bias,
                  ref.self_attn.in_proj_bias, ref.self_attn.out_proj.bias):
            p.normal_()
    ref = ref.to(device=device, dtype=dtype).eval()
    ours = TransformerBlock.from_torch(ref).eval()
    x = torch.randn(B, T, D, dtype=dtype, device=device)
    mask = {"none": None, "causal": causal_mask(T, device=device), "window": window_mask(T, 2, device=device)}[kind]
    expected = ref(x, src_mask=None if mask is None else to_torch_mask(mask))
    torch.testing.assert_close(ours(x, mask), expected, **tolerance(dtype))


@pytest.mark.parametrize("norm_first", [False, True])
def test_every_stage_equals_the_encoder_layers_own_sublayers(norm_first):
    # PyTorch's layer computes x = norm1(x + _sa_block(x)); x = norm2(x + _ff_block(x)) (post-LN), or
    # x = x + _sa_block(norm1(x)); x = x + _ff_block(norm2(x)) (pre-LN): its own sub-layers give each stage.
    torch.manual_seed(0)
    ref = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, norm_first=norm_first,
                                     batch_first=True).eval()
    with torch.no_grad():
        for p in (ref.norm1.weight, ref.norm1.bias, ref.norm2.weight, ref.norm2.bias):
            p.normal_()
    x = torch.randn(1, 4, 8)
    s = TransformerBlock.from_torch(ref).eval().stages(x, causal_mask(4))
    attn_mask = to_torch_mask(causal_mask(4))
    with torch.no_grad():
        sa = lambda h: ref._sa_block(h, attn_mask, None)  # noqa: E731
        if norm_first:
            want = {"norm1": ref.norm1(x), "attention": sa(ref.norm1(x))}
            want["residual1"] = x + want["attention"]
            want["norm2"] = ref.norm2(want["residual1"])
            want["feed_forward"] = ref._ff_block(want["norm2"])
            want["residual2"] = want["output"] = want["residual1"] + want["feed_forward"]
        else:
            want = {"attention": sa(x)}
            want["residual1"] = x + want["attention"]
            want["norm1"] = ref.norm1(want["residual1"])
            want["feed_forward"] = ref._ff_block(want["norm1"])
            want["residual2"] = want["norm1"] + want["feed_forward"]
            want["norm2"] = want["output"] = ref.norm2(want["residual2"])
        torch.testing.assert_close(want["output"], ref(x, src_mask=attn_mask))
    assert set(s) == {"input", *want}
    for name, expected in want.items():
        torch.testing.assert_close(s[name], expected, atol=1e-5, rtol=1e-5, msg=name)


def test_a_scale_reaches_the_attention_stage():
    torch.manual_seed(0)
    block = TransformerBlock(8, 2, 16).eval()
    x = torch.randn(1, 4, 8)
    with torch.no_grad():
        torch.testing.assert_close(block.stages(x, scale=0.3)["attention"], block.attn(x, scale=0.3)[0])
        assert not torch.allclose(block.stages(x, scale=0.3)["attention"], block.stages(x)["attention"])


def test_dropout_is_active_in_training_only():
    torch.manual_seed(0)
    block = TransformerBlock(8, 2, 16, dropout=0.5)
    x = torch.randn(1, 4, 8)
    assert not torch.equal(block.train()(x), block.train()(x))
    block.eval()
    assert torch.equal(block(x), block(x))


def test_unknown_activation_is_refused():
    with pytest.raises(ValueError, match="activation must be one of"):
        TransformerBlock(8, 2, 16, activation="swish")


@pytest.mark.parametrize("norm_first", [False, True])
def test_stages_keep_the_weights_of_the_reference_attention(norm_first):
    """need_weights: the same output, and the weights nn.MultiheadAttention reports on the
    sub-layer's input, with a (B, T, T) padding keep-mask."""
    torch.manual_seed(0)
    ref = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.0, norm_first=norm_first,
                                     batch_first=True).eval()
    ours = TransformerBlock.from_torch(ref).eval()
    x = torch.randn(2, 5, 16)
    keep = padding_mask([5, 3], 5)  # (B, T, T)
    with torch.no_grad():
        s = ours.stages(x, keep, need_weights=True)
        attn_in = ref.norm1(x) if norm_first else x
        _, expected = ref.self_attn(attn_in, attn_in, attn_in, key_padding_mask=~keep[:, 0],
                                    need_weights=True, average_attn_weights=False)  # (B, H, T, T)
        torch.testing.assert_close(s["weights"], expected)
        torch.testing.assert_close(s["output"], ours.stages(x, keep)["output"])
    assert (s["weights"][1, :, :, 3:] == 0).all() and "weights" not in ours.stages(x, keep)
