"""Positional encodings checked by hand and by their defining properties."""

import math

import pytest
import torch

from core import LearnedPositionalEncoding, apply_rotary, sinusoidal_encoding


@pytest.mark.parametrize("pos, i", [(0, 0), (1, 0), (3, 1), (7, 2), (50, 3)])
def test_sinusoidal_by_hand(pos, i):
    d = 8
    pe = sinusoidal_encoding(64, d, dtype=torch.float64)
    angle = pos / 10000 ** (2 * i / d)
    assert pe[pos, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-12)
    assert pe[pos, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-12)


def test_sinusoidal_odd_dimension_and_device(device):
    pe = sinusoidal_encoding(5, 7, device=device)
    assert pe.shape == (5, 7) and pe.device.type == device.type
    assert pe[2, 6].item() == pytest.approx(math.sin(2 / 10000 ** (6 / 7)), abs=1e-6)


def test_rotary_keeps_norms(device):
    x = torch.randn(2, 6, 8, dtype=torch.float64, device=device)
    torch.testing.assert_close(apply_rotary(x).norm(dim=-1), x.norm(dim=-1))


def test_rotary_dot_products_depend_only_on_the_offset():
    gen = torch.Generator().manual_seed(0)
    q, k = torch.randn(8, generator=gen, dtype=torch.float64), torch.randn(8, generator=gen, dtype=torch.float64)
    def score(m, n):
        qm = apply_rotary(q.expand(1, 8), positions=torch.tensor([m]))
        kn = apply_rotary(k.expand(1, 8), positions=torch.tensor([n]))
        return (qm @ kn.T).item()
    assert score(5, 2) == pytest.approx(score(13, 10), abs=1e-10)
    assert score(0, 0) == pytest.approx(float(q @ k), abs=1e-10)
    assert score(5, 2) != pytest.approx(score(5, 3), abs=1e-6)


def test_rotary_refuses_odd_size():
    with pytest.raises(ValueError, match="even"):
        apply_rotary(torch.randn(3, 5))


def test_learned_adds_one_vector_per_position():
    enc = LearnedPositionalEncoding(10, 4)
    x = torch.zeros(2, 3, 4)
    torch.testing.assert_close(enc(x), enc.table.weight[:3].expand(2, 3, 4))
