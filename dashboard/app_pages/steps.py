"""One head, step by step: Q, K and V; Q·Kᵀ and the scale; mask and softmax; weights · V.

Shared by page 1 (the lesson's random weights: `one_head` is its lesson view) and the Trained heads
page (a layer of the trained model): the same charts, tooltips and export menus for any
`AttentionTrace`.

`same_charts` (the Trained heads page): the charts' elements and specs are the same for every
head (the head shows only in the numbers and in the exported files' names), so a change of head
or layer swaps the data in place instead of rebuilding the charts (checked in Chromium: the
chart elements survive a head change there, and are rebuilt on page 1). Page 1 keeps a chart
per head (its tests find each chart by the head in its spec).
"""

import math

import numpy as np
import streamlit as st

from core.trace import row_flatness
from dashboard import controls
from dashboard.app_pages import predict
from dashboard.app_pages.ui import dim_labels, first_dims
from dashboard.charts import heatmaps as charts
from dashboard.charts.draw import labelled, panels, show

STEPS = ["1. Q, K and V", "2. Q·Kᵀ, then scaled", "3. Mask, then softmax", "4. Weights · V"]


def one_head(cfg, trace):
    """Page 1's lesson view (app_pages/attention.py): the head, the step and, in projector mode, the
    step's own controls in one row; then the chosen step."""
    # One step at a time (only the chosen one is computed and drawn): legible on a projector, fast.
    slides = controls.projector()
    with controls.row():
        h = controls.head_control(trace.num_heads)
        chosen = choose(arrows=slides)
        # In the row on a projector (its own row would push the step's charts off the screen).
        predicting = controls.predict_first("softmax") if slides and chosen[2].open else None
        flat = why_flat(cfg, trace, h) if slides and chosen[2].open and predicting is not True else None
        if flat:
            with st.popover("Why so flat?"):
                st.caption(flat)
    draw_step(chosen, cfg, trace, h, predicting=predicting)


def choose(arrows: bool = False) -> list:
    """The row of steps (with ← → in projector mode: `arrows`); only the chosen one will be drawn."""
    return controls.tabs(STEPS, "step", default=STEPS[2], arrows=arrows)


def draw_step(tabs: list, cfg, trace, h: int, same_charts: bool = False, predicting: bool | None = None):
    """The chosen step; `predicting`: the "Predict first" toggle's value where the caller drew it (None:
    the step draws it)."""
    view = View(h, charts.token_labels(trace.tokens), same_charts)
    view.predicting = predicting
    for tab, step in zip(tabs, (projections, scores, softmax, output), strict=True):
        if tab.open:
            with tab:
                step(cfg, trace, view)


class View:
    """Which head, its labels, and how its charts are named."""

    def __init__(self, h: int, labels: list, same_charts: bool):
        self.h, self.labels, self.same = h, labels, same_charts

    def lab(self, name: str) -> str:
        """A matrix chart's name (in its spec)."""
        return name if self.same else f"{name}-head{self.h + 1}"

    def show(self, chart, name: str, cfg, table):
        """draw.show, the exported files named by the head; the element kept across heads when `same`."""
        show(chart, f"{name}_{self.h}", cfg, table, key=f"chart_{name}" if self.same else None)


def projections(cfg, trace, view):
    h, labels = view.h, view.labels
    if cfg.source == "trained":  # x is this layer's input, and the trained projections have biases
        before = "the embeddings" if cfg.layer == 1 else f"layer {cfg.layer - 1}'s output"
        if cfg.mask == "causal":  # GPT-2 normalises before attending (pre-LN): x is the input after LayerNorm
            before += ", after the layer's first LayerNorm"
        st.caption(f"Each word piece's vector x ({cfg.d_model} numbers: its input to layer {cfg.layer}, {before}) "
                   f"times W_Q, W_K and W_V plus their biases gives its q, k and v: per head, Q, K and V are each "
                   f"{len(labels)} × {trace.d_k} (word pieces × d_k, with d_k = {trace.d_k}).")
    else:  # hand-entered q, k and v have no token vectors x and no W matrices
        made = ("Q, K and V are the numbers entered, used as they are (no W matrices)" if cfg.source == "manual" else
                f"Each token's vector x ({cfg.d_model} numbers) times W_Q, W_K and W_V gives its q, k and v")
        st.caption(f"{made}: per head, Q, K and V are each {len(labels)} × {trace.d_k} (tokens × d_k, with d_k = "
                   f"{trace.d_k}).")
    q, k, v = (first_dims(getattr(trace, m)[h], m.upper(), dim_labels(trace.d_k))[0] for m in "qkv")
    chart = charts.qkv_heatmap(q, k, v, labels, "Q, K and V, side by side", view.lab("qkv"))
    names = [f"{m}{i + 1}" for m in "qkv" for i in range(trace.d_k)]
    view.show(chart, "qkv", cfg, labelled(np.concatenate([trace.q[h], trace.k[h], trace.v[h]], -1), labels, names))


def scores(cfg, trace, view):
    h, labels, every = view.h, view.labels, not view.same
    factor = f"÷ √{trace.d_k} = ÷ {math.sqrt(trace.d_k):.2f}" if cfg.scale else "not divided by √d_k"
    st.caption(f"Scaled = q·k × {trace.scale:.4f} ({factor}, ÷ temperature {cfg.temperature:g}).")
    left, right = panels(2, len(labels), "scores")
    with left:
        view.show(charts.scores_heatmap(trace, h, "qk", "Q·Kᵀ (raw scores)", head_in_spec=every), "scores", cfg,
                  labelled(trace.scores[h], labels, labels))
    with right:
        view.show(charts.scores_heatmap(trace, h, "scaled", "scaled scores", head_in_spec=every), "scaled", cfg,
                  labelled(trace.scaled[h], labels, labels))


def softmax(cfg, trace, view):
    h, labels, every = view.h, view.labels, not view.same
    shown = _predicted_first(cfg, h, view.predicting)
    if cfg.source == "trained" and cfg.mask == "none":  # no mask: "after the mask" would repeat step 2's scores
        st.caption("For one unpadded sentence the trained model's attention mask blocks nothing, so the softmax "
                   "reads step 2's scaled scores as they are and turns each row into weights that sum to 1.")
        if shown:
            view.show(charts.weights_heatmap(trace, h, head_in_spec=every), "weights", cfg,
                      labelled(trace.weights[h], labels, labels))
        return
    if trace.mask.all():  # the lesson's mask blocks no cell: no grey cell to look for
        st.caption("This lesson's mask blocks no cell (the Masking page shows masks that do), so each row of "
                   "scaled scores becomes a row of weights that sums to 1.")
    else:
        st.caption("Grey cells are blocked (−∞ before the softmax, weight 0 after). Every row that may see at "
                   "least one key sums to 1.")
    left, right = panels(2, len(labels), "softmax")
    with left:
        view.show(charts.scores_heatmap(trace, h, "scaled", "after the mask", show_mask=True, head_in_spec=every),
                  "masked", cfg, labelled(trace.masked[h], labels, labels))
    with right:
        if shown:
            view.show(charts.weights_heatmap(trace, h, head_in_spec=every), "weights", cfg,
                      labelled(trace.weights[h], labels, labels))
        else:
            st.info("The weights after the softmax stay hidden until you commit to a prediction.")
    if trace.blocked_rows.any():
        st.info("A query row has no key left to attend to: its weights and output are 0 (see the Masking page).")
    note = why_flat(cfg, trace, h) if shown and not controls.projector() else None
    if note:  # on a projector the step's controls row offers it (one_head): this screen is full
        st.caption(note)


FLAT = 0.5  # a head whose rows give their largest key less than this on average gets the note below


def why_flat(cfg, trace, h: int) -> str | None:
    """Why random weights give soft rows, with this head's numbers, so a flat row is not read as a
    finding (a lecturer's complaint: a video celebrated 17 % on a row of 12-17 %); None for sharp rows."""
    flat = row_flatness(trace, h) if cfg.source != "trained" else None
    if flat is None or flat["top"] >= FLAT:
        return None
    if np.isclose(flat["flat"], 1 / flat["keys"]):  # every row sees the same number of keys
        baseline = f"a perfectly flat row over its {flat['keys']:g} keys gives each {flat['flat']:.2f}"
    else:
        baseline = (f"perfectly flat rows would give their keys {flat['flat']:.2f} each on average (a row over "
                    "k keys gives each 1/k)")
    span = flat["span"]  # hand-entered q and k can make it 2e-6, which one decimal would call 0.0
    span = f"{span:.1f}" if span >= 0.05 or span == 0 else f"{span:.0e}".replace("e-0", "e−").replace("e-", "e−")
    if cfg.source == "manual":  # no W matrices: the student's own q and k
        cause = ("These q and k are entered by hand, not made by W matrices: their dot products are that close "
                 "together. A temperature below 1 divides the scores by it and sharpens the rows.")
    else:
        cause = ("The weights are random: W_Q and W_K are drawn so that the scaled scores spread about 1, which ÷√d_k "
                 "keeps. A trained head learns wider scores (Trained heads page); a temperature below 1 divides the "
                 "scores by it and sharpens the rows (the preset sharper-rows).")
    return (f"Why these rows are close to flat: a row's scaled scores span {span} here on average "
            f"(largest minus smallest), and softmax makes a row's largest weight e^span times its smallest. So "
            f"a row's largest weight is {flat['top']:.2f} on average, where {baseline}. {cause}")


def _predicted_first(cfg, h: int, on: bool | None = None) -> bool:
    """With "Predict first" on, a question about this head; False while the weights must stay hidden.
    The trained model's settings are its own, so its only question is which key a query picks."""
    if not (controls.predict_first("softmax") if on is None else on):
        return True
    kinds = ("focus",) if cfg.source == "trained" else ("focus", "change")
    question = predict.lesson_question("softmax", cfg, kinds, head=h)
    return question is None or predict.hide_until_committed(question, "softmax")


def output(cfg, trace, view):
    h, labels = view.h, view.labels
    st.caption("Row i of the output is row i of the weights times V: Σⱼ wᵢⱼ vⱼ, a weighted average of the "
               "value rows (0 for a blocked row).")
    dims = dim_labels(trace.d_k)
    shown, cols = first_dims(trace.heads[h], "The output", dims)
    chart = charts.matrix_heatmap(shown, labels, cols, "weights · V", view.lab("output"))
    view.show(chart, "head_output", cfg, labelled(trace.heads[h], labels, dims))
