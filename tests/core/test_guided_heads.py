"""Head patterns are measured, not claimed: the measures on hand-made weights, the example
sentence's heads, and every guided note held to its threshold on varied sentences."""

import math

import numpy as np
import pytest

from core import HEADS_WORTH_A_LOOK, PATTERNS, head_patterns, trained_trace
from core.guided_heads import IT_TO_SUBJECT, note_value
from core.head_patterns import strongest, top_word
from tests.core.conftest import needs_model

EXAMPLE = "The cat sat on the mat because it was tired."
# Varied on purpose: a question, contractions and a time, numbers, accents, a name, one word,
# a 36-piece sentence with a relative clause, a list, a tongue twister.
SENTENCES = [
    EXAMPLE,
    "Attention lets every word look at every other word.",
    "Did you finish the homework before class started?",
    "I can't believe it's already 3:45 in the afternoon!",
    "Transformers replaced recurrent networks in machine translation.",
    "She sells sea shells by the sea shore.",
    "The quick brown fox jumps over the lazy dog.",
    "In 1905, Einstein published four papers that changed physics forever.",
    "Photosynthesis converts sunlight, water and carbon dioxide into sugar.",
    "Hi!",
    "The old lighthouse keeper, who had lived alone for thirty years on the rocky island, finally "
    "decided to retire and move to the city where his daughter worked as a nurse.",
    "Café owners in Zürich don't open before 7.",
]
# Sentences with "it" and their subject, for layer 6 head 12.
IT_SENTENCES = [
    (EXAMPLE, "cat"),
    ("The dog chased the ball until it was exhausted.", "dog"),
    ("The engine failed because it overheated.", "engine"),
    ("The robot opened the door and then it stopped.", "robot"),
    ("The animal didn't cross the street because it was too tired.", "animal"),
    ("The trophy didn't fit in the suitcase because it was too big.", "trophy"),
    ("After the storm, the old bridge collapsed because it was weak.", "bridge"),
    ("My phone died because it was old.", "phone"),
    ("Yesterday the printer jammed again, so it went back to the shop.", "printer"),
    ("The cake that Maria baked was delicious, and it disappeared fast.", "cake"),
    ("The bird hit the window, but it flew away.", "bird"),
    ("The book fell off the shelf because it was heavy.", "book"),
]


def test_measures_on_hand_made_weights():
    """[CLS] a b [SEP]: row 1 all on [CLS], row 2 split evenly over a and b."""
    w = np.zeros((1, 1, 4, 4))
    w[0, 0, 1, 0] = 1.0
    w[0, 0, 2, 1] = w[0, 0, 2, 2] = 0.5
    w[0, 0, 0, :] = w[0, 0, 3, :] = 0.25  # the [CLS] and [SEP] rows are not counted
    p = {name: float(v[0, 0]) for name, v in head_patterns(w).items()}
    assert set(p) == set(PATTERNS)
    assert p["previous"] == pytest.approx((1.0 + 0.5) / 2)  # row 1's previous is [CLS]
    assert p["next"] == pytest.approx((0.0 + 0.0) / 2)
    assert p["cls"] == pytest.approx(0.5) and p["sep"] == 0.0 and p["self"] == pytest.approx(0.25)
    assert p["entropy"] == pytest.approx((0 + math.log(2)) / 2)
    assert p["spread"] == pytest.approx(math.log(2) / 2 / math.log(4))
    assert top_word(w[0, 0], ["[CLS]", "a", "b", "[SEP]"], "a") == ("a", 0.0)  # [CLS] left out


@needs_model
def test_the_example_sentence():
    """The heads a prototype reported on the example, measured again (layer, head from 1)."""
    t = trained_trace(EXAMPLE, device="cpu")
    p = head_patterns(t.weights)
    assert p["previous"][0, 2] > 0.99  # layer 1 head 3
    assert 0.55 < p["next"][1, 8] < 0.7  # layer 2 head 9
    assert strongest(p, "next", 1)[0][:2] == (2, 9)
    parked = [(layer, head) for layer, head, v in strongest(p, "cls", 12) if v > 0.85]
    assert len(parked) >= 3 and (3, 8) in parked
    assert top_word(t.weights[5, 11], t.tokens, "it") == ("cat", pytest.approx(0.71, abs=0.01))
    soft = trained_trace(EXAMPLE.replace("tired", "soft"), device="cpu")  # "it" is now the mat
    assert top_word(soft.weights[5, 11], soft.tokens, "it") == ("cat", pytest.approx(0.68, abs=0.01))


@pytest.fixture(scope="module")
def measured():
    return {s: trained_trace(s, device="cpu") for s in SENTENCES}


NOTES = [n for n in HEADS_WORTH_A_LOOK if n.pattern != IT_TO_SUBJECT]


@needs_model
@pytest.mark.parametrize("note", NOTES, ids=[f"L{n.layer}H{n.head}-{n.pattern}" for n in NOTES])
def test_each_note_holds_on_every_sentence(note, measured):
    values = {s: note_value(note, t.weights, t.tokens) for s, t in measured.items()}
    assert len(values) >= 8
    assert all(v >= note.threshold for v in values.values()), values


@needs_model
def test_it_looks_at_the_subject_with_its_caveat():
    note = next(n for n in HEADS_WORTH_A_LOOK if n.pattern == IT_TO_SUBJECT)
    assert note.caveat and len(IT_SENTENCES) >= 8
    for text, subject in IT_SENTENCES:
        t = trained_trace(text, device="cpu")
        word, weight = note_value(note, t.weights, t.tokens)
        assert word == subject and weight >= note.threshold, (text, word, weight)
    # The caveat's two sentences: the subject even where "it" is the mat; not the subject here.
    for text, expected in [(EXAMPLE.replace("tired", "soft"), "cat"),
                           ("The company hired ten engineers because it needed help.", "engineers")]:
        t = trained_trace(text, device="cpu")
        assert note_value(note, t.weights, t.tokens)[0] == expected


def test_the_list_is_short_and_counts_from_one():
    assert 4 <= len(HEADS_WORTH_A_LOOK) <= 6
    assert len({(n.layer, n.head) for n in HEADS_WORTH_A_LOOK}) == len(HEADS_WORTH_A_LOOK)
    for n in HEADS_WORTH_A_LOOK:
        assert 1 <= n.layer <= 6 and 1 <= n.head <= 12 and n.pattern in (*PATTERNS, IT_TO_SUBJECT)
        assert n.explanation.endswith((".", "”")) and "\n" not in n.explanation
