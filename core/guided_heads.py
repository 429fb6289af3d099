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
             "On average, over 0.99 of each word piece's weight goes to the piece just before it: the "
             "model has learned to look one position back.",
             "previous", 0.99),
    HeadNote(2, 9, "Next word piece",
             "On average, over half of each word piece's weight goes to the piece just after it: the "
             "mirror image of layer 1, head 3.",
             "next", 0.5),
    HeadNote(1, 4, "The whole sentence",
             "Weight is spread thinly over the whole sentence: a row's entropy is on average over 0.85 "
             "of ln T, the entropy of a row that weighs every piece equally.",
             "spread", 0.85),
    HeadNote(5, 6, "Parked on [CLS]",
             "On average, over 0.7 of each word piece's weight goes to [CLS]. A row of weights must sum "
             "to 1, so a head with little to take from the words can park it on a token that is always there.",
             "cls", 0.7,
             caveat="That it has little to take is a reading, not something the weights alone prove: "
                    "Clark et al. (2019, “What Does BERT Look At?”) read BERT's heads that park on [SEP] so."),
    HeadNote(6, 12, "“it” looks at the subject",
             "From the word “it”, this head's largest weight on a word goes to the sentence's subject "
             "in 13 of our 15 test sentences: “cat” in “The cat sat on the mat because it was tired.”",
             IT_TO_SUBJECT, 0.15,
             caveat="It finds the subject, not what “it” means: it picks “cat” (0.68 against 0.71) in "
                    "“…because it was soft.”, where “it” is the mat; in “The company hired ten engineers because it "
                    "needed help.” it picks “engineers”. Other pronouns are not covered: in “My brother lost his "
                    "keys, so he stayed home.” “he” weighs “keys” most."),
)


def note_value(note: HeadNote, weights: np.ndarray, tokens: list):
    """The note's pattern measured on one sentence's weights (L, H, T, T): a number, or for
    IT_TO_SUBJECT the (word piece, weight) that "it" weighs most."""
    if note.pattern == IT_TO_SUBJECT:
        return top_word(weights[note.layer - 1, note.head - 1], tokens, "it")
    if note.pattern not in PATTERNS:
        raise ValueError(f"unknown pattern '{note.pattern}'")
    return float(head_patterns(weights)[note.pattern][note.layer - 1, note.head - 1])
