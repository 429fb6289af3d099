"""A short guided tour of all-MiniLM-L6-v2's heads: what each one does, in sentences a lecturer
can sign, each backed by measured claims (a named measure and a bound) that
tests/core/test_guided_heads.py checks on sentences chosen to refute them (passives, object
referents, subjects that are not the first noun, questions, lists, long clauses), with weights
and values from transformers' BertModel. A claim that fails on some of them says "on most
sentences", and the page shows whether it holds on the student's sentence.

Layers and heads are counted from 1, as a person says them.
"""

from dataclasses import dataclass

import numpy as np

from .head_patterns import PATTERNS, head_patterns
from .value_norms import NORM_PATTERNS, norm_patterns


@dataclass(frozen=True)
class Claim:
    measure: str  # a key of PATTERNS or NORM_PATTERNS
    bound: float
    at_most: bool = False  # the claim is "measure ≤ bound" (else "measure ≥ bound")
    on_most: bool = False  # it fails on some test sentences, and the note says "on most sentences"

    def holds(self, value: float) -> bool:
        return value <= self.bound if self.at_most else value >= self.bound

    def says(self) -> str:
        return f"{'at most' if self.at_most else 'at least'} {self.bound:g}"

    @property
    def needs_norms(self) -> bool:
        return self.measure in NORM_PATTERNS


@dataclass(frozen=True)
class HeadNote:
    layer: int  # 1..6
    head: int  # 1..12
    name: str
    explanation: str  # what the claims say, in words
    claims: tuple  # Claim, ...: the first is the note's main pattern
    caveat: str = ""  # what the pattern does not mean

    @property
    def pattern(self) -> str:
        return self.claims[0].measure

    @property
    def threshold(self) -> float:
        return self.claims[0].bound


EXAMPLE = "The cat sat on the mat because it was tired."
PASSIVE = "The ball was chased by the dog until it was exhausted."  # the subject is not the word the rows pick

HEADS_WORTH_A_LOOK = (
    HeadNote(1, 3, "Previous word piece",
             "On average, at least 0.99 of each word piece's weight goes to the piece just before it, on every "
             "sentence the lab's tests try: the model has learned to look one position back.",
             (Claim("previous", 0.99),)),
    HeadNote(2, 9, "Next word piece",
             "On average, at least half of each word piece's weight goes to the piece just after it, on every "
             "sentence the lab's tests try (from 0.5 to 0.9 on them; layer 1, head 3 puts at least 0.99 one "
             "piece back): a weaker pattern in the other direction.",
             (Claim("next", 0.5), Claim("next", 0.9, at_most=True))),
    HeadNote(1, 4, "The whole sentence",
             "Weight is spread thinly over the whole sentence: a row's entropy is on average at least 0.75 of "
             "ln T, the entropy of a row that weighs every piece equally, on every sentence the lab's tests try, "
             "and at least 0.85 on most sentences (short ones fall below).",
             (Claim("spread", 0.75), Claim("spread", 0.85, on_most=True))),
    HeadNote(5, 6, "Parked on [CLS]",
             "On average, at least 0.7 of each word piece's weight goes to [CLS], yet [CLS]'s share of the head's "
             "norm-weighted contributions, ‖α·f(x)‖, is at most 0.3: [CLS]'s value, through W_V and this head's "
             "part of W_O, is at least 20 times shorter than a word piece's (on every sentence the lab's tests "
             "try). The weight is parked on "
             "[CLS]; what the head adds comes mostly from the words.",
             (Claim("cls", 0.7), Claim("cls_share", 0.3, at_most=True), Claim("cls_shorter", 20.0)),
             caveat="Kobayashi et al. (2020, “Attention is not only a weight”) measured the same for BERT's "
                    "[CLS], [SEP] and punctuation: large weights, short transformed values."),
    HeadNote(6, 12, "One word for every row",
             "On most sentences, at least half of the word pieces, “it” among them, put their largest weight "
             "(of the word pieces) on the same one, usually a noun: every row picks “cat” in “" + EXAMPLE + "”",
             (Claim("one_word", 0.5, on_most=True),),
             caveat="It is not a coreference head: “it” picks the word the other rows pick, whatever “it” "
                    "refers to: “dog” in “The dog chased the ball until it rolled under the car.” (“it” is the "
                    "ball), “trophy” in “The trophy didn't fit in the suitcase because it was too small.” (“it” "
                    "is the suitcase). That word is often the subject, but not always: in “" + PASSIVE + "” most "
                    "rows pick “dog”, not the subject “ball”. And the weight on that word can be small: under 0.1 "
                    "on average in some sentences."),
)


def claim_values(note: HeadNote, weights: np.ndarray, norms: np.ndarray | None = None) -> list[float]:
    """Each of the note's claims measured on one sentence: weights (L, H, T, T) and, for claims
    about value norms, ‖f(x_j)‖ as (L, H, T) (`core.value_norms`)."""
    at = note.layer - 1, note.head - 1
    patterns = head_patterns(weights)
    if any(c.needs_norms for c in note.claims):
        if norms is None:
            raise ValueError(f"layer {note.layer}, head {note.head}'s note needs the value norms")
        patterns |= norm_patterns(weights, norms)
    unknown = [c.measure for c in note.claims if c.measure not in patterns]
    if unknown:
        raise ValueError(f"unknown measure(s) {unknown}: not in {sorted({*PATTERNS, *NORM_PATTERNS})}")
    return [float(patterns[c.measure][at]) for c in note.claims]


def note_value(note: HeadNote, weights: np.ndarray) -> float:
    """The note's main pattern (its first claim, always one of `PATTERNS`) on one sentence's weights (L, H, T, T)."""
    return float(head_patterns(weights)[note.pattern][note.layer - 1, note.head - 1])
