"""A short guided tour of all-MiniLM-L6-v2's heads: what each one does, in a sentence a lecturer
can sign, and the measured pattern that backs it (tests/core/test_guided_heads.py holds every
note to its threshold on a dozen varied sentences).

Layers and heads are counted from 1, as a person says them.
"""

from dataclasses import dataclass

import numpy as np

from .head_patterns import PATTERNS, head_patterns, top_word

IT_TO_SUBJECT = "it→subject"  # the word piece that "it" weighs most (the tests check it is the subject)


@dataclass(frozen=True)
class HeadNote:
    layer: int  # 1..6
    head: int  # 1..12
    name: str
    explanation: str  # one line, true on every sentence the tests try
    pattern: str  # the measured pattern behind it: a key of PATTERNS, or IT_TO_SUBJECT
    threshold: float  # the tests hold the pattern at or above this on each of their sentences
    caveat: str = ""  # what the pattern does not mean


HEADS_WORTH_A_LOOK = (
    HeadNote(1, 3, "Previous word piece",
             "Each word piece puts almost all of its weight (over 0.99 in every sentence we tried) on "
             "the piece just before it: the model has learned to look one position back.",
             "previous", 0.95),
    HeadNote(2, 9, "Next word piece",
             "Each word piece puts over half of its weight on the piece just after it: the mirror "
             "image of layer 1, head 3.",
             "next", 0.5),
    HeadNote(1, 4, "The whole sentence",
             "Weight is spread thinly over the whole sentence: the entropy of each row is close to "
             "that of a uniform row (ln T), so each output is near a plain average of the values.",
             "spread", 0.8),
    HeadNote(5, 6, "Parked on [CLS]",
             "Most of each word piece's weight goes to [CLS]. A row of weights must sum to 1, so a "
             "head with little to take from the words can park it on a token that is always there.",
             "cls", 0.7,
             caveat="That it has little to take is a reading (Clark et al. 2019 found the same in BERT), "
                    "not something the weights alone prove."),
    HeadNote(6, 12, "“it” looks at the subject",
             "From the word “it”, this head's largest weight on a word usually goes to the sentence's "
             "subject: “cat” in “The cat sat on the mat because it was tired.”",
             IT_TO_SUBJECT, 0.15,
             caveat="It finds the subject, not what “it” means: it picks “cat” just as much in “…because "
                    "it was soft.”, where “it” is the mat, and in “The company hired ten engineers because "
                    "it needed help.” it picks “engineers”."),
)


def note_value(note: HeadNote, weights: np.ndarray, tokens: list):
    """The note's pattern measured on one sentence's weights (L, H, T, T): a number, or for
    IT_TO_SUBJECT the (word piece, weight) that "it" weighs most."""
    if note.pattern == IT_TO_SUBJECT:
        return top_word(weights[note.layer - 1, note.head - 1], tokens, "it")
    if note.pattern not in PATTERNS:
        raise ValueError(f"unknown pattern '{note.pattern}'")
    return float(head_patterns(weights)[note.pattern][note.layer - 1, note.head - 1])
