"""The Trained heads page's measured claims and its norm view (weight against weight × value length).

Every number is core's: `value_norms` of the sentence's trace (Kobayashi et al. 2020), and the
guided notes' claims (`core.guided_heads.claim_values`), cached in the lab's lesson cache keyed on
the plain text, as the page's other numbers are (`trained.trace`).
"""

from contextlib import nullcontext

import numpy as np
import streamlit as st

from animations import style
from core import head_norms, value_norms
from core.guided_heads import claim_values
from core.head_patterns import one_word, top_word
from dashboard import data
from dashboard.app_pages import trained
from dashboard.charts import heatmaps as charts
from dashboard.charts.draw import draw
from dashboard.text import plain

MEASURED_AS = {  # a claim's measure, as the caption under its note says it
    "previous": "mean weight on the previous piece", "next": "mean weight on the next piece",
    "spread": "mean row entropy ÷ ln T (evenness)", "cls": "mean weight on [CLS]",
    "cls_share": "mean share of what the head passes on that comes from [CLS]",
    "cls_shorter": "word pieces' mean value length ÷ [CLS]'s",
    "one_word": "share of word pieces whose top word piece is the one most of them pick",
}
NOT_EXPLANATION = ("A head's weights show where it looks, not why the model outputs what it does: in the text "
                   "classifiers Jain & Wallace studied, quite different weights often gave the same prediction "
                   "(Jain & Wallace 2019, “Attention is not Explanation”), and whether weights explain a prediction "
                   "has to be tested for each model and task, not assumed (Wiegreffe & Pinter 2019, “Attention is "
                   "not not Explanation”).")


def norms(text: str) -> np.ndarray:
    """‖f(x_j)‖ of every layer, head and word piece (L, H, T): core.value_norms of the sentence's trace."""
    return data.memo.get_or_make(("trained-norms", text), lambda: value_norms(trained.trace(text).layers))


def claims_caption(note, text: str) -> str:
    """Each of the note's claims measured on the student's sentence, and whether it holds there."""
    whole = trained.trace(text)
    values = claim_values(note, whole.weights, norms(text))
    parts = {}  # measure -> (value, verdicts): one value per measure, however many bounds it has
    for claim, value in zip(note.claims, values, strict=True):
        verdict = "holds" if claim.holds(value) else "**does not hold here**"
        most = ", a claim for most sentences" if claim.on_most else ""
        parts.setdefault(claim.measure, (value, []))[1].append(f"{claim.says()}{most}: {verdict}")
    parts = [f"{MEASURED_AS[m]} {_number(m, v)} ({'; '.join(verdicts)})" for m, (v, verdicts) in parts.items()]
    said = "On your sentence: " + "; ".join(parts) + "."
    if note.pattern == "one_word":
        said += " " + _one_word(whole, note)
    return said


def _number(measure: str, value: float) -> str:
    """Two decimals, or four where two would round a value under 1 up to 1.00 (0.9996)."""
    if measure == "cls_shorter":
        return f"{value:.1f}"
    return f"{value:.4f}" if f"{value:.2f}" == "1.00" and value < 1 else f"{value:.2f}"


def _one_word(whole, note) -> str:
    head = whole.weights[note.layer - 1, note.head - 1]
    word, count, rows = one_word(head, whole.tokens)
    said = f"{count} of the {rows} word pieces weigh “{plain(word)}” most."
    if "it" in whole.tokens:
        picked = top_word(head, whole.tokens, "it")[0]
        which = "the first “it”" if whole.tokens.count("it") > 1 else "“it”"
        said += f" So does {which}." if picked == word else f" But {which} weighs “{plain(picked)}” most."
    return said


def norm_view(text: str, layer: int, head: int, beside: bool = False):
    """The open head's weights beside the share of what it passes on from each key. `beside` (a projector's
    slide): the words in a column to the right of the two maps, not above and below them."""
    whole = trained.trace(text)
    view = head_norms(whole.weights, norms(text), layer, head)  # the handout prints the same (handout_trained.py)
    weights, lengths, shares = view.weights, view.lengths, view.shares  # (T, T), (T,), (T, T)
    labels = charts.token_labels(whole.tokens)
    if beside:
        left, right, words_column = st.columns([5, 5, 4], gap="medium")
    else:
        words_column = st.container()
        left, right = st.columns(2)  # side by side at any width: the comparison is the point
    with words_column:
        st.markdown("**Weight is not contribution.** What a head adds to word piece i is Σ_j α_ij f(x_j), where "
                    "f(x_j) = (x_j W_V + b_V) W_O is key j's value, bias included, through this head's rows of W_O. "
                    "A large weight on a key whose f(x_j) is short passes on little (Kobayashi et al. 2020, "
                    "“Attention is Not Only a Weight”).")
    for column, values, title, name in ((left, weights, "weights α_ij", "norm-weights"),
                                        (right, shares, "share of ‖α_ij f(x_j)‖ in row i", "norm-shares")):
        with column:
            draw(charts.matrix_heatmap(values, labels, labels, title, name, scheme=style.WEIGHT_SCHEME,
                                       x_title="key", y_title="query", domain=(0, 1)), f"trained_{name}")
    words = lengths[1:-1]
    with words_column if beside else nullcontext():
        st.caption(f"Right: each weight times ‖f(x_j)‖, divided by its row's sum, so both maps read on one 0..1 "
                   f"scale and each row sums to 1. Here ‖f(x)‖ is {lengths[0]:.2f} for [CLS], {lengths[-1]:.2f} for "
                   f"[SEP] and {words.min():.2f} to {words.max():.2f} for the word pieces (their mean is "
                   f"{words.mean() / lengths[0]:.1f} times [CLS]'s). A column brighter on the left than on the right "
                   "gets weight but passes on little.")
