"""Page 3: the same scores before the mask, after it, and after the softmax, for each mask kind."""

import numpy as np
import streamlit as st
import torch

from core import ConfigError
from core.config import MASKS
from core.lesson import PAD_TOKEN, with_mask
from dashboard import controls, data
from dashboard.app_pages import predict
from dashboard.app_pages.ui import introduction
from dashboard.charts import heatmaps as charts
from dashboard.charts.draw import labelled, panels, show
from dashboard.lesson import rerun
from dashboard.lesson.sidebar import MASK_LABELS
from dashboard.text import plain

TORCH = torch.__version__.split("+")[0]  # the version whose behaviour the note states (tests/core/test_torch_claims.py)


def _formula_and_training():
    st.latex(r"\operatorname{Attention}(Q, K, V) = "
             r"\operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right)V,"
             r"\qquad M_{ij} = \begin{cases} 0 & \text{query } i \text{ may attend to key } j \\ -\infty & "
             r"\text{otherwise} \end{cases}")
    st.markdown(
        "**What the causal mask is for in training.** A decoder learns to predict every next token of a text at "
        "once: position i is given the true tokens 1 … i (*teacher forcing*) and predicts token i + 1. The causal "
        "mask keeps position i from seeing tokens i + 1 … T, so one forward pass over T tokens computes all T "
        "predictions in parallel, each exactly as it would be made when generating, where nothing later exists yet. "
        "An RNN has to step through the positions one after another; generation itself still runs one token at a time."
    )


introduction(
    "Masking",
    "A mask says which keys each query may look at. Blocked scores become −∞ before the softmax, so their "
    "weights are exactly 0 and the row's other weights share the whole 1. Pick a mask kind below to compare "
    "it with the lesson's; the sidebar sets the lesson's own mask (and its custom grid).",
    more=_formula_and_training,
)

ABOUT = {
    "none": "No mask: every query may attend to every key.",
    "causal": "Causal: each token sees itself and the tokens before it, never the ones after (as a model that "
              "writes one word at a time must).",
    "padding": f"Padding: sentences in a batch are padded to one length; the padding tokens ('{PAD_TOKEN}') "
               "carry no meaning, so no query may attend to them. Their own rows still see the real tokens.",
    "window": "Sliding window of width w: each token sees itself and the w − 1 tokens before it. With a banded "
              "or sparse kernel the cost grows with T × w instead of T²; the lab builds the full T × T grid and "
              "masks it, so here all T² scores are still computed.",
    "custom": "Custom: a grid drawn by hand (sidebar). When the lesson has none, this view shows a causal grid "
              "whose first query may see no key, to show a row with no key left.",
}


STAGES = ["1. scaled scores", "2. after the mask", "3. after the softmax"]


def compare(cfg):
    default = cfg.mask if cfg.mask != "none" else "causal"  # "none" would show before = after
    slides = controls.projector()  # one stage per screen, ← → between them
    with controls.row():
        kind = controls.choice(st.segmented_control, "Mask to show", list(MASKS), "show", default,
                               format_func=MASK_LABELS.get)
        if not slides:
            st.caption(ABOUT[kind])
        try:
            view = with_mask(cfg, kind)
        except ConfigError as err:
            st.warning(plain(err))
            return
        trace = data.trace(view)
        h = controls.head_control(trace.num_heads)
    labels = charts.token_labels(trace.tokens)
    if slides:
        one_stage(cfg, kind, trace, h, view, labels)
        return
    shown = _predicted_first(cfg, kind)
    before, after = panels(2, len(labels), "masking")
    with before:
        _scaled(trace, h, view, labels)
    if shown:
        with after:
            _masked(trace, h, view, labels)
        _weights(trace, h, view, labels)
        explain_blocked(trace, labels)
    else:
        after.info("The masked scores and the weights stay hidden until you commit to a prediction.")


def _predicted_first(cfg, kind: str) -> bool:
    """With "Predict first" on, a question about this mask; False while its result must stay hidden."""
    if not controls.predict_first("masking"):
        return True
    question = predict.lesson_question("masking", cfg, ("blocked",), mask=kind)
    return question is None or predict.hide_until_committed(question, "masking")


def one_stage(cfg, kind: str, trace, h, view, labels):
    """Projector mode: the chosen stage alone, as large as the screen's height allows, with the stages'
    ← → and what it says beside it (the screen is wider than a square heatmap needs)."""
    chart, notes = st.columns([3, 2], gap="large")
    with notes:
        stages = controls.tabs(STAGES, "mask_stage", STAGES[0], arrows=True)
        stage = next(i for i, s in enumerate(stages) if s.open)
        st.caption(ABOUT[kind])
        scores = np.asarray(trace.scaled[h])
        if stage == 0 and np.all(scores == scores.flat[0]):  # a one-colour grid, a one-tick legend: say why
            st.caption(f"Every scaled score of this head is {scores.flat[0] + 0.0:.2f}: each key matches each query "
                       "equally, so the weights show the mask alone.")
        shown = _predicted_first(cfg, kind)
        if stage == 2 and shown:
            explain_blocked(trace, labels)
    with chart:
        if stage and not shown:
            st.info("The masked scores and the weights stay hidden until you commit to a prediction.")
            return
        (_scaled, _masked, _weights)[stage](trace, h, view, labels)


def _scaled(trace, h, view, labels):
    show(charts.scores_heatmap(trace, h, "scaled", STAGES[0]), f"mask_before_{h}", view,
         labelled(trace.scaled[h], labels, labels))


def _masked(trace, h, view, labels):
    show(charts.scores_heatmap(trace, h, "scaled", STAGES[1], show_mask=True), f"mask_after_{h}", view,
         labelled(trace.masked[h], labels, labels))


def _weights(trace, h, view, labels):
    show(charts.weights_heatmap(trace, h, STAGES[2]), f"mask_weights_{h}", view,
         labelled(trace.weights[h], labels, labels))


def explain_blocked(trace, labels):
    rows = [labels[i] for i, b in enumerate(trace.blocked_rows) if b]
    if not rows:
        st.caption("Every query can see at least one key, so every row of weights sums to 1.")
        return
    many = len(rows) > 1
    st.info(
        f"**Fully blocked row{'s' if many else ''}: {', '.join(rows)}.** "
        f"{'These queries' if many else 'This query'} may attend to no key: every score in "
        f"{'their rows' if many else 'its row'} is −∞, and a softmax of only −∞ would be 0 / 0 = NaN. The lab "
        "gives such a row weights of 0 and an output of 0, and marks it, instead of spreading NaN through the rest "
        f"of the model. In PyTorch {TORCH}, `F.scaled_dot_product_attention` returns no weights, and "
        "its output for such a row is 0 (since PyTorch 2.5; earlier versions gave NaN); `nn.MultiheadAttention` "
        "gives NaN for the row when it returns its weights (`need_weights=True`, its default) and, with "
        "`need_weights=False`, 0 before its output projection W_O."
    )


rerun.view(compare, with_trace=False)
