"""Where a lesson's input vectors come from: a sentence, a seed, or hand-entered matrices."""

import hashlib
import re
import unicodedata

import torch

from .config import MAX_D_MODEL

# A word (contractions such as "didn't" and "it’s" stay one word), or one punctuation mark.
_TOKEN = re.compile(r"\w+(?:['’]\w+)*|[^\w\s]")


def tokenize(text: str) -> list[str]:
    """Words and punctuation marks, in order: "The cat didn't." -> ["The", "cat", "didn't", "."].

    Control and format characters (NUL, escapes, direction overrides) are not tokens: they
    would be invisible labels on every chart.
    """
    visible = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in text)
    return _TOKEN.findall(visible)


def _hash_seed(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")


def _word_seed(token: str) -> int:
    return _hash_seed(token.lower())


def generator(seed: int, stream: str) -> torch.Generator:
    """A CPU generator for one use of a lesson's seed ("inputs", "weights", "positions").

    Separate streams keep those draws independent: one generator seeded alike for inputs
    and weights would make W_Q's first rows a copy of x, and q = x·xᵀ a bright diagonal.
    """
    return torch.Generator().manual_seed(_hash_seed(f"{stream}:{seed}"))


def embed_tokens(tokens: list[str], d_model: int) -> torch.Tensor:
    """A fixed vector per word (case-insensitive), the same in every lesson and for every seed.

    Each word's vector is the first d_model entries of one N(0, 1) draw seeded by the word
    itself, so "cat" keeps its leading entries when d_model grows. Made on the CPU so that
    every device starts from the same numbers.
    """
    rows = []
    for token in tokens:
        gen = torch.Generator().manual_seed(_word_seed(token))
        rows.append(torch.randn(MAX_D_MODEL, generator=gen)[:d_model])
    return torch.stack(rows) if rows else torch.zeros(0, d_model)  # (T, D)


def random_inputs(T: int, d_model: int, seed: int) -> torch.Tensor:
    """T random token vectors N(0, 1) from a seed, made on the CPU."""
    return torch.randn(T, d_model, generator=generator(seed, "inputs"))  # (T, D)
