"""The Worked example page's second half: the article's two other listings, as the presets named
"article" reproduce them, and the pitfalls they carry (core.article runs the article's code)."""

import numpy as np
import streamlit as st

from core import PRESETS, AttentionConfig
from core.article import blocked_row_weights
from dashboard import data
from dashboard.charts import heatmaps as charts
from dashboard.charts.draw import labelled, panels, show
from dashboard.lesson import state

LAB_DRAW = AttentionConfig(source="random", seq_len=4, d_model=8, num_heads=1)  # the lab's W ~ N(0, 1/d), same sizes


def _cells(row) -> list[str]:
    return ["NaN" if np.isnan(x) else f"{x:.3f}" for x in row]


def listings():
    st.subheader("The article's other listings, and their pitfalls", anchor=False)
    article, lab = data.trace(PRESETS["article-4x8"]), data.trace(LAB_DRAW)
    causal = data.trace(PRESETS["article-causal"])
    st.markdown(
        "**Its first listing** draws x and W_Q, W_K, W_V with `torch.randn`, every entry N(0, 1), and has no W_O. "
        "The preset **article-4x8** is that listing after `torch.manual_seed(0)` (tested against the article's code "
        "run as written). With N(0, 1) weights each entry of q and k already has variance 8, so ÷√d_k does not "
        f"bring the scores back to a spread of 1: its scaled scores spread {article.scaled[0].std():.1f} and the "
        f"largest weight of a row averages **{article.weights[0].max(-1).mean():.2f}**, a saturated softmax. The "
        "lab draws W ~ N(0, 1/d_model) instead; at the same sizes (seed 0) its scaled scores spread "
        f"{lab.scaled[0].std():.1f} and the largest weight averages {lab.weights[0].max(-1).mean():.2f}."
    )
    labels = charts.token_labels(causal.tokens)
    st.markdown(
        "**Its masking listing** fills `torch.zeros(4, 4)` with −∞ above the diagonal. The preset **article-causal** "
        "is those scores (Q = K = 0, V = the identity, so the output shows the weights): the softmax gives rows "
        "1, ½, ⅓, ¼, each query sharing its weight equally among the keys it may see."
    )
    left, right = panels(2, len(labels), "article_listings")
    with left:
        show(charts.scores_heatmap(causal, 0, "scaled", "its masked scores", show_mask=True,
                                   head_in_spec=False), "article_causal_masked",
             causal.config, labelled(causal.masked[0], labels, labels))
    with right:
        show(charts.weights_heatmap(causal, 0, "after the softmax", fmt=".3f", head_in_spec=False),
             "article_causal_weights", causal.config, labelled(causal.weights[0], labels, labels))
    theirs, ours = blocked_row_weights()
    st.markdown(
        "**Two pitfalls.** Its `attention()` blocks a key where `mask == 0` (its MultiHead passes `tril(ones)`: 1 = "
        "may attend), but its masking listing marks the blocked cells with True (`triu(ones, 1)`): the two "
        "polarities side by side, and passing one where the other is meant inverts the mask. And its `attention()` "
        "leaves a fully blocked row to the softmax, which gives NaN. Block the first query's row too:"
    )
    st.dataframe({"row 1 of": ["the article's attention()", "the lab's attention"],
                  **{f"key {j + 1}": [a, b] for j, (a, b) in enumerate(zip(_cells(theirs[0]), _cells(ours[0]),
                                                                             strict=True))}},
                 hide_index=True, width="content")


def load_buttons():
    for name in ("article-4x8", "article-causal"):
        st.button(f"Load {name} into the sidebar", key=f"article_load_{name}", on_click=state.set_lesson,
                  args=(PRESETS[name],))
