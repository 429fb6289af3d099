"""Pure functions: numbers from `core` -> Altair charts. Nothing here computes attention.

Every chart carries `usermeta={"lab": name}` so tests (and exports) can tell charts apart,
and its data as a DataFrame, which Streamlit ships to the browser as Arrow.
"""

import hashlib
from functools import lru_cache

import altair as alt
import numpy as np
import pandas as pd

from animations import style

NUMBERS_UP_TO = 12  # print each cell's number when the sequence is at most this long
FONT = style.FONT


def token_labels(tokens) -> list[str]:
    """ "1 the", "2 cat", ... "5 the": repeated words stay separate rows and columns."""
    return [f"{i + 1} {t}" for i, t in enumerate(tokens)]


def cell_px(n: int) -> int:
    """Cell size: big enough to print a number when short, 64 cells still fit a screen."""
    if n <= 4:
        return 56
    if n <= NUMBERS_UP_TO:
        return 42
    return max(10, 640 // n)


def heatmap_px(n: int) -> int:
    """About how wide an n×n heatmap is drawn, axis labels and legend included."""
    return n * cell_px(n) + 170


def _axis(title: str, n: int, across: bool = True) -> alt.Axis:
    """Labels that stay legible up to 64 tokens; only the bottom axis turns them."""
    size = 14 if n <= 16 else (11 if n <= 32 else 9)
    angle = 0 if n <= 8 or not across else -60
    return alt.Axis(title=title, labelFontSize=size, labelLimit=120, labelAngle=angle,
                    titleFontSize=14, labelFont=FONT, titleFont=FONT)


def _finish(chart, title: str, **meta):
    """Title, a name for tests and exports, and sizes in pixels as given (Streamlit would
    otherwise fit the whole chart, axes and legend included, into the plot's width)."""
    return chart.properties(title=title, usermeta=meta, autosize=alt.AutoSizeParams(type="pad"))


# -- tables: one row per cell -----------------------------------------------------------------
def attention_cells(trace, head: int) -> pd.DataFrame:
    """One head's T×T cells with every intermediate a tooltip shows."""
    labels = token_labels(trace.tokens)
    T = len(labels)
    qi, ki = np.divmod(np.arange(T * T), T)
    masked = ~trace.mask.reshape(-1)
    return pd.DataFrame({
        "query": _labels(labels)[qi], "key": _labels(labels)[ki], "row": qi, "col": ki,
        "qk": trace.scores[head].reshape(-1), "scaled": trace.scaled[head].reshape(-1),
        "masked": masked, "masked_text": np.where(masked, "yes", "no"),
        "weight": trace.weights[head].reshape(-1),
    })


def _labels(labels) -> np.ndarray:
    """Labels as Python strings: numpy's fixed-width strings would drop a trailing NUL."""
    return np.array(list(labels), dtype=object)


def matrix_cells(values: np.ndarray, row_labels, col_labels) -> pd.DataFrame:
    rows, cols = values.shape
    ri, ci = np.divmod(np.arange(rows * cols), cols)
    return pd.DataFrame({"row_label": _labels(row_labels)[ri], "col_label": _labels(col_labels)[ci],
                         "row": ri, "col": ci, "value": values.reshape(-1).astype(float)})


# -- heatmaps ---------------------------------------------------------------------------------
# Layers carry no data of their own (the table sits once on top) and conditions are plain
# dicts: Altair then neither hashes the table per layer nor validates each condition. Specs
# hold nothing computed from the numbers (diverging scales centre on 0 by `domainMid`), so
# when a slider moves the browser swaps the data in place instead of rebuilding the chart.
def _tooltip():
    return [alt.Tooltip("query:N", title="query"), alt.Tooltip("key:N", title="key"),
            alt.Tooltip("qk:Q", title="q·k", format=".3f"), alt.Tooltip("scaled:Q", title="scaled", format=".3f"),
            alt.Tooltip("masked_text:N", title="masked"), alt.Tooltip("weight:Q", title="weight", format=".3f")]


def _grid(labels, x_title="key (attended to)", y_title="query (attending)"):
    n = len(labels)
    return alt.Chart().encode(
        x=alt.X("key:N", sort=labels, axis=_axis(x_title, n)),
        y=alt.Y("query:N", sort=labels, axis=_axis(y_title, n, across=False)),
        tooltip=_tooltip(),
    )


def _layered(layers, width: int, height: int, title: str, **meta) -> alt.LayerChart:
    """One constructor call, no data: each `.properties()` would deep-copy every layer again."""
    return alt.LayerChart(layer=layers, width=width, height=height, title=title, usermeta=meta,
                          autosize=alt.AutoSizeParams(type="pad"))


def with_data(template: alt.TopLevelMixin, df: pd.DataFrame) -> alt.TopLevelMixin:
    """A cached, data-free template plus this rerun's table (a shallow copy: cheap)."""
    chart = template.copy(deep=False)
    chart.data = df
    return chart


def _numbers(base, field: str, fmt: str, dark_when: str):
    return base.mark_text(fontSize=13, font=FONT).encode(
        text=alt.Text(f"{field}:Q", format=fmt),
        color=alt.ColorValue(style.TEXT_LIGHT, condition={"test": dark_when, "value": style.TEXT_DARK}),
    )


def _weight_color(**legend) -> alt.Color:
    return alt.Color("weight:Q", scale=alt.Scale(scheme=style.WEIGHT_SCHEME, domain=[0, 1]),
                     legend=alt.Legend(title="weight", **legend),
                     condition={"test": "datum.masked", "value": style.MASKED})


# Templates depend on labels and options only, so they are built once (lru_cache) and every
# rerun just attaches its numbers; `usermeta["template"]` names the template for ui.draw.
@lru_cache(maxsize=256)
def _weights_template(labels: tuple, title: str, fmt: str, head: int) -> alt.LayerChart:
    n, px = len(labels), cell_px(len(labels))
    base = _grid(list(labels))
    layers = [base.mark_rect().encode(color=_weight_color())]
    if n <= NUMBERS_UP_TO:
        layers.append(_numbers(base, "weight", fmt, "datum.weight > 0.6"))
    key = ("weights", labels, title, fmt, head)
    return _layered(layers, px * n, px * n, title, lab="weights", head=head, template=_hash(key))


def weights_heatmap(trace, head: int, title: str = "softmax weights", fmt: str = ".2f",
                    head_in_spec: bool = True) -> alt.Chart:
    """Weights on the sequential 0..1 scale; blocked cells grey. With head_in_spec=False the spec is
    the same for every head (usermeta head None), so a change of head swaps the data in place."""
    template = _weights_template(tuple(token_labels(trace.tokens)), title, fmt, head if head_in_spec else None)
    return with_data(template, attention_cells(trace, head))


@lru_cache(maxsize=256)
def _scores_template(labels: tuple, field: str, title: str, show_mask: bool, head: int) -> alt.LayerChart:
    n, px = len(labels), cell_px(len(labels))
    base = _grid(list(labels))
    scale = alt.Scale(scheme=style.SCORE_SCHEME, domainMid=0)
    blocked = {"condition": {"test": "datum.masked", "value": style.MASKED}} if show_mask else {}
    color = alt.Color(f"{field}:Q", scale=scale, legend=alt.Legend(title="q·k" if field == "qk" else "score"),
                      **blocked)
    layers = [base.mark_rect().encode(color=color)]
    if n <= NUMBERS_UP_TO:
        minus_inf = {"condition": {"test": "datum.masked", "value": "−∞"}} if show_mask else {}
        layers.append(base.mark_text(fontSize=13, font=FONT).encode(
            text=alt.Text(f"{field}:Q", format=".2f", **minus_inf), color=alt.value(style.TEXT_DARK)))
    key = ("scores", labels, field, title, show_mask, head)
    return _layered(layers, px * n, px * n, title, lab="masked" if show_mask else field, head=head,
                    template=_hash(key))


def scores_heatmap(trace, head: int, field: str = "qk", title: str = "", show_mask: bool = False,
                   head_in_spec: bool = True) -> alt.Chart:
    """Raw (q·k) or scaled scores on the diverging scale; with show_mask, blocked cells grey (−∞).
    head_in_spec: as in weights_heatmap."""
    template = _scores_template(tuple(token_labels(trace.tokens)), field, title or field, show_mask,
                                head if head_in_spec else None)
    return with_data(template, attention_cells(trace, head))


@lru_cache(maxsize=256)
def _matrix_template(row_labels: tuple, col_labels: tuple, title: str, name: str, scheme: str, x_title: str,
                     y_title: str, domain, max_width: int) -> alt.LayerChart:
    rows, cols = len(row_labels), len(col_labels)
    px = cell_px(max(rows, cols))
    extra = {"domainMid": 0} if scheme == style.SCORE_SCHEME else {}
    scale = alt.Scale(scheme=scheme, **({"domain": list(domain)} if domain is not None else {}), **extra)
    base = alt.Chart().encode(
        x=alt.X("col_label:N", sort=list(col_labels), axis=_axis(x_title, cols)),
        y=alt.Y("row_label:N", sort=list(row_labels), axis=_axis(y_title, rows, across=False)),
        tooltip=[alt.Tooltip("row_label:N", title=y_title), alt.Tooltip("col_label:N", title=x_title),
                 alt.Tooltip("value:Q", format=".3f")],
    )
    layers = [base.mark_rect().encode(color=alt.Color("value:Q", scale=scale, legend=alt.Legend(title="value")))]
    if max(rows, cols) <= NUMBERS_UP_TO:
        dark = "datum.value > 0.6" if scheme == style.WEIGHT_SCHEME else "true"
        layers.append(_numbers(base, "value", ".2f", dark))
    key = ("matrix", row_labels, col_labels, title, name, scheme, x_title, y_title, domain, max_width)
    return _layered(layers, min(px * cols, max_width), px * rows, title, lab=name, template=_hash(key))


def matrix_heatmap(values: np.ndarray, row_labels, col_labels, title: str, name: str,
                   scheme: str = style.SCORE_SCHEME, x_title: str = "dimension", y_title: str = "token",
                   domain=None, max_width: int = 720) -> alt.Chart:
    """Any (rows, cols) matrix: Q, K, V, head outputs, W_O, positional tables, block stages."""
    template = _matrix_template(tuple(row_labels), tuple(col_labels), title, name, scheme, x_title, y_title,
                                None if domain is None else tuple(domain), max_width)
    return with_data(template, matrix_cells(np.asarray(values), row_labels, col_labels))


def _hash(key: tuple) -> str:
    return hashlib.sha256(repr(key).encode("utf-8")).hexdigest()[:16]


def heads_grid(trace, columns: int = 4) -> alt.Chart:
    """Every head's weights as small multiples, the same 0..1 scale for all."""
    labels = token_labels(trace.tokens)
    frames = [attention_cells(trace, h).assign(head=f"head {h + 1}") for h in range(trace.num_heads)]
    df = pd.concat(frames, ignore_index=True)
    n = len(labels)
    columns = min(columns, trace.num_heads)
    px = max(3, min(cell_px(n), (960 // columns - 60) // n))
    show = n <= 24
    grid = alt.Chart(df).mark_rect().encode(
        x=alt.X("key:N", sort=labels, axis=alt.Axis(labels=show, ticks=show, title="key", labelAngle=-60)),
        y=alt.Y("query:N", sort=labels, axis=alt.Axis(labels=show, ticks=show, title="query", labelAngle=0)),
        color=_weight_color(), tooltip=[alt.Tooltip("head:N")] + _tooltip(),
    ).properties(width=px * n, height=px * n).facet(
        facet=alt.Facet("head:N", sort=[f"head {h + 1}" for h in range(trace.num_heads)], title=None),
        columns=columns,
    )
    return _finish(grid, "", lab="heads")


# -- line and bar charts ----------------------------------------------------------------------
def saturation_chart(scaled: dict, unscaled: dict, metric: str, title: str) -> alt.Chart:
    """Entropy or largest weight against d_k, with and without ÷√d_k (numbers from core)."""
    rows = [{"d_k": d, metric: v, "scores": label}
            for data, label in ((scaled, "÷√d_k"), (unscaled, "not scaled"))
            for d, v in zip(data["d_k"], data[metric], strict=True)]
    line = alt.Chart(pd.DataFrame(rows)).mark_line(point=True).encode(
        x=alt.X("d_k:Q", scale=alt.Scale(type="log", base=2), title="d_k (log scale)"),
        y=alt.Y(f"{metric}:Q", title=title),
        color=alt.Color("scores:N", scale=alt.Scale(domain=["÷√d_k", "not scaled"], range=[style.QUERY, style.KEY]),
                        legend=alt.Legend(orient="bottom", title=None, labelFontSize=13)),
        tooltip=["scores:N", "d_k:Q", alt.Tooltip(f"{metric}:Q", format=".3f")],
    ).properties(width=360, height=240)
    return _finish(line, title, lab=f"saturation-{metric}")


def row_bars(weights: np.ndarray, labels, title: str, name: str, color: str = style.QUERY) -> alt.Chart:
    df = pd.DataFrame({"key": list(labels), "weight": np.asarray(weights, dtype=float)})
    bars = alt.Chart(df).mark_bar(color=color).encode(
        x=alt.X("key:N", sort=list(labels), title="key", axis=alt.Axis(labelAngle=-60 if len(labels) > 8 else 0)),
        y=alt.Y("weight:Q", scale=alt.Scale(domain=[0, 1]), title="weight"),
        tooltip=["key:N", alt.Tooltip("weight:Q", format=".3f")],
    ).properties(width=min(40 * len(labels), 400), height=220)
    return _finish(bars, title, lab=name)


def stage_norms(summary: list[dict], title: str, name: str) -> alt.Chart:
    """Mean row length of each block stage, in order (numbers from core.views.stage_summary)."""
    df = pd.DataFrame({"stage": [r["stage"] for r in summary], "norm": [r["mean_norm"] for r in summary]})
    bars = alt.Chart(df).mark_bar(color=style.OUTPUT).encode(
        x=alt.X("stage:N", sort=list(df["stage"]), axis=alt.Axis(labelAngle=-30)),
        y=alt.Y("norm:Q", title="mean ‖row‖"),
        tooltip=["stage:N", alt.Tooltip("norm:Q", format=".3f")],
    ).properties(width=380, height=240)
    return _finish(bars, title, lab=name)
