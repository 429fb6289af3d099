"""Page 1: one head of scaled dot-product attention, step by step."""

import math

import streamlit as st

from dashboard import charts, controls, data
from dashboard.ui import dim_labels, first_dims, labelled, panels, show

st.title("Scaled dot-product attention")
st.markdown(
    "Each token asks a question (its **query** q) and offers an answer key (its **key** k). "
    "How well a query matches each key is the dot product q·k; dividing by √d_k and a softmax turn "
    "those scores into **weights** that add up to 1 across a row. The head's output for a token is "
    "the weighted average of the **values** v: `softmax(Q·Kᵀ / √d_k) · V`."
)


@st.fragment
def one_head():
    cfg = controls.current()
    trace = data.trace(cfg)
    h = controls.head_control(trace.num_heads)
    labels = charts.token_labels(trace.tokens)
    dims = dim_labels(trace.d_k)

    st.subheader("1. Project every token to Q, K and V")
    st.caption(f"Each is {len(labels)} tokens × d_k = {trace.d_k} numbers for this head.")
    for col, name in zip(st.columns(3), "qkv", strict=True):
        with col:
            values = getattr(trace, name)[h]
            chart = charts.matrix_heatmap(first_dims(values, name.upper()), labels, dims[:64], name.upper(),
                                          f"{name}-head{h + 1}", max_width=320)
            show(chart, f"{name}_{h}", cfg, labelled(values, labels, dims))

    st.subheader("2. Scores Q·Kᵀ, then scaled")
    factor = f"÷ √{trace.d_k} = ÷ {math.sqrt(trace.d_k):.2f}" if cfg.scale else "not divided by √d_k"
    st.caption(f"Scaled = q·k × {trace.scale:.4f} ({factor}, ÷ temperature {cfg.temperature:g}).")
    left, right = panels(2, len(labels))
    with left:
        show(charts.scores_heatmap(trace, h, "qk", "Q·Kᵀ (raw scores)"), f"scores_{h}", cfg,
             labelled(trace.scores[h], labels, labels))
    with right:
        show(charts.scores_heatmap(trace, h, "scaled", "scaled scores"), f"scaled_{h}", cfg,
             labelled(trace.scaled[h], labels, labels))

    st.subheader("3. Mask, then softmax")
    st.caption("Grey cells are blocked (−∞ before the softmax, weight 0 after). Each row of weights sums to 1.")
    left, right = panels(2, len(labels))
    with left:
        show(charts.scores_heatmap(trace, h, "scaled", "after the mask", show_mask=True), f"masked_{h}", cfg,
             labelled(trace.masked[h], labels, labels))
    with right:
        show(charts.weights_heatmap(trace, h), f"weights_{h}", cfg, labelled(trace.weights[h], labels, labels))
    if trace.blocked_rows.any():
        st.info("A query row has no key left to attend to: its weights and output are 0 (see the Masking page).")

    st.subheader("4. Weights · V: the head's output")
    chart = charts.matrix_heatmap(first_dims(trace.heads[h], "The output"), labels, dims[:64],
                                  "weights · V", f"head-output-{h + 1}")
    show(chart, f"head_output_{h}", cfg, labelled(trace.heads[h], labels, dims))


one_head()
