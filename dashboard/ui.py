"""Layout helpers shared by the pages: a chart with its export menu, side-by-side panels."""

import copy

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from .charts import heatmap_px
from .export import export_menu

MAIN_WIDTH_PX = 1100  # what a wide page's main area holds on a 1600 px screen
MAX_DRAWN_DIMS = 64  # wider matrices are shown in part (the first columns), and the page says so


_SPECS: dict[str, dict] = {}  # a template's Vega-Lite spec (no data), by its name
_MAX_SPECS = 512


def _spec(chart: alt.TopLevelMixin) -> dict:
    """The chart's spec without its data; built once per template (Altair's to_dict is slow)."""
    meta = getattr(chart, "usermeta", None)
    name = meta.get("template") if isinstance(meta, dict) else None
    if name is None or name not in _SPECS:
        light = chart.copy(deep=False)
        light.data = alt.NamedData(name="cells")
        spec = light.to_dict(validate=False)
        if name is None:
            return spec
        if len(_SPECS) >= _MAX_SPECS:
            _SPECS.clear()
        _SPECS[name] = spec
    return copy.deepcopy(_SPECS[name])


def draw(chart: alt.TopLevelMixin, key: str):
    """`st.altair_chart`, minus its schema validation and rebuilding (tens of ms a chart): the
    chart's one table travels as a named dataset, which Streamlit sends to the browser as Arrow."""
    spec = _spec(chart)
    spec["datasets"] = {"cells": chart.data}
    st.vega_lite_chart(spec, width="content", theme=None, key=key)


def show(chart: alt.TopLevelMixin, name: str, cfg, table: pd.DataFrame):
    """Draw a chart with its export menu under it."""
    draw(chart, f"chart_{name}")
    export_menu(chart, name, cfg, table)


def panels(count: int, num_tokens: int) -> list:
    """`count` columns when that many T×T heatmaps fit side by side, else one under another."""
    if count * heatmap_px(num_tokens) <= MAIN_WIDTH_PX:
        return list(st.columns(count))
    return [st.container() for _ in range(count)]


def labelled(values, rows, cols) -> pd.DataFrame:
    return pd.DataFrame(np.asarray(values), index=list(rows), columns=list(cols))


def dim_labels(n: int, prefix: str = "d") -> list[str]:
    return [f"{prefix}{i + 1}" for i in range(n)]


def first_dims(values: np.ndarray, what: str) -> np.ndarray:
    """At most MAX_DRAWN_DIMS columns of a wide matrix, with a caption when cut."""
    values = np.asarray(values)
    if values.shape[-1] > MAX_DRAWN_DIMS:
        st.caption(f"{what} has {values.shape[-1]} columns; the chart shows the first {MAX_DRAWN_DIMS} "
                   "(the CSV export has them all).")
        return values[..., :MAX_DRAWN_DIMS]
    return values
