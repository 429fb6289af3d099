"""Page 4: why the scores are divided by √d_k."""

import streamlit as st

from dashboard import charts, controls, data

st.title("Why divide by √d_k")
st.markdown(
    "A dot product of two random vectors of size d_k has a spread of about √d_k, so without the scale the "
    "scores grow with d_k and the softmax **saturates**: one key takes almost all the weight and the others "
    "get almost nothing (and almost no gradient). Dividing by √d_k keeps the spread near 1 for every d_k."
)

T = st.slider("Keys per query", 2, 64, 16, key="view_sat_keys")
st.caption(f"Averaged over 20 seeds of random queries and keys (entries N(0, 1)), {T} keys each; "
           f"a uniform row would have entropy ln {T}.")
scaled, unscaled = data.saturation(T, 20)
left, right = st.columns(2)
with left:
    st.altair_chart(charts.saturation_chart(scaled, unscaled, "entropy", "mean entropy of a row (nats)"),
                    theme=None, key="chart_sat_entropy")
with right:
    st.altair_chart(charts.saturation_chart(scaled, unscaled, "max_weight", "mean largest weight"),
                    theme=None, key="chart_sat_max")

st.subheader("One row at the lesson's settings")
cfg = controls.current()
options = sorted({*data.SATURATION_D_KS, cfg.d_k})
d_k = st.select_slider("d_k for this row", options, value=cfg.d_k, key="view_row_dk")
n = cfg.num_tokens
st.caption(f"One query against {n} random keys of size {d_k} (seed {cfg.seed}).")
left, right = st.columns(2)
labels = charts.token_labels([f"k{i + 1}" for i in range(n)])
with left:
    st.altair_chart(charts.row_bars(data.score_row(d_k, n, cfg.seed, True), labels, "÷√d_k", "row-scaled"),
                    theme=None, key="chart_row_scaled")
with right:
    st.altair_chart(charts.row_bars(data.score_row(d_k, n, cfg.seed, False), labels, "not scaled", "row-unscaled",
                                    color=charts.style.KEY), theme=None, key="chart_row_unscaled")
