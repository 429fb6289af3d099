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
from core.trace import token_labels
from dashboard.charts import cells, numbers, sizing
from dashboard.charts.lines import row_bars, saturation_chart, stage_norms  # noqa: F401 (pages read them here)

NUMBERS_UP_TO = 12  # print each cell's number when the sequence is at most this long
FONT = style.FONT


def cell_px(n: int) -> int:
    """Cell size of an exported chart (the browser sizes its own: sizing.py)."""
    if n <= 4:
        return 56
    if n <= NUMBERS_UP_TO:
        return 42
    return max(10, 640 // n)


def _label_font(n: int) -> int:
    """Axis labels stay legible up to 64 of them."""
    return 14 if n <= 16 else (11 if n <= 32 else 9)


def _axis(title: str, labels, along_x: bool = True) -> alt.Axis:
    """Labels that stay legible up to 64 tokens; the key labels turn only when their cells are
    too narrow for them. Every size grows with the look (sizing.scaled)."""
    font = f"lab_{'x' if along_x else 'y'}_font"  # by the number of labels: _layered
    # on a projector up to 16 labels are as large as its smallest text (sizing.PROJECTED_MIN_PX at 1080p)
    size = {"expr": f"max({font} * lab_type * lab_fit, lab_fit_height > 0 && {font} >= {_label_font(16)} ? "
                    f"{sizing.PROJECTED_MIN_PX} * lab_fit : 0)"}
    turn = ({"labelAngle": sizing.label_angle(size["expr"]), "labelAlign": sizing.label_align()} if along_x
            else {"labelAngle": 0})
    return alt.Axis(title=title, labelFontSize=size, labelLimit=sizing.scaled(120), titleFontSize=sizing.scaled(14),
                    labelFont=FONT, titleFont=FONT, **turn)


# -- heatmaps ---------------------------------------------------------------------------------
# Layers carry no data of their own (the table sits once on top) and conditions are plain
# dicts: Altair then neither hashes the table per layer nor validates each condition. Specs
# hold nothing computed from the numbers (diverging scales centre on 0 by `domainMid`), so
# when a slider moves the browser swaps the data in place instead of rebuilding the chart.
# Sizes are Vega signals (sizing.py): the chart fills its container with square cells.
_DESCRIPTION = alt.Description("lab_description:N")  # written once (cells.described), not by Vega per cell


def _tooltip():
    return [alt.Tooltip(f"{field}:N", title=title) for field, title in cells.TOOLTIP]


def _grid(labels, x_title="key (attended to)", y_title="query (attending)", x="key", y="query", tooltip=None,
          x_domain=None):
    """The shared x/y of a heatmap's layers: `x_domain` may hold blank spacer columns.

    The order of rows and columns is the scales' domain, not a `sort` list: Vega-Lite turns a sort
    list into a chain of T comparisons per cell and axis, evaluated by Vega's expression
    interpreter on every redraw (at 64 tokens, most of a slider move's script time)."""
    cols = list(x_domain or labels)
    return alt.Chart().encode(
        x=alt.X(f"{x}:N", scale={"domain": cols, **sizing.plot_width()}, axis=_axis(x_title, cols)),
        y=alt.Y(f"{y}:N", scale={"domain": list(labels)}, axis=_axis(y_title, labels, along_x=False)),
        tooltip=tooltip or _tooltip(),
        key=alt.Key("cell:Q"),  # a moved slider updates each cell's marks in place (no new SVG nodes)
    )


def _layered(layers, rows: int, cols: int, title: str, transform=(), x_labels=(), **meta) -> alt.LayerChart:
    """One constructor call, no data: each `.properties()` would deep-copy every layer again."""
    longest = max((len(str(label)) for label in x_labels), default=1)
    label_px = sizing.label_px(longest, _label_font(cols))
    meta.update(sizing.embed_options(rows * cols))
    return alt.LayerChart(layer=layers, width=max(cols * cell_px(max(rows, cols)) + 170, 300),
                          height=rows * cell_px(max(rows, cols)), title=sizing.title(title), usermeta=meta,
                          autosize=sizing.AUTOSIZE, transform=list(transform), config=sizing.config(rows * cols),
                          params=[alt.VariableParameter(**p) for p in sizing.params(rows, cols, label_px)] +
                          [alt.VariableParameter(name=f"lab_{axis}_font", value=_label_font(n))
                           for axis, n in (("x", cols), ("y", rows))])


def with_data(template: alt.TopLevelMixin, df: pd.DataFrame) -> alt.TopLevelMixin:
    """A cached, data-free template plus this rerun's table.

    Altair's own `copy(deep=False)` rebuilds the chart, for every heatmap of every slider move.
    Nothing ever changes a template's layers, so a new chart object that shares them and has its
    own top-level settings (Altair keeps those in `_kwds`) is enough, and thousands of times cheaper."""
    chart = object.__new__(type(template))
    chart.__dict__.update(template.__dict__, _kwds=dict(template._kwds))
    chart.data = df
    return chart


def _numbers(base, background: str, cells: int) -> list:
    """The cell numbers as a layer (none when no screen could fit them), as the table prints them
    (`cells.table`); `background` is a Vega expression: the colour of the number's cell."""
    if cells > sizing.MAX_NUMBER_CELLS:
        return []
    # aria=False: the cell's rectangle already tells a screen reader its numbers (its description
    # lists every field); a second description per number would say it all again, and each one
    # is an interpreted expression Vega evaluates on every redraw.
    # No tooltip of its own: the page's CSS lets the pointer through a number to its cell (display.page_css),
    # whose tooltip it shows, and Vega builds no second tooltip per cell on every redraw.
    layer = base.mark_text(font=FONT, aria=False).encode(tooltip=alt.value(None), **sizing.number_encoding(background))
    layer.transform = sizing.number_transforms()
    return [layer]


def _shade_legend(title: str) -> alt.Legend:
    return alt.Legend(title=title, orient="bottom", labelFontSize=sizing.scaled(13), titleFontSize=sizing.scaled(13),
                      gradientLength={"expr": "clamp(lab_cell * 4, 120, 320) * lab_type * lab_fit"},
                      **sizing.by_row_legend())


def _weight_color(title: str = "weight") -> alt.Color:
    return alt.Color("lab_shade:Q", scale=alt.Scale(scheme=style.WEIGHT_SCHEME, domain=[0, 1]),
                     legend=_shade_legend(title), condition={"test": "datum.masked", "value": style.MASKED})


def _blocked_or(colour: str) -> str:
    return f"datum.masked ? {sizing.js(style.MASKED)} : {colour}"


# Templates depend on labels and options only, so they are built once (lru_cache) and every
# rerun just attaches its numbers; `usermeta["template"]` names the template for draw.draw.
@lru_cache(maxsize=256)
def _weights_template(labels: tuple, title: str, head: int) -> alt.LayerChart:
    n = len(labels)
    base = _grid(list(labels))
    layers = [base.mark_rect().encode(color=_weight_color(), description=_DESCRIPTION),
              *_numbers(base, _blocked_or("scale('color', datum.lab_shade)"), n * n)]
    key = ("weights", labels, title, head)
    transform = sizing.by_row_transforms("weight", "query")
    return _layered(layers, n, n, title, transform, labels, lab="weights", head=head, template=_hash(key))


def weights_heatmap(trace, head: int, title: str = "softmax weights", fmt: str = ".2f",
                    head_in_spec: bool = True) -> alt.Chart:
    """Weights on the sequential scale (0..1, or 0..each row's largest: the look's choice); blocked
    cells grey. With head_in_spec=False the spec is the same for every head (usermeta head None),
    so a change of head swaps the data in place."""
    template = _weights_template(tuple(token_labels(trace.tokens)), title, head if head_in_spec else None)
    digits = int(fmt.removeprefix(".").removesuffix("f"))  # ".2f", ".3f": d3's fixed-point formats
    columns = cells.attention_columns(trace, head)
    return with_data(template, cells.table(columns, lambda: numbers.fixed(trace.weights[head], digits)))


# A diverging scale's domain always holds its middle, 0 (Vega-Lite asks domainMid to lie inside the
# domain): a one-token lesson's single score, or scores all of one sign, get their own side's colours.
DIVERGING_DOMAIN = {"unionWith": [0]}


def _value_legend(title: str) -> alt.Legend:
    return alt.Legend(title=title, orient="bottom", labelFontSize=sizing.scaled(13), titleFontSize=sizing.scaled(13),
                      gradientLength={"expr": "clamp(lab_cell * 4, 120, 320) * lab_type * lab_fit"},
                      **numbers.legend_labels())


def _diverging(field: str, title: str) -> alt.Color:
    return alt.Color(f"{field}:Q", scale=alt.Scale(scheme=style.SCORE_SCHEME, domain=DIVERGING_DOMAIN, domainMid=0),
                     legend=_value_legend(title))


@lru_cache(maxsize=256)
def _scores_template(labels: tuple, field: str, title: str, show_mask: bool, head: int) -> alt.LayerChart:
    n = len(labels)
    base = _grid(list(labels))
    color = _diverging(field, "q·k" if field == "qk" else "score").to_dict()
    if show_mask:
        color["condition"] = {"test": "datum.masked", "value": style.MASKED}
    cell = f"scale('color', datum.{field})"
    layers = [base.mark_rect().encode(color=color, description=_DESCRIPTION),
              *_numbers(base, _blocked_or(cell) if show_mask else cell, n * n)]
    key = ("scores", labels, field, title, show_mask, head)
    return _layered(layers, n, n, title, x_labels=labels,
                    lab="masked" if show_mask else field, head=head, template=_hash(key))


def scores_heatmap(trace, head: int, field: str = "qk", title: str = "", show_mask: bool = False,
                   head_in_spec: bool = True) -> alt.Chart:
    """Raw (q·k) or scaled scores on the diverging scale; with show_mask, blocked cells grey (−∞).
    head_in_spec: as in weights_heatmap."""
    template = _scores_template(tuple(token_labels(trace.tokens)), field, title or field, show_mask,
                                head if head_in_spec else None)
    columns = cells.attention_columns(trace, head)
    blocked = (columns["masked"] & show_mask).tolist()  # with show_mask, a blocked cell prints −∞
    return with_data(template, cells.table(columns, lambda: [
        "−∞" if b else text for b, text in zip(blocked, numbers.printed(columns[field]), strict=True)]))


@lru_cache(maxsize=256)
def _matrix_template(row_labels: tuple, col_labels: tuple, title: str, name: str, scheme: str, x_title: str,
                     y_title: str, domain, x_domain) -> alt.LayerChart:
    rows, cols = len(row_labels), len(x_domain or col_labels)
    rows_sum_to_one = scheme == style.WEIGHT_SCHEME and domain == (0, 1)
    tooltip = [alt.Tooltip("row_label:N", title=y_title), alt.Tooltip("col_label:N", title=x_title),
               alt.Tooltip("lab_value_tip:N", title="value")]
    base = _grid(list(row_labels), x_title, y_title, x="col_label", y="row_label", tooltip=tooltip,
                 x_domain=list(x_domain or col_labels))
    if rows_sum_to_one:
        color, shade = _weight_color("value"), "lab_shade"
    else:
        diverging = scheme == style.SCORE_SCHEME
        scale = alt.Scale(scheme=scheme, domain=list(domain) if domain is not None else
                          DIVERGING_DOMAIN if diverging else alt.Undefined, **({"domainMid": 0} if diverging else {}))
        color, shade = alt.Color("value:Q", scale=scale, legend=_value_legend("value")), "value"
    layers = [base.mark_rect().encode(color=color, description=_DESCRIPTION),
              *_numbers(base, f"scale('color', datum.{shade})", rows * cols)]
    transform = sizing.by_row_transforms("value", "row_label") if rows_sum_to_one else []
    key = ("matrix", row_labels, col_labels, title, name, scheme, x_title, y_title, domain, x_domain)
    return _layered(layers, rows, cols, title, transform, x_domain or col_labels, lab=name, template=_hash(key))


def matrix_heatmap(values: np.ndarray, row_labels, col_labels, title: str, name: str,
                   scheme: str = style.SCORE_SCHEME, x_title: str = "dimension", y_title: str = "token",
                   domain=None, x_domain=None) -> alt.Chart:
    """Any (rows, cols) matrix: Q, K, V, head outputs, W_O, positional tables, block stages.
    `x_domain`: the columns in order, with blank labels where a gap should stand."""
    as_key = lambda seq: None if seq is None else tuple(seq)  # lru_cache needs hashable arguments
    template = _matrix_template(tuple(row_labels), tuple(col_labels), title, name, scheme, x_title, y_title,
                                as_key(domain), as_key(x_domain))
    values = np.asarray(values)
    columns = cells.matrix_columns(values, row_labels, col_labels, y_title, x_title)
    return with_data(template, cells.table(columns, lambda: numbers.printed(values)))


def qkv_heatmap(q: np.ndarray, k: np.ndarray, v: np.ndarray, row_labels, title: str, name: str) -> alt.Chart:
    """Q, K and V side by side in one chart (one colour scale, one legend): columns q1…, k1…, v1…."""
    d = q.shape[-1]
    cols = [f"{m}{i + 1}" for m in "qkv" for i in range(d)]
    spaced = cols[:d] + [" "] + cols[d:2 * d] + ["  "] + cols[2 * d:]  # a blank column between matrices
    return matrix_heatmap(np.concatenate([q, k, v], axis=-1), row_labels, cols, title, name,
                          x_title="dimension of q, k and v", x_domain=spaced)


def _hash(key: tuple) -> str:
    return hashlib.sha256(repr(key).encode("utf-8")).hexdigest()[:16]
