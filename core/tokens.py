"""A sentence's tokens: its words and punctuation marks, as a lesson on a sentence reads them."""

import re
import unicodedata

# A word (contractions such as "didn't" and "it’s" stay one word), or one punctuation mark.
_TOKEN = re.compile(r"\w+(?:['’]\w+)*|[^\w\s]")


def tokenize(text: str) -> list[str]:
    """Words and punctuation marks, in order: "The cat didn't." -> ["The", "cat", "didn't", "."].

    Control and format characters (NUL, escapes, direction overrides) are not tokens: they
    would be invisible labels on every chart.
    """
    visible = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in text)
    return _TOKEN.findall(visible)
