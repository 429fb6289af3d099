"""Page 6: a whole Transformer block, stage by stage, post-LN and pre-LN."""

import streamlit as st

from core import ConfigError
from dashboard import controls, data
from dashboard.app_pages.ui import dim_labels, first_dims, untrained_note
from dashboard.charts import heatmaps as charts
from dashboard.charts.draw import draw, labelled, show
from dashboard.lesson import rerun
from dashboard.text import plain

st.title("Transformer block")
st.markdown(
    "Attention is one half of a Transformer block. Its output is **added back** to its input (the residual), "
    "normalised (**LayerNorm**), passed through a **feed-forward** network of two layers (d_model → "
    "d_ff = 4·d_model → d_model), added back and normalised again. The 2017 paper normalises after each "
    "residual (post-LN); most models since normalise before each sub-layer (pre-LN), which leaves the residual "
    "path untouched, and a stack of pre-LN blocks then needs one more LayerNorm after its last block, since "
    "nothing else normalises the stack's output."
)
untrained_note()
st.caption("The attention here is this lesson's own (its weights, mask, ÷√d_k, temperature and positions), "
           "the same as on the other pages; the feed-forward weights are random too, drawn from the seed.")


def parameters(cfg):
    counts = data.block_parameters(cfg)
    total = sum(counts.values())
    st.subheader("Where the block's numbers are")
    st.dataframe([{"part": part, "parameters": f"{n:,}", "share": f"{n / total:.0%}"} for part, n in counts.items()],
                 hide_index=True, width="content")
    st.caption(f"{total:,} in all at d_model = {cfg.d_model} (no biases, as in the lesson's attention): the "
               "feed-forward network, with d_ff = 4·d_model, holds two thirds of them.")


def layouts(cfg):
    post, pre = data.block(cfg, False), data.block(cfg, True)
    left, right = st.columns(2)
    for col, (_, summary), name in ((left, post, "post-LN"), (right, pre, "pre-LN")):
        with col:
            st.subheader(name)
            chart = charts.stage_norms(summary, "mean length of a token's vector", f"norms-{name}")
            draw(chart, f"chart_norms_{name}")
            st.dataframe([{"stage": r["stage"], "size": " × ".join(map(str, r["shape"])),
                           "mean ‖row‖": round(r["mean_norm"], 3)} for r in summary], hide_index=True)


def one_stage(cfg):
    st.subheader("Look inside one stage")
    kind = controls.choice(st.radio, "Block", ["post-LN", "pre-LN"], "layout", "post-LN", horizontal=True)
    stages, _ = data.block(cfg, kind == "pre-LN")
    name = controls.choice(st.selectbox, "Stage", list(stages), "stage", "attention")
    labels = charts.token_labels(cfg.tokens)
    dims = dim_labels(cfg.d_model)
    shown, cols = first_dims(stages[name], name, dims)
    show(charts.matrix_heatmap(shown, labels, cols, f"{kind}: {name}", f"stage-{name}"),
         f"stage_{kind}_{name}", cfg, labelled(stages[name], labels, dims))


def the_block(cfg):
    try:
        parameters(cfg)
        layouts(cfg)
    except ConfigError as err:  # hand-entered Q, K, V: no token vectors to start a block from
        st.info(plain(err))
    else:
        one_stage(cfg)


rerun.view(the_block, with_trace=False)
