"""The article's own listings ("Transformer Architecture and the Self-Attention Mechanism"), run as
written: the presets named "article" are made from them, and the Worked example page shows their
pitfalls with them. The lab's own `attention` differs on purpose (a fully blocked row gets 0, not NaN)."""

import math

import torch
import torch.nn.functional as F

from .attention import attention  # the lab's, to set beside the article's

ARTICLE_SEED = 0  # the article draws from torch's global generator unseeded; the presets fix it to 0


def article_attention(q, k, v, mask=None):
    """The article's `attention`, line for line: `mask == 0` is blocked, and a row with every key
    blocked is softmax over −∞ only, NaN."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ v, weights


def first_listing(seed: int = ARTICLE_SEED):
    """The first listing's x (1, 4, 8) and W_Q, W_K, W_V (8, 8), each entry N(0, 1), drawn in its order:
    what `torch.manual_seed(seed)` before its lines gives, on a generator of our own."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(1, 4, 8, generator=gen)  # batch=1, 4 tokens, dim 8
    wq, wk, wv = (torch.randn(8, 8, generator=gen) for _ in range(3))
    return x, wq, wk, wv


def blocked_row_weights() -> tuple:
    """The masking listing's zero scores with the first query's row blocked too: the weights of the article's
    `attention` (row 1 NaN) and of the lab's (row 1 all 0), as numpy (4, 4)."""
    q = k = v = torch.zeros(1, 4, 4)
    keep = torch.ones(4, 4).tril()
    keep[0] = 0
    _, theirs = article_attention(q, k, v, keep)
    _, ours = attention(q, k, v, keep.bool())
    return theirs[0].numpy(), ours[0].numpy()
