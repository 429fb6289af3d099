"""Page 4: why the scores are divided by √d_k."""

import streamlit as st

from core import MAX_TOKENS
from dashboard import controls, data
from dashboard.app_pages import predict
from dashboard.app_pages.ui import introduction
from dashboard.charts import heatmaps as charts
from dashboard.charts.draw import draw
from dashboard.lesson import rerun

SEEDS = 20  # random draws averaged in the saturation chart, as its caption says

def _gradients():
    st.latex(r"p = \operatorname{softmax}(s), \quad p_j = \frac{e^{s_j}}{\sum_{l} e^{s_l}}, \qquad "
             r"s_j = \frac{q \cdot k_j}{\sqrt{d_k}}, \qquad "
             r"\frac{\partial p}{\partial s} = \operatorname{diag}(p) - p\,p^\top")
    st.markdown(
        "A saturated softmax also stops the **scores** from learning: its Jacobian, the diagonal matrix with p on "
        "its diagonal minus the outer product of p with itself, tends to 0 in every entry as p becomes one-hot, so "
        "almost no gradient reaches the scores, nor through them W_Q and W_K: the pattern is frozen. What the head "
        "passes on still learns. Output i is a weighted sum of the values, so its derivative with respect to v_j "
        "is p_ij (times the identity): a saturated row hands its gradient, nearly whole, to the one value it "
        "picked, and through it to W_V. W_O, applied after the weighted sum, gets its gradient without passing "
        "through the softmax at all. W_V and W_O together are the head's OV circuit (Elhage et al. 2021); W_Q "
        "and W_K, its QK circuit, are the part a saturated softmax freezes."
    )
    st.latex(r"\mathrm{out}_i = \sum_j p_{ij}\, v_j, \qquad "
             r"\frac{\partial\, \mathrm{out}_i}{\partial v_j} = p_{ij}\, I")



introduction(
    "Why divide by √d_k",
    "If the entries of q and k are independent, with mean 0 and variance 1, their dot product "
    "q·k, a sum of d_k products qᵢkᵢ, has mean 0 and variance d_k: a spread (standard deviation) of √d_k. Without the "
    "scale the scores spread wider as d_k grows and the softmax **saturates**: one key takes almost all the weight. "
    "Dividing by √d_k brings the spread back to 1 for every d_k.",
    untrained=False,
    more=_gradients,
)
PARTS = ["1. Averaged over seeds", "2. One row at the lesson's settings"]


def predicted_first(cfg) -> bool:
    """With "Predict first" on: a question about the lesson's own row with the scale switched, and
    the demonstration below hidden until the student commits to an answer."""
    if not controls.predict_first("why_scale"):
        return True
    st.caption("A question about the lesson in the sidebar (head 1): predict, then see the demonstration.")
    change = "scale:off" if cfg.scale else "scale:on"
    question = predict.lesson_question("why_scale", cfg, ("change",), change=change)
    return question is None or predict.hide_until_committed(question, "why_scale")


def demonstration(cfg):
    """Two parts: in projector mode one per screen (← → between them), else one under the other."""
    parts = controls.tabs(PARTS, "why_part", PARTS[0], arrows=True) if controls.projector() else None
    if parts is None or parts[0].open:
        averaged()
    if parts is None:
        st.subheader("One row at the lesson's settings", anchor=False)
    if parts is None or parts[1].open:
        one_row(cfg)


def averaged():
    T = controls.number("Keys per query", 2, MAX_TOKENS, "keys", 16)
    st.caption(f"Averaged over {SEEDS} seeds of random queries and keys (entries N(0, 1)), {T} keys each; "
               f"a uniform row would have entropy ln {T}.")
    scaled, unscaled = data.saturation(T, SEEDS)
    left, right = st.columns(2)
    with left:
        draw(charts.saturation_chart(scaled, unscaled, "entropy", "mean entropy of a row (nats)"), "chart_sat_entropy")
    with right:
        draw(charts.saturation_chart(scaled, unscaled, "max_weight", "mean largest weight"), "chart_sat_max")


def one_row(cfg):
    options = sorted({*data.SATURATION_D_KS, cfg.d_k})
    d_k = controls.choice(st.select_slider, "d_k for this row", options, "dk", cfg.d_k)
    n = cfg.num_tokens
    st.caption(f"One query against {n} random keys of size {d_k} (entries N(0, 1), seed {cfg.seed}).")
    left, right = st.columns(2)
    labels = charts.token_labels([f"k{i + 1}" for i in range(n)])
    with left:
        draw(charts.row_bars(data.score_row(d_k, n, cfg.seed, True), labels, "÷√d_k", "row-scaled"),
             "chart_row_scaled")
    with right:
        draw(charts.row_bars(data.score_row(d_k, n, cfg.seed, False), labels, "not scaled", "row-unscaled",
                             color=charts.style.KEY), "chart_row_unscaled")


def the_lesson(cfg):
    if predicted_first(cfg):
        demonstration(cfg)
    else:
        st.info("The demonstration below stays hidden until you commit to a prediction.")


rerun.view(the_lesson, with_trace=False)
