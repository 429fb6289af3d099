"""Layout helpers shared by the pages: a chart with its export menu, side-by-side panels."""

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from .charts import heatmap_px
from .export import export_menu

MAIN_WIDTH_PX = 1100  # what a wide page's main area holds on a 1600 px screen
MAX_DRAWN_DIMS = 64  # wider matrices are shown in part (the first columns), and the page says so


def draw(chart: alt.TopLevelMixin, key: str):
    """`st.altair_chart`, minus its schema validation (tens of ms a chart): the chart's one table
    travels as a named dataset, which Streamlit sends to the browser as Arrow."""
    light = chart.copy(deep=False)
    light.data = alt.NamedData(name="cells")
    spec = light.to_dict(validate=False)
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
