"""Ready-made lessons; "default" is what the dashboard and the scenes open with."""

from .config import AttentionConfig

_IDENTITY = ((1.0, 0.0), (0.0, 1.0))

PRESETS: dict[str, AttentionConfig] = {
    "default": AttentionConfig(),
    # The default lesson with its scores divided by 0.35: random weights give soft rows (page 1 says
    # why); this shows peaked, distinct rows, as trained heads often have, and says how it got them.
    "sharper-rows": AttentionConfig(temperature=0.35),
    # The article's worked example: Q = K = I, V = diag(10, 20) -> weights 0.670 / 0.330.
    "article-2x2": AttentionConfig(source="manual", d_model=2, num_heads=1, q=_IDENTITY,
                                   k=_IDENTITY, v=((10.0, 0.0), (0.0, 20.0))),
    # The article's first listing: 4 random tokens of dimension 8, one head.
    "article-4x8": AttentionConfig(source="random", seq_len=4, d_model=8, num_heads=1),
    # The article's masking listing: 4 tokens, each blind to the ones after it.
    "article-causal": AttentionConfig(source="random", seq_len=4, d_model=8, num_heads=1, mask="causal"),
    "causal-sentence": AttentionConfig(text="The animal didn't cross the street because it was tired.",
                                       d_model=32, num_heads=4, mask="causal", positional="sinusoidal"),
    "eight-heads": AttentionConfig(text="Attention lets every word look at every other word.",
                                   d_model=64, num_heads=8, positional="sinusoidal"),
    "sliding-window": AttentionConfig(source="random", seq_len=12, d_model=16, num_heads=2,
                                      mask="window", window=3, positional="rotary"),
    "padding": AttentionConfig(text="Good morning class PAD PAD PAD", d_model=16, num_heads=2,
                               mask="padding", pad_length=3),
}
