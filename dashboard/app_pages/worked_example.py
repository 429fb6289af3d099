"""Page 7: the article's 2×2 example, reproduced by core."""

import numpy as np
import streamlit as st

from core import PRESETS
from dashboard import controls, data
from dashboard.app_pages import article_listings
from dashboard.app_pages.ui import ARTICLE, dim_labels
from dashboard.charts import heatmaps as charts
from dashboard.charts.draw import labelled, panels, show
from dashboard.lesson import rerun, state

st.title("The article's worked example", anchor=False)
# On the projector a deck's screen may show one part (the page's text and formula head each): the inputs,
# the weights the lab computes, or the article's listings; the whole page does not fit one screen.
PART = controls.part(("inputs", "weights", "listings"))
if PART == "weights":  # the weights' slide: the title, the three maps and the check fit the projector; the
    st.caption(f"The small example near the end of the article {ARTICLE}: Q = K = the identity, "  # lecturer tells
               "V = diag(10, 20), d_k = 2.")  # the story the page's text tells
else:
    st.markdown(
        f"Near its end, the article {ARTICLE} works a small example: two tokens, one head, d_k = 2, with Q = K = "
        "the identity and V = diag(10, 20). Each token matches itself (score 1) better than the other (score 0); "
        "after ÷√2 and the softmax that becomes **0.670 / 0.330**, so token 1's output is 0.670·(10, 0) + "
        "0.330·(0, 20) = **(6.70, 6.60)**. The article prints the weights, "
        "`tensor([[0.670, 0.330], [0.330, 0.670]])`; its listing also prints W·V, but that line of its output is "
        "left out (`...`), so the outputs below are the lab's own computation."
    )
    st.latex(r"\operatorname{Attention}(Q, K, V) = \operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V,"
             r"\qquad \operatorname{softmax}(s)_j = \frac{e^{s_j}}{\sum_{l} e^{s_l}}")

cfg = PRESETS["article-2x2"]
trace = data.trace(cfg)
labels = charts.token_labels(trace.tokens)
dims = dim_labels(cfg.d_model)


if PART in (None, "inputs"):
    names = [f"{m}{i + 1}" for m in "qkv" for i in range(cfg.d_model)]
    show(charts.qkv_heatmap(trace.q[0], trace.k[0], trace.v[0], labels, "Q, K and V", "article-qkv"), "article_qkv",
         cfg, labelled(np.concatenate([trace.q[0], trace.k[0], trace.v[0]], -1), labels, names))
if PART in (None, "weights"):
    left, mid, right = panels(3, len(labels), "example")
    with left:
        show(charts.scores_heatmap(trace, 0, "scaled", "Q·Kᵀ ÷ √2"), "article_scaled", cfg,
             labelled(trace.scaled[0], labels, labels))
    with mid:
        show(charts.weights_heatmap(trace, 0, fmt=".3f"), "article_weights", cfg,
             labelled(trace.weights[0], labels, labels))
    with right:
        show(charts.matrix_heatmap(trace.output, labels, dims, "output = weights · V", "article-output"),
             "article_output", cfg, labelled(trace.output, labels, dims))
    w, out = trace.weights[0], trace.output
    st.success(f"The lab computes weights **{w[0, 0]:.3f} / {w[0, 1]:.3f}**, as the article prints, and outputs "
               f"**{out[0, 0]:.2f} {out[0, 1]:.2f}** / **{out[1, 0]:.2f} {out[1, 1]:.2f}**, the line its printout "
               "leaves out.")
if PART in (None, "listings"):
    article_listings.listings()


def load_button(_lesson):
    """The example is the same whatever the lesson; this button makes it the lesson (not on a part's slide)."""
    if PART is not None:
        return
    st.button("Load this example into the sidebar", key="article_load", on_click=state.set_lesson, args=(cfg,))
    article_listings.load_buttons()


rerun.view(load_button, with_trace=False)
