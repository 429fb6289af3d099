"""Page 6: a whole Transformer block, stage by stage, post-LN and pre-LN."""

import streamlit as st

from core import ConfigError
from dashboard import charts, controls, data
from dashboard.ui import dim_labels, first_dims, labelled, show

st.title("Transformer block")
st.markdown(
    "Attention is one half of a Transformer block. Its output is **added back** to the input (the residual), "
    "normalised (**LayerNorm**), passed through a small **feed-forward** network, added back and normalised "
    "again. The original paper normalises after each residual (post-LN); most models today normalise before "
    "each sub-layer (pre-LN), which keeps the residual path untouched."
)

cfg = controls.current()
try:
    post, pre = data.block(cfg, False), data.block(cfg, True)
except ConfigError as err:
    st.info(str(err))
    st.stop()
left, right = st.columns(2)
for col, (_, summary), name in ((left, post, "post-LN"), (right, pre, "pre-LN")):
    with col:
        st.subheader(name)
        st.altair_chart(charts.stage_norms(summary, f"{name}: mean length of a token's vector", f"norms-{name}"),
                        theme=None, key=f"chart_norms_{name}")
        st.dataframe([{"stage": r["stage"], "size": " × ".join(map(str, r["shape"])),
                       "mean ‖row‖": round(r["mean_norm"], 3)} for r in summary], hide_index=True)


@st.fragment
def one_stage():
    cfg = controls.current()
    st.subheader("Look inside one stage")
    kind = st.radio("Block", ["post-LN", "pre-LN"], horizontal=True, key="view_block_kind")
    stages, _ = data.block(cfg, kind == "pre-LN")
    name = st.selectbox("Stage", list(stages), key="view_block_stage")
    labels = charts.token_labels(cfg.tokens)
    dims = dim_labels(cfg.d_model)
    values = stages[name]
    show(charts.matrix_heatmap(first_dims(values, name), labels, dims[:64], f"{kind}: {name}", f"stage-{name}"),
         f"stage_{kind}_{name}", cfg, labelled(values, labels, dims))


one_stage()
