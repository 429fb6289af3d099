"""Page 1: one head of scaled dot-product attention, step by step."""

import math

import numpy as np
import streamlit as st

from dashboard import charts, controls, data, links, predict, state
from dashboard.ui import dim_labels, first_dims, labelled, panels, show, untrained_note

st.title("Scaled dot-product attention")
st.markdown(
    "Each token's vector x is multiplied by three matrices: W_Q gives its **query** q (what it looks for), "
    "W_K its **key** k (what the queries are matched against) and W_V its **value** v (what it passes on). "
    "How well query i matches key j is the dot product qᵢ·kⱼ. Divided by √d_k and passed through a softmax, "
    "each row of scores becomes **weights** that add up to 1, and token i's output is the weighted average of "
    "the values: `softmax(Q·Kᵀ / √d_k) · V`."
)
untrained_note()

STEPS = ["1. Q, K and V", "2. Q·Kᵀ, then scaled", "3. Mask, then softmax", "4. Weights · V"]


@st.fragment
def one_head():
    cfg = state.lesson()
    trace = data.trace(cfg)
    h = controls.head_control(trace.num_heads)
    labels = charts.token_labels(trace.tokens)
    # One step at a time (only the open tab is computed and drawn): legible on a projector, fast.
    tabs = controls.tabs(STEPS, "step", default=STEPS[2])
    for tab, step in zip(tabs, (projections, scores, softmax, output), strict=True):
        if tab.open:
            with tab:
                step(cfg, trace, h, labels)
    links.write_url(cfg)  # this fragment reruns alone when a tab or the head changes


def projections(cfg, trace, h, labels):
    st.caption(f"Each token's vector x ({cfg.d_model} numbers) times W_Q, W_K and W_V gives its q, k and v: "
               f"{len(labels)} tokens × d_k = {trace.d_k} numbers per head.")
    q, k, v = (first_dims(getattr(trace, m)[h], m.upper(), dim_labels(trace.d_k))[0] for m in "qkv")
    chart = charts.qkv_heatmap(q, k, v, labels, "Q, K and V, side by side", f"qkv-head{h + 1}")
    names = [f"{m}{i + 1}" for m in "qkv" for i in range(trace.d_k)]
    show(chart, f"qkv_{h}", cfg, labelled(np.concatenate([trace.q[h], trace.k[h], trace.v[h]], -1), labels, names))


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
    st.caption("Grey cells are blocked (−∞ before the softmax, weight 0 after). Every row that may see at "
               "least one key sums to 1.")
    shown = True
    if predict.switch("softmax"):
        question = predict.lesson_question("softmax", cfg, ("focus", "change"), head=h)
        shown = question is None or predict.hide_until_committed(question, "softmax")
    left, right = panels(2, len(labels))
    with left:
        show(charts.scores_heatmap(trace, h, "scaled", "after the mask", show_mask=True), f"masked_{h}", cfg,
             labelled(trace.masked[h], labels, labels))
    with right:
        if shown:
            show(charts.weights_heatmap(trace, h), f"weights_{h}", cfg, labelled(trace.weights[h], labels, labels))
        else:
            st.info("The weights after the softmax stay hidden until you commit to a prediction.")
    if trace.blocked_rows.any():
        st.info("A query row has no key left to attend to: its weights and output are 0 (see the Masking page).")


def output(cfg, trace, h, labels):
    st.caption("Row i of the output is row i of the weights times V: Σⱼ wᵢⱼ vⱼ, a weighted average of the "
               "value rows (0 for a blocked row).")
    dims = dim_labels(trace.d_k)
    shown, cols = first_dims(trace.heads[h], "The output", dims)
    chart = charts.matrix_heatmap(shown, labels, cols, "weights · V", f"output-head{h + 1}")
    show(chart, f"head_output_{h}", cfg, labelled(trace.heads[h], labels, dims))


one_head()
