"""The "model view": every head of every layer as a thumbnail of its weights, in one chart.

Pure: weights (L, H, T, T) from core -> one faceted Altair chart (a row per layer, a column per
head), on the same 0..1 colour scale as every weights heatmap. A click on a thumbnail selects
its (layer, head) (the selection parameter `pick`); heads outside a pattern filter are faded.
The template holds nothing computed from the numbers, so it is built once per size.
"""

from functools import lru_cache

import altair as alt
import numpy as np
import pandas as pd

from animations import style

from .charts import FONT, token_labels

PICK = "pick"  # the selection parameter: {"layer": L, "head": H} of the clicked thumbnail
FADED = 0.12  # opacity of a head the pattern filter leaves out


def thumbnail_px(num_heads: int, width: int = 800) -> int:
    """A thumbnail's side: the heads side by side, with the layers' names, fit `width` px (the main area
    beside the sidebar on a 1280 px projector is about 820 px)."""
    return max(36, min(72, (width - 90) // num_heads - 6))


def cells(weights: np.ndarray, tokens, highlight: np.ndarray) -> pd.DataFrame:
    """One row per cell of every head: layer and head (from 1), query row and key column, the weight,
    and whether the head is highlighted. Token labels are categories: 72 heads repeat them a lot."""
    L, H, T, _ = weights.shape
    layer, head, row, col = np.indices(weights.shape).reshape(4, -1)
    labels = token_labels(tokens)
    return pd.DataFrame({
        "layer": (layer + 1).astype(np.int8), "head": (head + 1).astype(np.int8),
        "row": row.astype(np.int16), "col": col.astype(np.int16),
        "query": pd.Categorical.from_codes(row, labels), "key": pd.Categorical.from_codes(col, labels),
        "weight": weights.reshape(-1).astype(np.float32),
        "highlight": np.asarray(highlight, dtype=bool)[layer, head],
    })


@lru_cache(maxsize=64)
def _template(num_tokens: int, px: int) -> alt.FacetChart:
    pick = alt.selection_point(name=PICK, fields=["layer", "head"], on="click", clear=False)
    header = dict(labelFont=FONT, labelFontSize=13, title=None)
    scale = alt.Scale(scheme=style.WEIGHT_SCHEME, domain=[0, 1])
    # Cells narrower than a few pixels leave anti-aliased seams between them (a moiré over long
    # sentences); a hairline stroke of the cell's own colour closes them.
    thumb = alt.Chart().mark_rect(strokeWidth=0.6).encode(
        x=alt.X("col:O", axis=None), y=alt.Y("row:O", axis=None),
        color=alt.Color("weight:Q", scale=scale,
                        legend=alt.Legend(title="weight", orient="top", direction="horizontal", gradientLength=200)),
        stroke=alt.value({"expr": "scale('color', datum.weight)"}),  # a field would merge into the legend
        opacity=alt.Opacity("highlight:N", scale=alt.Scale(domain=[True, False], range=[1, FADED]), legend=None),
        tooltip=[alt.Tooltip("layer:O"), alt.Tooltip("head:O"), alt.Tooltip("query:N"), alt.Tooltip("key:N"),
                 alt.Tooltip("weight:Q", format=".3f")],
    ).properties(width=px, height=px).add_params(pick)
    return alt.FacetChart(
        spec=thumb, spacing=6,
        facet=alt.FacetMapping(
            row=alt.Facet("layer:O", header=alt.Header(labelExpr="'layer ' + datum.value", labelAngle=0,
                                                       labelOrient="left", **header)),
            column=alt.Facet("head:O", header=alt.Header(labelExpr="'head ' + datum.value", **header))),
        usermeta={"lab": "model-view", "template": f"model-view-{num_tokens}-{px}"},
        autosize=alt.AutoSizeParams(type="pad"),
    )


def model_view(weights: np.ndarray, tokens, highlight: np.ndarray) -> alt.FacetChart:
    """Every head's weights (L, H, T, T) as thumbnails; `highlight` (L, H) True = drawn in full."""
    chart = _template(weights.shape[-1], thumbnail_px(weights.shape[1])).copy(deep=False)
    chart.data = cells(weights, tokens, highlight)
    return chart
