"""The Trained heads page reads its heads rigorously: the norm view (weight against weight × value
length) is transformers' numbers, each guided note says on the student's sentence whether each of
its claims holds, and the words about the model and about reading heads are the ones a lecturer signs."""

import numpy as np
import pytest

from core import HEADS_WORTH_A_LOOK, trained_trace
from tests.core.conftest import load_reference, needs_model, reference_run

from .conftest import chart, no_exception
from .test_trained_page import grid, open_page

EXAMPLE = "The cat sat on the mat because it was tired."
SHORT = "I love you."  # layer 1, head 4's spread is under 0.85 here: a claim "on most sentences" fails


def _notes(at) -> dict:
    """(layer, head) -> the captions under that guided note."""
    measured = [c.value for c in at.caption if c.value.startswith("On your sentence:")]  # in the notes' order
    assert len(measured) == len(HEADS_WORTH_A_LOOK)
    return {(n.layer, n.head): said for n, said in zip(HEADS_WORTH_A_LOOK, measured, strict=True)}


@needs_model
def test_the_norm_view_is_bert_models_weight_times_value_length(make_app):
    """Layer 5, head 6 on the example: left the weights, right each row of α_ij ‖f(x_j)‖ over its sum,
    computed here by hand from transformers' BertModel modules (value and output projections)."""
    at = open_page(make_app, {"sentence": EXAMPLE, "layer": "5", "head": "6"})
    tokens, weights, norms = reference_run(load_reference(), [EXAMPLE])[EXAMPLE]
    T = len(tokens)
    w = weights[4, 5]  # (T, T)
    by_norm = w * norms[4, 5][None, :]
    expected = by_norm / by_norm.sum(-1, keepdims=True)
    np.testing.assert_allclose(grid(chart(at, "norm-weights"), "value", T), w, atol=1e-4)
    shown = grid(chart(at, "norm-shares"), "value", T)
    np.testing.assert_allclose(shown, expected, atol=1e-4)
    # The lecturer's measurement: most of the weight on [CLS], little of what is passed on.
    words = slice(1, T - 1)
    assert w[words, 0].mean() > 0.85 and shown[words, 0].mean() < 0.25
    said = " ".join(c.value for c in at.caption)
    ratio = norms[4, 5, words].mean() / norms[4, 5, 0]
    assert f"their mean is {ratio:.1f} times [CLS]'s" in said and 30 < ratio < 45
    assert "Kobayashi et al. 2020" in " ".join(m.value for m in at.markdown)


@needs_model
@pytest.mark.parametrize("text, failing", [(EXAMPLE, set()), (SHORT, {(1, 4)})], ids=["example", "short"])
def test_each_note_says_whether_its_claims_hold_on_this_sentence(make_app, text, failing):
    at = open_page(make_app, {"sentence": text})
    notes = _notes(at)
    assert {key for key, said in notes.items() if "does not hold here" in said} == failing
    for note in HEADS_WORTH_A_LOOK:
        said = notes[note.layer, note.head]
        assert said.count("at least ") + said.count("at most ") == len(note.claims)  # every claim, measured
    spread = notes[1, 4]
    assert "a claim for most sentences: **does not hold here**" in spread if failing else "holds" in spread


@needs_model
def test_layer_6_head_12_says_which_word_the_rows_pick(make_app):
    at = open_page(make_app, {"sentence": EXAMPLE})
    said = _notes(at)[6, 12]
    assert "11 of the 11 word pieces weigh “cat” most. So does “it”." in said
    assert trained_trace(EXAMPLE).tokens.count("cat") == 1


@needs_model
def test_the_page_says_what_the_model_is_and_what_weights_do_not_show(make_app):
    at = open_page(make_app, {"sentence": EXAMPLE, "step": "3. Mask, then softmax"})
    no_exception(at)
    intro = at.markdown[0].value
    assert "**distilled**: MiniLM (Wang et al. 2020)" in intro and "**fine-tuned**" in intro
    assert "only the self-attention of a larger teacher's last layer" in intro and "value relations" in intro
    said = " ".join(c.value for c in at.caption)
    assert "for one unpadded sentence its attention mask blocks nothing" in said
    assert "the trained model's attention mask blocks nothing" in said  # step 3
    assert "no mask" not in said and "blocks no key" not in said
    assert "mean weight on the next piece 0.63 (at least 0.5: holds; at most 0.95, a claim for most sentences: " \
           "holds)" in said  # one value
    assert "mean weight on the previous piece 0.9996 (at least 0.99: holds)" in said  # not 1.00
    assert "Jain & Wallace 2019" in said and "Wiegreffe & Pinter 2019" in said
    # the table's footnote, its "1 ÷ n, all from that row" checked on transformers' BertModel
    assert "in both its “previous” and “[CLS]” columns: its “[CLS]” mean is about 1 ÷ n (n word pieces), " \
        "all from that row." in said
    tokens, weights, _ = reference_run(load_reference(), [EXAMPLE])[EXAMPLE]
    n, on_cls = len(tokens) - 2, weights[0, 2, 1:-1, 0]  # layer 1 head 3, the word pieces' rows
    assert on_cls.mean() == pytest.approx(1 / n, rel=0.01) and on_cls[0] > 0.99 * on_cls.sum()
    pieces = " ".join(m.value for m in at.markdown)
    assert "A BERT classifier reads the pooler's tanh(W·h + b)" in pieces and "not that raw vector" in pieces
    assert not any("looks at the subject" in m.value for m in at.markdown)  # the old, false note
