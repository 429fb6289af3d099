"""Page 2: several heads at once, their concatenation and the output projection W_O."""

import numpy as np
import streamlit as st

from animations import style
from core.config import head_choices
from dashboard import controls
from dashboard.app_pages.ui import dim_labels, first_dims, introduction
from dashboard.charts import heatmaps as charts
from dashboard.charts.draw import draw, labelled, panels, show
from dashboard.charts.model_view import model_view
from dashboard.lesson import rerun

CLS_HEADS = 15  # measured with core.head_patterns; tests/core/test_page_claims.py recomputes it with transformers
CLS_RANGE = (1, 16)  # the same count on the lab's test sentences of six words or more (ditto)
CLS_SHORT = 47  # ... and on "Hi!", one of the shorter ones
# Of the CLS_HEADS, how many pass on at most 0.3 of what they pass on from [CLS] (the norm view,
# core.value_norms), and the one that passes on the most: (layer, head, weight on [CLS], [CLS]'s share).
# tests/core/test_page_claims.py recomputes both with transformers.
LITTLE = 0.3  # "passes on little": [CLS]'s share at most this (the Trained heads page's bound for layer 5, head 6)
CLS_LITTLE = 12
CLS_MOST = (3, 10, 0.89, 0.61)

def _formulas():
    st.latex(r"\mathrm{head}_i = \operatorname{softmax}\!\left(\frac{(XW_i^Q)(XW_i^K)^\top}{\sqrt{d_k}}\right)XW_i^V,"
             r"\qquad W_i^Q, W_i^K, W_i^V \in \mathbb{R}^{d_\text{model} \times d_k}, \quad i = 1, \dots, h")
    st.latex(r"\operatorname{MultiHead}(X) = \operatorname{Concat}(\mathrm{head}_1, \dots, \mathrm{head}_h)\,W^O, "
             r"\qquad W^O \in \mathbb{R}^{h d_k \times d_\text{model}}, \quad d_k = d_\text{model} / h")
    st.markdown(
        "In a trained model some heads specialise (one follows the previous word, another a syntactic relation), "
        "but many are **redundant**: a large share of them can be removed at test time with little loss (Michel et "
        "al. 2019, *Are Sixteen Heads Really Better than One?*; Voita et al. 2019 pruned 38 of 48 encoder heads "
        "for a drop of 0.15 BLEU)."
    )
    st.markdown(
        "A different thing, measured here: reading “The cat sat on the mat.”, "
        f"{CLS_HEADS} of MiniLM's 72 heads put 0.7 or more of a word piece's weight on [CLS] on average "
        f"({CLS_RANGE[0]} to {CLS_RANGE[1]} on the lab's other test sentences of six words or more, more on short "
        f"ones: {CLS_SHORT} on “Hi!”). On “The cat sat on the mat.”, {CLS_LITTLE} of those {CLS_HEADS} heads take at "
        f"most {LITTLE:g} of what they pass on from [CLS]: their weight on [CLS] is parked there (Trained heads "
        "page, “Weight is not contribution”). Not all of them: "
        f"layer {CLS_MOST[0]}, head {CLS_MOST[1]} puts {CLS_MOST[2]:.2f} of its "
        f"weight on [CLS], and {CLS_MOST[3]:.2f} of what that head passes on comes from [CLS]. Neither is the same "
        "as a head being removable."
    )


# On the projector a deck's screen may show one part (`part=heads`: every head's weights in one row of
# thumbnails); the whole page, a heatmap with its numbers per head, is many screens tall.
PART = controls.part(("heads",))
introduction(
    "Multi-head attention",
    "Each head has its own W_Q, W_K and W_V, each projecting the whole of x down to d_k numbers, so each head "
    "computes its own weights: below, every head's weights on the same colour scale. The heads' outputs "
    "are laid side by side (**concat**, back to d_model numbers per token) and mixed by one more matrix, "
    "**W_O**. Here the heads differ only because their random matrices differ.",
    more=_formulas,
)


def heads_in_a_row(trace):
    """The projector's slide: every head's weights as a thumbnail, side by side on one colour scale."""
    H = trace.num_heads
    st.subheader("Every head's weights", anchor=False)
    weights = np.asarray(trace.weights)[None]  # (1 layer, H, T, T)
    draw(model_view(weights, np.ones((1, H), dtype=bool)), "heads_row")
    st.caption("Each square is one head's weights on the same sentence (rows: queries, columns: keys), on one "
               "colour scale from 0 to 1. "
               + (f"The input is the same for all {H}; only their random W_Q and W_K differ." if H > 1 else ""))


def the_heads(cfg, trace):
    if PART == "heads":
        heads_in_a_row(trace)
        return
    labels = charts.token_labels(trace.tokens)
    D, H = cfg.d_model, trace.num_heads

    st.subheader(f"{H} heads' weights", anchor=False)
    for panel, h in zip(panels(H, len(labels), "heads"), range(H), strict=True):
        with panel:
            show(charts.weights_heatmap(trace, h, f"head {h + 1}"), f"heads_{h}", cfg,
                 labelled(trace.weights[h], labels, labels))

    st.subheader("Average over heads", anchor=False)
    st.caption("`nn.MultiheadAttention` returns (output, weights), and by default (`average_attn_weights=True`) "
               "those weights are this average over the heads; `average_attn_weights=False` gives each head's own.")
    show(charts.matrix_heatmap(trace.mean_weights, labels, labels, "mean weights", "mean-weights",
                               scheme=style.WEIGHT_SCHEME, x_title="key", y_title="query", domain=[0, 1]),
         "mean_weights", cfg, labelled(trace.mean_weights, labels, labels))

    st.subheader("Concatenate the heads, then project with W_O", anchor=False)
    concat_cols = [f"h{h + 1}·{d}" for h in range(H) for d in dim_labels(trace.d_k)]
    shown, cols = first_dims(trace.concat, "concat", concat_cols)
    show(charts.matrix_heatmap(shown, labels, cols, "concat (heads side by side)", "concat"), "concat", cfg,
         labelled(trace.concat, labels, concat_cols))
    dims = dim_labels(D)
    shown, cols = first_dims(trace.w_o, "W_O", dims)
    show(charts.matrix_heatmap(shown[: len(cols)], cols, cols, "W_O", "w_o", x_title="output dimension",
                               y_title="concat dimension"), "w_o", cfg, labelled(trace.w_o, dims, dims))
    shown, cols = first_dims(trace.output, "The output", dims)
    show(charts.matrix_heatmap(shown, labels, cols, "output = concat · W_O", "output"), "output", cfg,
         labelled(trace.output, labels, dims))

    st.subheader("d_k shrinks as the heads grow", anchor=False)
    st.caption(f"At d_model = {D}, the heads share the dimensions equally: d_k = d_model / heads.")
    heads = head_choices(D)
    st.dataframe({"heads": heads, "d_k": [D // h for h in heads]}, hide_index=True, width="content")
    cost(len(trace.tokens), D)


def cost(T: int, D: int):
    """What one attention layer costs as T grows, with this lesson's own counts."""
    with st.container(border=True):
        st.subheader("Cost", anchor=False)
        st.markdown(
            f"For T tokens of d = d_model numbers (this lesson: T = {T}, d = {D}):\n"
            f"- **Projections** W_Q, W_K, W_V, W_O: 4·T·d² multiply-adds, O(T·d²) time (here {4 * T * D * D:,}).\n"
            f"- **Attention** QKᵀ and weights·V, all heads together: 2·T²·d multiply-adds, O(T²·d) time (here "
            f"{2 * T * T * D:,}), and a T × T matrix of weights per head, O(T²) memory. It overtakes the "
            "projections once T > 2d. Fused kernels (FlashAttention) never store the weights, but still do the "
            "O(T²·d) work.\n"
            "- **Path length**: any token reaches any other in one layer, O(1); an RNN needs O(T) steps.\n"
            "- **A sliding window** of width w: a banded or sparse kernel computes T·w scores instead of T² (the "
            "lab builds the whole grid and masks it: see the Masking page).\n"
            "- **Generation**: a decoder keeps every past token's k and v in a **KV cache**, so each new token's "
            "attention is one query row against the cache, O(T·d) per layer (plus O(d²) for its own projections), "
            "instead of the whole T × T grid again; the cache holds 2·T·d numbers per layer."
        )


rerun.view(the_heads)
