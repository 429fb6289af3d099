"""The "model view": every head of every layer as a thumbnail of its weights, in one chart.

Pure: weights (L, H, T, T) from core -> one Altair chart, a row of thumbnails per layer and a
column per head, on the same 0..1 colour scale as every weights heatmap. A click on a thumbnail
selects its (layer, head) (the selection parameter `pick`); heads outside a pattern filter are
faded. The template holds nothing computed from the numbers, so it is built once per size.
On a phone (`phone_view`) the same chart turned a quarter: a column per layer and a row per head, so
that MiniLM's thumbnails are tap-sized across a phone's 358 px.

One mark places every cell itself (x = its head's offset + its column), rather than a facet of
72 small charts: Vega builds one dataflow instead of 72. Measured in Chromium (CDP
Performance.getMetrics, 3 opens each, a busy 2-core machine), the renderer's script time on
opening the page went from 2.3-2.7 s to 1.6-2.2 s.
"""

from functools import lru_cache

import altair as alt
import numpy as np
import pandas as pd

from animations import style
from dashboard.charts import sizing
from dashboard.charts.heatmaps import FONT, with_data

PICK = "pick"  # the selection parameter: {"layer": L, "head": H} of the clicked thumbnail
FADED = 0.12  # opacity of a head the pattern filter leaves out
GAP_PX = 6  # between thumbnails
PHONE_PX, PHONE_GAP_PX = 48, 4  # a phone's thumbnail and gap, before the chart fills the width it is given
# What picks a thumbnail, in either grid (a phone, a touch laptop, a class's touch screen). Vega's canvas
# knows which item a click is on from the last pointermove, and a tap sends none (vega/vega#4173): a tap
# is a touchend with no touchmove since its touchstart (a scroll has one), on the item the touch began
# on; a mouse's or a pen's release picks the item under the pointer.
TAP = "[touchstart, touchmove] > touchend, pointerup[event.pointerType !== 'touch']"


def thumbnail_px(num_heads: int, width: int = 800) -> int:
    """A thumbnail's side: the heads side by side, with the layers' names, fit `width` px (the main area
    beside the sidebar on a 1280 px projector is about 820 px)."""
    return max(36, min(72, (width - 90) // num_heads - GAP_PX))


def cells(weights: np.ndarray, highlight: np.ndarray) -> pd.DataFrame:
    """One row per cell of every head: layer and head (from 1), query row and key column (from 0),
    the weight, and whether the head is highlighted."""
    layer, head, row, col = np.indices(weights.shape).reshape(4, -1)
    return pd.DataFrame({
        "layer": (layer + 1).astype(np.int8), "head": (head + 1).astype(np.int8),
        "row": row.astype(np.int16), "col": col.astype(np.int16),
        "weight": weights.reshape(-1).astype(np.float32),
        "highlight": np.asarray(highlight, dtype=bool)[layer, head],
    })


def _axis(step: float, size: int, count: int, what: str, orient: str, named: bool = True) -> alt.Axis:
    """Names at the thumbnails' centres ("head 1" ... on top, "layer 1" ... on the left), nothing else;
    not `named` (a phone's narrow grid): numbers under one title, "layer" or "head"."""
    centres = [i * step + size / 2 for i in range(count)]
    words = f"'{what} ' + " if named else ""
    return alt.Axis(values=centres, labelExpr=f"{words}(floor(datum.value / {step}) + 1)", orient=orient,
                    title=None if named else what, ticks=False, domain=False, grid=False, labelFont=FONT,
                    labelFontSize=sizing.scaled(13), labelAngle=0, labelPadding=4,
                    **({} if named else {"titleFont": FONT, "titleFontSize": sizing.scaled(13), "titlePadding": 4}))


@lru_cache(maxsize=64)
def _template(layers: int, heads: int, T: int, px: int, phone: bool = False) -> alt.Chart:
    """Heads across and layers down; `phone`: layers across and heads down, numbered under a title each."""
    gap = PHONE_GAP_PX if phone else GAP_PX
    unit = px / T  # pixels per cell
    step = T + gap / unit  # one thumbnail and its gap, in cells
    across, down = ("layer", "head") if phone else ("head", "layer")
    columns, rows = (layers, heads) if phone else (heads, layers)
    scale = alt.Scale(scheme=style.WEIGHT_SCHEME, domain=[0, 1])
    pick = alt.selection_point(name=PICK, fields=["layer", "head"], on=TAP, clear=False)
    # Cells narrower than a few pixels leave anti-aliased seams between them (a moiré over long
    # sentences); a hairline stroke of the cell's own colour closes them.
    seams = {"strokeWidth": 0.6, "stroke": {"expr": "scale('color', datum.weight)"}} if unit < 2.5 else {}
    x_end, y_end = columns * step - (step - T), rows * step - (step - T)
    chart = alt.Chart().transform_calculate(
        x=f"(datum.{across} - 1) * {step} + datum.col", y=f"(datum.{down} - 1) * {step} + datum.row",
        x2="datum.x + 1", y2="datum.y + 1", query="datum.row + 1", key="datum.col + 1",
    ).mark_rect(**seams).encode(
        x=alt.X("x:Q", scale=alt.Scale(domain=[0, x_end], nice=False, zero=False),
                axis=_axis(step, T, columns, across, "top", named=not phone)),
        x2="x2:Q",
        y=alt.Y("y:Q", scale=alt.Scale(domain=[0, y_end], nice=False, zero=False, reverse=True),
                axis=None if rows == 1 and not phone else _axis(step, T, rows, down, "left", named=not phone)),
        y2="y2:Q",
        color=alt.Color("weight:Q", scale=scale,
                        legend=alt.Legend(title="weight", orient="top", direction="horizontal",
                                          labelFontSize=sizing.scaled(13), titleFontSize=sizing.scaled(13),
                                          gradientLength={"expr": "200 * lab_type * lab_fit"})),
        opacity=alt.Opacity("highlight:N", scale=alt.Scale(domain=[True, False], range=[1, FADED]), legend=None),
        tooltip=[alt.Tooltip("layer:O"), alt.Tooltip("head:O"), alt.Tooltip("query:O", title="query piece"),
                 alt.Tooltip("key:O", title="key piece"), alt.Tooltip("weight:Q", format=".3f")],
    ).add_params(pick)
    # The grid fills the width it is given (draw.draw stretches it; autosize fits axes and legend in)
    # and keeps its thumbnails square: a top-level `height` signal follows the plot's width.
    keep_square = alt.param(name="height", expr=f"width * {y_end / x_end:.6f}")
    name = f"model-view-{layers}-{heads}-{T}-{px}" + ("-phone" if phone else "")
    look = [alt.param(**p) for p in sizing.look_params()]  # its labels grow with the look (draw.draw sets it)
    return chart.properties(width=round(x_end * unit), height=round(y_end * unit), view=alt.ViewConfig(stroke=None),
                            usermeta={"lab": "model-view", "template": name,
                                      **sizing.embed_options(layers * heads * T * T)},
                            autosize=alt.AutoSizeParams(type="fit-x", contains="padding")
                            ).add_params(keep_square, *look)


def model_view(weights: np.ndarray, highlight: np.ndarray) -> alt.Chart:
    """Every head's weights (L, H, T, T) as thumbnails; `highlight` (L, H) True = drawn in full.
    The tooltip numbers the query and key pieces as the page's pills and heatmaps do."""
    L, H, T, _ = weights.shape
    return with_data(_template(L, H, T, thumbnail_px(H)), cells(weights, highlight))


def phone_view(weights: np.ndarray, highlight: np.ndarray) -> alt.Chart:
    """`model_view` turned a quarter for a phone: a column per layer, a row per head. The same cells, colours,
    tooltip and selection (`PICK`: a tap opens the head as a click does)."""
    L, H, T, _ = weights.shape
    return with_data(_template(L, H, T, PHONE_PX, phone=True), cells(weights, highlight))
