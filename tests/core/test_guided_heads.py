"""Head patterns are measured, not claimed: the measures on hand-made weights, the example
sentence's heads, and every guided note held to its threshold on varied sentences."""

import math

import numpy as np
import pytest
import torch

from core import HEADS_WORTH_A_LOOK, PATTERNS, head_patterns, padding_mask, trained_trace
from core.bert import load_minilm
from core.guided_heads import IT_TO_SUBJECT, note_value
from core.head_patterns import strongest, top_word
from core.pretrained import encode
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
# Every sentence with "it" we tried, and its subject (the word the note says "it" weighs most).
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
    ("The river flooded the valley after it rained for days.", "river"),  # "it" is the weather here
    ("The car hit the tree, and it was badly damaged.", "car"),  # misses: "tree"
    ("The company hired ten engineers because it needed help.", "company"),  # misses: "engineers"
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
    batch = _weights([EXAMPLE, "Hi!"])[EXAMPLE][1]  # the batched run the other tests use agrees
    np.testing.assert_allclose(batch, t.weights, atol=1e-5)


def _weights(texts):
    """{text: (word pieces, weights (L, H, T, T))}, the texts run as one padded batch: padding
    changes no real piece's weights (test_trained_reference.py), and one run is cheaper."""
    tokens, ids, lengths = encode(texts)
    T = len(tokens[0])
    with torch.no_grad():
        _, weights = load_minilm("cpu")(torch.tensor(ids), padding_mask(lengths, T))
    w = torch.stack(weights, dim=1).numpy()  # (B, L, H, T, T)
    rows = enumerate(zip(texts, tokens, lengths, strict=True))
    return {text: (tok[:n], w[b, :, :, :n, :n]) for b, (text, tok, n) in rows}


@pytest.fixture(scope="module")
def measured():
    return _weights(SENTENCES)


NOTES = [n for n in HEADS_WORTH_A_LOOK if n.pattern != IT_TO_SUBJECT]


@needs_model
@pytest.mark.parametrize("note", NOTES, ids=[f"L{n.layer}H{n.head}-{n.pattern}" for n in NOTES])
def test_each_note_holds_on_every_sentence(note, measured):
    values = {s: note_value(note, w, tokens) for s, (tokens, w) in measured.items()}
    assert len(values) >= 8
    assert all(v >= note.threshold for v in values.values()), values


@needs_model
def test_it_looks_at_the_subject_with_its_caveat():
    note = next(n for n in HEADS_WORTH_A_LOOK if n.pattern == IT_TO_SUBJECT)
    found = {text: note_value(note, w, tokens) for text, (tokens, w) in _weights([t for t, _ in IT_SENTENCES]).items()}
    hits = [text for text, subject in IT_SENTENCES if found[text][0] == subject]
    assert len(IT_SENTENCES) == 15 and len(hits) == 13, found  # "13 of our 15 test sentences"
    assert all(found[text][1] >= note.threshold for text in hits), found
    assert "13 of our 15" in note.explanation
    # The caveat, sentence by sentence.
    soft, he = _weights([EXAMPLE.replace("tired", "soft"), "My brother lost his keys, so he stayed home."]).values()
    assert note_value(note, soft[1], soft[0])[0] == "cat"  # "it" is the mat
    assert found[IT_SENTENCES[-1][0]][0] == "engineers"
    assert top_word(he[1][note.layer - 1, note.head - 1], he[0], "he")[0] == "keys"


def test_the_list_is_short_and_counts_from_one():
    assert 4 <= len(HEADS_WORTH_A_LOOK) <= 6
    assert len({(n.layer, n.head) for n in HEADS_WORTH_A_LOOK}) == len(HEADS_WORTH_A_LOOK)
    for n in HEADS_WORTH_A_LOOK:
        assert 1 <= n.layer <= 6 and 1 <= n.head <= 12 and n.pattern in (*PATTERNS, IT_TO_SUBJECT)
        assert n.explanation.endswith((".", "”")) and "\n" not in n.explanation
