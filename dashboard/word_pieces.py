"""The word pieces a trained model reads, as numbered chips, and what the special ones are.

Each piece is escaped before it reaches the HTML: the pieces come from the student's sentence.
"""

import html

from animations import style

SPECIAL = ("[CLS]", "[SEP]")
_CHIP = ("display:inline-block;margin:0 6px 6px 0;padding:2px 8px;border-radius:12px;font-size:17px;"
         "font-family:{font},sans-serif;border:1px {line} {edge};background:{fill};color:#1a1a1a")
_NUMBER = "font-size:12px;color:#555;margin-right:4px"
_LOOKS = {  # kind -> (fill, edge, line)
    "special": ("#fde9c9", "#b36b00", "solid"),
    "continues": ("#e4ecf7", "#3b6fb6", "dashed"),
    "word": ("#eef1f4", "#8a96a3", "solid"),
}


def kind(piece: str) -> str:
    """"special" ([CLS], [SEP]), "continues" (a ## piece: the rest of the word before) or "word"."""
    if piece in SPECIAL:
        return "special"
    return "continues" if piece.startswith("##") else "word"


def chips_html(tokens) -> str:
    """One chip per word piece, numbered from 1 as the heatmaps' rows and columns are."""
    out = []
    for i, piece in enumerate(tokens):
        fill, edge, line = _LOOKS[kind(piece)]
        chip = _CHIP.format(font=style.FONT, fill=fill, edge=edge, line=line)
        out.append(f'<span style="{chip}"><span style="{_NUMBER}">{i + 1}</span>{html.escape(piece)}</span>')
    return f'<div style="line-height:2">{"".join(out)}</div>'


NOTES = {
    "[CLS]": "**[CLS]** (“classification”) is put first in every input by BERT's tokenizer: in BERT, the "
             "last layer's vector at [CLS] is what a classifier reads. This model's sentence vector is instead "
             "the mean of every piece's last-layer vector, [CLS] and [SEP] included, scaled to length 1 (its "
             "pooling setting).",
    "[SEP]": "**[SEP]** (“separator”) ends every input; BERT was pre-trained on pairs of sentences, and [SEP] "
             "marks where each one ends.",
    "##": "**##** marks a piece that continues the word before it: a word missing from the model's vocabulary "
          "of 30,522 pieces is split into pieces that are in it (“tokenization” → token ##ization). The "
          "tokenizer also lower-cases the text, drops accents and splits off punctuation.",
}
