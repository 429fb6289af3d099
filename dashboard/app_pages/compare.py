"""Compare: lesson A (the sidebar's) and lesson B (A with one setting changed), and B − A."""

import streamlit as st

from animations import style
from classroom.changes import LABELS, apply_change, available_changes
from classroom.compare import CompareError, compare
from core import ConfigError
from dashboard import controls, data
from dashboard.app_pages.ui import untrained_note
from dashboard.charts import heatmaps as charts
from dashboard.charts.draw import labelled, panels, show
from dashboard.lesson import rerun
from dashboard.text import plain

st.title("Compare two lessons", anchor=False)
st.markdown(
    "**Lesson A** is the lesson in the sidebar; **lesson B** is the same lesson with one setting changed. "
    "Their weights side by side, then **B − A** cell by cell: orange where B gives more weight, blue where it "
    "gives less. In a row that may attend to some key in both lessons the weights sum to 1 in each, so what "
    "some keys gain, others lose."
)
untrained_note()


def comparison(cfg):
    options = available_changes(cfg)
    if not options:
        st.info("No single setting of this lesson can be changed here.")
        return
    default = "temperature*0.1" if "temperature*0.1" in options else options[0]
    with st.columns([1, 2])[0]:
        change = controls.choice(st.selectbox, "Lesson B changes", options, "change", default,
                                 format_func=LABELS.get)
    try:
        result = data.memo.get_or_make(("compare", cfg.key(), change),
                                         lambda: compare(cfg, apply_change(cfg, change)))
    except (CompareError, ConfigError) as err:
        st.warning(plain(err))
        return
    st.markdown(f"**{plain(result.summary)}**")
    if result.per_head:
        h = controls.head_control(result.a.num_heads)
        draw(result, h, result.a.weights[h], result.b.weights[h], f"head {h + 1}")
    else:
        st.caption(f"A has {result.a.num_heads} heads and B has {result.b.num_heads}, so no head of A matches a "
                   "head of B: the page compares the weights averaged over each lesson's heads.")
        draw(result, 0, result.a.mean_weights, result.b.mean_weights, "mean over heads")


def draw(result, h: int, wa, wb, which: str):
    la, lb = charts.token_labels(result.a.tokens), charts.token_labels(result.b.tokens)
    shared = charts.token_labels(result.tokens)
    a_col, b_col = panels(2, max(len(la), len(lb)), "compare")
    with a_col:
        show(weights_chart(result, result.a, h, wa, la, f"A: {which}", "compare-a"), f"compare_a_{h}",
             result.a.config, labelled(wa, la, la))
    with b_col:
        show(weights_chart(result, result.b, h, wb, lb, f"B: {which}", "compare-b"), f"compare_b_{h}",
             result.b.config, labelled(wb, lb, lb))
    diff = result.diff[h if result.per_head else 0]  # (T, T) over the tokens both lessons share
    if len(shared) < max(len(la), len(lb)):
        st.caption(f"B − A covers the first {len(shared)} tokens, which both lessons have.")
    chart = charts.matrix_heatmap(diff, shared, shared, f"B − A: {which}", "compare-diff", scheme=style.SCORE_SCHEME,
                                  x_title="key (attended to)", y_title="query (attending)")
    show(chart, f"compare_diff_{h}", result.a.config, labelled(diff, shared, shared))


def weights_chart(result, trace, h: int, values, labels, title: str, name: str):
    """One head's weights (blocked cells grey), or the head mean on the same 0..1 scale."""
    if result.per_head:
        return charts.weights_heatmap(trace, h, title)
    return charts.matrix_heatmap(values, labels, labels, title, name, scheme=style.WEIGHT_SCHEME, domain=(0, 1),
                                 x_title="key (attended to)", y_title="query (attending)")


rerun.view(comparison, with_trace=False)
