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


STEPS = ["1. Q, K and V", "2. Q·Kᵀ, then scaled", "3. Mask, then softmax", "4. Weights · V"]


@st.fragment
def one_head():
    cfg = controls.current()
    trace = data.trace(cfg)
    h = controls.head_control(trace.num_heads)
    labels = charts.token_labels(trace.tokens)
    # One step at a time (only the open tab is computed and drawn): legible on a projector, fast.
    tabs = st.tabs(STEPS, default=STEPS[2], key="step", on_change="rerun", bind="query-params")
    for tab, step in zip(tabs, (projections, scores, softmax, output), strict=True):
        if tab.open:
            with tab:
                step(cfg, trace, h, labels)


def projections(cfg, trace, h, labels):
    st.caption(f"Each token's vector times W_Q, W_K, W_V gives {len(labels)} tokens × d_k = {trace.d_k} "
               "numbers per head.")
    dims = dim_labels(trace.d_k)
    for col, name in zip(panels(3, len(labels)), "qkv", strict=True):
        with col:
            values = getattr(trace, name)[h]
            chart = charts.matrix_heatmap(first_dims(values, name.upper()), labels, dims[:64], name.upper(),
                                          f"{name}-head{h + 1}", max_width=320)
            show(chart, f"{name}_{h}", cfg, labelled(values, labels, dims))


def scores(cfg, trace, h, labels):
    factor = f"÷ √{trace.d_k} = ÷ {math.sqrt(trace.d_k):.2f}" if cfg.scale else "not divided by √d_k"
    st.caption(f"Scaled = q·k × {trace.scale:.4f} ({factor}, ÷ temperature {cfg.temperature:g}).")
    left, right = panels(2, len(labels))
    with left:
        show(charts.scores_heatmap(trace, h, "qk", "Q·Kᵀ (raw scores)"), f"scores_{h}", cfg,
             labelled(trace.scores[h], labels, labels))
    with right:
        show(charts.scores_heatmap(trace, h, "scaled", "scaled scores"), f"scaled_{h}", cfg,
             labelled(trace.scaled[h], labels, labels))


def softmax(cfg, trace, h, labels):
    st.caption("Grey cells are blocked (−∞ before the softmax, weight 0 after). Each row of weights sums to 1.")
    left, right = panels(2, len(labels))
    with left:
        show(charts.scores_heatmap(trace, h, "scaled", "after the mask", show_mask=True), f"masked_{h}", cfg,
             labelled(trace.masked[h], labels, labels))
    with right:
        show(charts.weights_heatmap(trace, h), f"weights_{h}", cfg, labelled(trace.weights[h], labels, labels))
    if trace.blocked_rows.any():
        st.info("A query row has no key left to attend to: its weights and output are 0 (see the Masking page).")


def output(cfg, trace, h, labels):
    st.caption("Each token's output is its row of weights times V: a weighted average of the values.")
    dims = dim_labels(trace.d_k)
    chart = charts.matrix_heatmap(first_dims(trace.heads[h], "The output"), labels, dims[:64],
                                  "weights · V", f"output-head{h + 1}")
    show(chart, f"head_output_{h}", cfg, labelled(trace.heads[h], labels, dims))


one_head()
