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


def test_stages_follow_the_formula():
    torch.manual_seed(0)
    block = TransformerBlock(8, 2, 16).eval()
    x = torch.randn(1, 4, 8)
    s = block.stages(x)
    torch.testing.assert_close(s["residual1"], x + s["attention"])
    torch.testing.assert_close(s["norm1"], block.norm1(s["residual1"]))
    torch.testing.assert_close(s["residual2"], s["norm1"] + s["feed_forward"])
    assert torch.equal(s["output"], s["norm2"])
    pre = TransformerBlock(8, 2, 16, norm_first=True).eval().stages(x)
    assert torch.equal(pre["output"], pre["residual2"])


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
