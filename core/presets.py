"""Ready-made lessons; "default" is what the dashboard and the scenes open with."""

import torch

from .article import first_listing
from .config import AttentionConfig

_IDENTITY = ((1.0, 0.0), (0.0, 1.0))


def _rows(t: torch.Tensor) -> tuple:
    return tuple(tuple(float(x) for x in row) for row in t.tolist())  # float32 -> float: exact


def _first_listing() -> dict:
    """The article's Q = x·W_Q, K = x·W_K, V = x·W_V (W ~ N(0, 1), no W_O), entered as a manual lesson, whose
    identity projections and W_O = I then compute exactly the article's weights and output."""
    x, wq, wk, wv = first_listing()
    # The products in float64, then float32: a float32 product's last bit follows the CPU's BLAS kernel,
    # and the lesson (and its key, which every cache uses) must be the same on every machine.
    return {name: _rows((x.double() @ w.double()).float()[0]) for name, w in (("q", wq), ("k", wk), ("v", wv))}


_ZEROS = ((0.0,) * 4,) * 4
_EYE4 = _rows(torch.eye(4))

PRESETS: dict[str, AttentionConfig] = {
    "default": AttentionConfig(),
    # The default lesson with its scores divided by 0.35: random weights give soft rows (page 1 says
    # why); this shows peaked, distinct rows, as trained heads often have, and says how it got them.
    "sharper-rows": AttentionConfig(temperature=0.35),
    # The article's worked example: Q = K = I, V = diag(10, 20) -> weights 0.670 / 0.330.
    "article-2x2": AttentionConfig(source="manual", d_model=2, num_heads=1, q=_IDENTITY,
                                   k=_IDENTITY, v=((10.0, 0.0), (0.0, 20.0))),
    # The article's first listing after torch.manual_seed(0): 4 tokens of dimension 8, one head.
    "article-4x8": AttentionConfig(source="manual", d_model=8, num_heads=1, **_first_listing()),
    # The article's masking listing: scores torch.zeros(4, 4), causal -> rows 1, 1/2, 1/3, 1/4; V = I shows them.
    "article-causal": AttentionConfig(source="manual", d_model=4, num_heads=1, q=_ZEROS, k=_ZEROS, v=_EYE4,
                                      mask="causal"),
    "causal-sentence": AttentionConfig(text="The animal didn't cross the street because it was tired.",
                                       d_model=32, num_heads=4, mask="causal", positional="sinusoidal"),
    "eight-heads": AttentionConfig(text="Attention lets every word look at every other word.",
                                   d_model=64, num_heads=8, positional="sinusoidal"),
    "sliding-window": AttentionConfig(source="random", seq_len=12, d_model=16, num_heads=2,
                                      mask="window", window=3, positional="rotary"),
    "padding": AttentionConfig(text="Good morning class PAD PAD PAD", d_model=16, num_heads=2,
                               mask="padding", pad_length=3),
}
