"""Page 6: a whole Transformer block, stage by stage, post-LN and pre-LN."""

import streamlit as st

from core import ConfigError
from dashboard import controls, data
from dashboard.app_pages.ui import dim_labels, first_dims, untrained_note
from dashboard.charts import heatmaps as charts
from dashboard.charts.draw import draw, labelled, show
from dashboard.lesson import rerun
from dashboard.text import plain

st.title("Transformer block", anchor=False)
# On the projector a deck's screen may show one part: the formulas, or the block's numbers (its parameters,
# post-LN beside pre-LN, one stage inside); the whole page does not fit one screen.
PART = controls.part(("formulas", "parameters", "layouts", "stage"))
if PART in (None, "formulas"):
    st.markdown(
        "Attention is one half of a Transformer block. Its output is **added back** to its input (the residual), "
        "normalised (**LayerNorm**), passed through a **feed-forward** network of two layers (d_model → "
        "d_ff = 4·d_model → d_model), added back and normalised again. The 2017 paper normalises after each "
        "residual (post-LN), and so do BERT-style encoders, the lab's trained MiniLM included. GPT-2 moved the "
        "LayerNorm before each sub-layer (pre-LN), as most large decoders since do: that leaves the residual path "
        "untouched, and a stack of pre-LN blocks then needs one more LayerNorm after its last block, since nothing "
        "else normalises the stack's output."
    )
    st.latex(r"\begin{aligned} &\text{post-LN:} && x \leftarrow \mathrm{LN}\big(x + \mathrm{Attn}(x)\big), "
             r"&& x \leftarrow \mathrm{LN}\big(x + \mathrm{FFN}(x)\big) \\ "
             r"&\text{pre-LN:} && x \leftarrow x + \mathrm{Attn}\big(\mathrm{LN}(x)\big), "
             r"&& x \leftarrow x + \mathrm{FFN}\big(\mathrm{LN}(x)\big) \end{aligned}")
    st.markdown("**LayerNorm** works on each token on its own, across its d_model features: it subtracts the "
                "token's mean μ, divides by its standard deviation, then scales and shifts every feature k by a "
                "learned γ_k and β_k (ε keeps the division safe).")
    st.latex(r"\mathrm{LN}(x)_k = \gamma_k \, \frac{x_k - \mu}{\sqrt{\sigma^2 + \varepsilon}} + \beta_k, \qquad "
             r"\mu = \frac{1}{d}\sum_{k=1}^{d} x_k, \quad \sigma^2 = \frac{1}{d}\sum_{k=1}^{d} (x_k - \mu)^2")
    st.markdown("The **feed-forward network** also works on each token on its own, with an activation φ between "
                "its two layers: ReLU in the lab's random block, GELU in the trained MiniLM.")
    st.latex(r"\mathrm{FFN}(x) = \varphi(x W_1 + b_1)\, W_2 + b_2, \qquad "
             r"\mathrm{ReLU}(z) = \max(0, z), \quad \mathrm{GELU}(z) = z\,\Phi(z)")


def about_the_numbers():
    """Where the block's numbers come from: under the formulas on the page, above the numbers on a part's slide."""
    untrained_note()
    st.caption("The attention here is this lesson's own (its weights, mask, ÷√d_k, temperature and positions), "
               "the same as on the other pages; the feed-forward weights are random too, drawn from the seed. Like "
               "the lesson's attention, this block has no biases: b₁ = b₂ = 0 and β = 0, and γ = 1. For the trained "
               "model, the block is its own layer (post-LN, GELU, with its learned biases, γ and β).")


if PART is None:
    about_the_numbers()


def parameters(cfg):
    counts = data.block_parameters(cfg)
    total = sum(counts.values())
    st.subheader("Where the block's numbers are", anchor=False)
    st.dataframe([{"part": part, "parameters": f"{n:,}", "share": f"{n / total:.0%}"} for part, n in counts.items()],
                 hide_index=True, width="content")
    st.caption(f"{total:,} in all at d_model = {cfg.d_model} (no biases, as in the lesson's attention): the "
               "feed-forward network, with d_ff = 4·d_model, holds about two thirds of them: 8·d_model² of "
               "12·d_model² + 2·d_model (the attention's four matrices hold 4·d_model², the two LayerNorms' scales "
               "2·d_model).")


def layouts(cfg):
    post, pre = data.block(cfg, False), data.block(cfg, True)
    top = max(r["mean_norm"] for _, summary in (post, pre) for r in summary)  # one scale: bars compared across
    left, right = st.columns(2)
    for col, (_, summary), name in ((left, post, "post-LN"), (right, pre, "pre-LN")):
        with col:
            st.subheader(name, anchor=False)
            chart = charts.stage_norms(summary, "mean length of a token's vector", f"norms-{name}", top)
            draw(chart, f"chart_norms_{name}")
            if PART is not None:  # on the part's slide the chart alone: its table would run below the screen
                continue
            st.dataframe([{"stage": r["stage"], "size": " × ".join(map(str, r["shape"])),
                           "mean ‖row‖": round(r["mean_norm"], 3)} for r in summary], hide_index=True)


def one_stage(cfg):
    st.subheader("Look inside one stage", anchor=False)
    kind = controls.choice(st.radio, "Block", ["post-LN", "pre-LN"], "layout", "post-LN", horizontal=True)
    stages, _ = data.block(cfg, kind == "pre-LN")
    name = controls.choice(st.selectbox, "Stage", list(stages), "stage", "attention")
    labels = charts.token_labels(cfg.tokens)
    dims = dim_labels(cfg.d_model)
    shown, cols = first_dims(stages[name], name, dims)
    show(charts.matrix_heatmap(shown, labels, cols, f"{kind}: {name}", f"stage-{name}"),
         f"stage_{kind}_{name}", cfg, labelled(stages[name], labels, dims))


def the_block(cfg):
    if PART == "formulas":
        return
    if PART is not None:
        about_the_numbers()
    try:
        if PART in (None, "parameters"):
            parameters(cfg)
        if PART in (None, "layouts"):
            layouts(cfg)
    except ConfigError as err:  # hand-entered Q, K, V: no token vectors to start a block from
        st.info(plain(err))
    else:
        if PART in (None, "stage"):
            one_stage(cfg)


rerun.view(the_block, with_trace=False)
