"""Sentences of real prose nobody here chose, to measure the guided notes' claims on: Ambrose Bierce's
*The Devil's Dictionary* (1881–1906, public domain), as Debian's package dict-devil installs it.

The file is dictd's: a gzip-compatible data file (`devil.dict.dz`) and an index (`devil.index`), one
line per entry: its headword, then where its text starts in the data and how long it is, both in
dictd's base-64 digits. The sentences, simply and deterministically:
- each entry's first paragraph (up to its first blank line): Bierce's definition, in his prose (the
  verse and quotations that follow are indented paragraphs, left out), without its headword and part
  of speech ("ABASEMENT, n.") and its italics' underscores;
- split into sentences where the typescript puts a sentence end: ". ", "! " or "? " (a closing quote
  or bracket may follow) before two spaces or a line's end and a capital letter;
- kept when MiniLM's tokenizer reads it as 1 to `MAX_PIECES` word pieces: the longest sentence the
  lab's pages read (`MAX_TOKENS`, with [CLS] and [SEP]), so a claim measured here is about sentences a
  student can type; every sentence once (a repeated one counts once).
The subset the tests measure (`sample`): the kept sentences in order of length (then of text), `SIZE` of
them at evenly spaced places of that order, the shortest and the longest included: the book's own mix of
lengths, short to long.
"""

import functools
import gzip
import re
from pathlib import Path

from .errors import ConfigError
from .limits import MAX_TOKENS

PACKAGE = "dict-devil"
DATA = Path("/usr/share/dictd/devil.dict.dz")
SOURCE = "The Devil's Dictionary"  # as a note names it
SIZE = 400
MAX_PIECES = MAX_TOKENS - 2  # [CLS] and [SEP] take two of the lab's tokens
_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"  # dictd's base 64
_HEADWORD = re.compile(r"^[^a-z\n]*?,\s*(?:[a-z]+\.\s*)+")  # "ABASEMENT, n.  ", "ABSOLUTE, adj.  "
_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')]))(?:\s{2,}|\s*\n\s*)(?=[\"'(]?[A-Z])")


class CorpusMissing(ConfigError):
    """The corpus's package is not installed: the message names it."""


def _number(digits: str) -> int:
    value = 0
    for c in digits:
        value = value * 64 + _DIGITS.index(c)
    return value


def entries(data: Path = DATA) -> list[str]:
    """Each entry's text, in the index's order (the dictionary's), dictd's own entries left out."""
    index = data.with_name(data.name.removesuffix(".dict.dz") + ".index")
    if not data.exists() or not index.exists():
        raise CorpusMissing(f"{SOURCE} is not installed ({data} is missing): install the Debian package "
                            f"{PACKAGE} (`apt-get install {PACKAGE}`; scripts/system-packages.sh does).", "corpus")
    raw = gzip.decompress(data.read_bytes())
    out = []
    for line in index.read_text(encoding="utf-8").splitlines():
        word, start, length = line.split("\t")[:3]
        if not word.startswith("00database"):
            out.append(raw[_number(start):_number(start) + _number(length)].decode("utf-8", "replace"))
    return out


def sentences_of(entry: str) -> list[str]:
    """The sentences of an entry's first paragraph, its headword left out, whitespace made single spaces."""
    first = re.split(r"\n\s*\n", entry.strip(), maxsplit=1)[0]
    body = _HEADWORD.sub("", first, count=1).replace("_", "")
    return [" ".join(s.split()) for s in _END.split(body) if s.strip()]


@functools.cache
def sentences(data: Path = DATA) -> tuple[tuple[str, int], ...]:
    """Every kept sentence of the book, once, with its number of word pieces, in the book's order."""
    from .trained import encode

    seen, kept = set(), []
    for entry in entries(data):
        for s in sentences_of(entry):
            if s in seen:
                continue
            seen.add(s)
            n = len(encode(s)[0]) - 2  # [CLS] and [SEP] are not the sentence's
            if 1 <= n <= MAX_PIECES:
                kept.append((s, n))
    return tuple(kept)


def sample(size: int = SIZE, data: Path = DATA) -> tuple[tuple[str, int], ...]:
    """`size` kept sentences, spread over lengths as the book spreads them (see the module's text)."""
    ordered = sorted(sentences(data), key=lambda sn: (sn[1], sn[0]))
    if len(ordered) < size:
        raise ValueError(f"{SOURCE} gives {len(ordered)} sentences, fewer than {size}")
    return tuple(ordered[i * (len(ordered) - 1) // (size - 1)] for i in range(size))
