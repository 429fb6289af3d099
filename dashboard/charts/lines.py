"""Line and bar charts (why-scale's saturation, its one row, the block's stages): numbers from
`core` -> Altair, filling the width they are given at a fixed height, type sized by the look."""

import hashlib

import altair as alt
import numpy as np
import pandas as pd

from animations import style
from dashboard.charts import sizing


def finish(chart, title: str, height: int | None = None, **meta):
    """Title, a name for tests and exports, the look's type sizes, and the given width filled. `height` (px): the
    plot's, shrinking with a projector's window as its type does (`sizing.look_params`' lab_fit: 1 elsewhere);
    a top-level param named "height" replaces Vega-Lite's own."""
    params = sizing.look_params() + ([{"name": "height", "expr": f"{height} * lab_fit"}] if height else [])
    return chart.properties(title=sizing.title(title), usermeta=meta, autosize=sizing.AUTOSIZE,
                            params=[alt.VariableParameter(**p) for p in params]).configure_axis(
        labelFontSize=sizing.scaled(13), titleFontSize=sizing.scaled(14), labelFont=style.FONT,
        titleFont=style.FONT).configure_legend(labelFontSize=sizing.scaled(14), titleFontSize=sizing.scaled(14),
                                               labelFont=style.FONT, titleFont=style.FONT, labelLimit=0)


def saturation_chart(scaled: dict, unscaled: dict, metric: str, title: str) -> alt.Chart:
    """Entropy or largest weight against d_k, with and without ÷√d_k (numbers from core)."""
    rows = [{"d_k": d, metric: v, "scores": label}
            for data, label in ((scaled, "÷√d_k"), (unscaled, "not scaled"))
            for d, v in zip(data["d_k"], data[metric], strict=True)]
    line = alt.Chart(pd.DataFrame(rows)).mark_line(point=True).encode(
        x=alt.X("d_k:Q", scale=alt.Scale(type="log", base=2, padding=12, nice=False), title="d_k (log scale)",
                axis=alt.Axis(values=sorted(set(scaled["d_k"])))),
        y=alt.Y(f"{metric}:Q", title=title),
        color=alt.Color("scores:N", scale=alt.Scale(domain=["÷√d_k", "not scaled"], range=[style.QUERY, style.KEY]),
                        legend=alt.Legend(orient="bottom", title=None)),
        tooltip=["scores:N", "d_k:Q", alt.Tooltip(f"{metric}:Q", format=".3f")],
    ).properties(width=360, height=240)
    return finish(line, title, lab=f"saturation-{metric}")


def row_bars(weights: np.ndarray, labels, title: str, name: str, color: str = style.QUERY) -> alt.Chart:
    df = pd.DataFrame({"key": list(labels), "weight": np.asarray(weights, dtype=float)})
    bars = alt.Chart(df).mark_bar(color=color).encode(
        x=alt.X("key:N", sort=list(labels), title="key", axis=alt.Axis(labelAngle=-60 if len(labels) > 8 else 0)),
        y=alt.Y("weight:Q", scale=alt.Scale(domain=[0, 1]), title="weight"),
        tooltip=["key:N", alt.Tooltip("weight:Q", format=".3f")],
    ).properties(width=min(40 * len(labels), 400), height=220)
    return finish(bars, title, lab=name)


ROW_PX = 14  # a row of `row_bars_down`: its key's label (13 px type) legible; 48 keys fit a phone's screen


def row_bars_down(weights: np.ndarray, labels, title: str, name: str, color: str = style.QUERY) -> alt.Chart:
    """`row_bars` for a narrow screen (a phone): a row per key, ROW_PX high with its label beside it, and
    the weight across (its axis on top, under the title). However many keys, every label stays legible."""
    df = pd.DataFrame({"key": list(labels), "weight": np.asarray(weights, dtype=float)})
    bars = alt.Chart(df).mark_bar(color=color).encode(
        y=alt.Y("key:N", sort=list(labels), title="key (looked at)"),
        x=alt.X("weight:Q", scale=alt.Scale(domain=[0, 1]), title="weight", axis=alt.Axis(orient="top")),
        tooltip=["key:N", alt.Tooltip("weight:Q", format=".3f")],
    ).properties(width=240, height=alt.Step(ROW_PX))
    # Its spec (all but the numbers) is built once per template: a playing film redraws it at every step.
    template = hashlib.sha256(repr((tuple(labels), title, name, color)).encode()).hexdigest()[:16]
    return finish(bars, title, lab=name, template=f"bars-down-{template}", **sizing.embed_options(len(labels)))


def stage_norms(summary: list[dict], title: str, name: str, top: float | None = None) -> alt.Chart:
    """Mean row length of each block stage, in order (numbers from core.views.stage_summary); `top`: the y axis
    ends there, for charts drawn side by side to share one scale (else Vega picks a nice end for this one)."""
    df = pd.DataFrame({"stage": [r["stage"] for r in summary], "norm": [r["mean_norm"] for r in summary]})
    bars = alt.Chart(df).mark_bar(color=style.OUTPUT).encode(
        x=alt.X("stage:N", sort=list(df["stage"]), axis=alt.Axis(labelAngle=-30)),
        y=alt.Y("norm:Q", title="mean ‖row‖", scale=alt.Scale(domain=[0, top]) if top else alt.Undefined),
        tooltip=["stage:N", alt.Tooltip("norm:Q", format=".3f")],
    ).properties(width=380, height=240)
    return finish(bars, title, lab=name)
