"""The word pieces a trained model reads, as numbered chips, and what the special ones are.

The chips are pills with Markdown labels (the dashboard writes no raw HTML); the pieces come
from the student's sentence, so they go through the lab's one escaper (dashboard.text.plain).
"""

from dashboard.text import plain

SPECIAL = ("[CLS]", "[SEP]", "[UNK]")
COLOURS = {"special": "orange", "continues": "blue"}


def kind(piece: str) -> str:
    """"special" ([CLS], [SEP], [UNK]), "continues" (a ## piece: the rest of the word before) or "word"."""
    if piece in SPECIAL:
        return "special"
    return "continues" if piece.startswith("##") else "word"


def chip(tokens, n: int) -> str:
    """Word piece n (from 1, as the heatmaps' rows and columns are numbered) as a pill's Markdown label:
    [CLS], [SEP] and [UNK] in orange, a ## piece in blue."""
    piece = tokens[n - 1]
    label = f"{n} {plain(piece)}"
    return label if kind(piece) == "word" else f":{COLOURS[kind(piece)]}[{label}]"


NOTES = {
    "[CLS]": "**[CLS]** (“classification”) is put first in every input by BERT's tokenizer. A BERT classifier "
             "reads the pooler's tanh(W·h + b), where h is the last layer's vector at [CLS], not that raw vector. "
             "This model's file keeps a pooler, but sentence-transformers does not use it: its sentence vector is "
             "the mean of every piece's last-layer vector, [CLS] and [SEP] included, scaled to length 1 (its "
             "pooling setting).",
    "[SEP]": "**[SEP]** (“separator”) ends every input; BERT was pre-trained on pairs of text segments, and "
             "[SEP] marks where each one ends.",
    "[UNK]": "**[UNK]** (“unknown”) replaces a whole word that the vocabulary's pieces cannot spell: “cat🐱” "
             "becomes one [UNK].",
    "##": "**##** marks a piece that continues the word before it: a word missing from the model's vocabulary "
          "of 30,522 pieces is split into pieces that are in it (“tokenization” → token ##ization). The "
          "tokenizer also lower-cases the text, drops accents and splits off punctuation.",
}
