"""Page 2: several heads at once, their concatenation and the output projection W_O."""

import streamlit as st

from animations import style
from core.config import head_choices
from dashboard.app_pages.ui import dim_labels, first_dims, untrained_note
from dashboard.charts import heatmaps as charts
from dashboard.charts.draw import labelled, panels, show
from dashboard.lesson import rerun

st.title("Multi-head attention")
st.markdown(
    "Each head has its own W_Q, W_K and W_V, each projecting the whole of x down to d_k numbers, so each head "
    "computes its own weights: below, every head's weights on the same colour scale. The heads' outputs "
    "are laid side by side (**concat**, back to d_model numbers per token) and mixed by one more matrix, "
    "**W_O**. In a trained model the heads come to track different relationships; here they differ only "
    "because their random matrices differ."
)
untrained_note()


def the_heads(cfg, trace):
    labels = charts.token_labels(trace.tokens)
    D, H = cfg.d_model, trace.num_heads

    st.subheader(f"{H} heads' weights")
    for panel, h in zip(panels(H, len(labels), "heads"), range(H), strict=True):
        with panel:
            show(charts.weights_heatmap(trace, h, f"head {h + 1}"), f"heads_{h}", cfg,
                 labelled(trace.weights[h], labels, labels))

    st.subheader("Average over heads")
    st.caption("`nn.MultiheadAttention` returns (output, weights), and by default (`average_attn_weights=True`) "
               "those weights are this average over the heads; `average_attn_weights=False` gives each head's own.")
    show(charts.matrix_heatmap(trace.mean_weights, labels, labels, "mean weights", "mean-weights",
                               scheme=style.WEIGHT_SCHEME, x_title="key", y_title="query", domain=[0, 1]),
         "mean_weights", cfg, labelled(trace.mean_weights, labels, labels))

    st.subheader("Concatenate the heads, then project with W_O")
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

    st.subheader("d_k shrinks as the heads grow")
    st.caption(f"At d_model = {D}, the heads share the dimensions equally: d_k = d_model / heads.")
    heads = head_choices(D)
    st.dataframe({"heads": heads, "d_k": [D // h for h in heads]}, hide_index=True, width="content")


rerun.view(the_heads)
