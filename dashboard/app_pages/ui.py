"""Layout helpers shared by the pages: a chart with its export menu, side-by-side panels."""

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from dashboard import display, navigation, theme
from dashboard.charts import sizing
from dashboard.charts.export import export_menu
from dashboard.memo import MemoryLRU

MAX_DRAWN_DIMS = 64  # wider matrices are shown in part (the first columns), and the page says so


# A template's Vega-Lite spec (no data), by its name; shared by every session's thread.
_SPECS = MemoryLRU(budget=float("inf"), max_items=512)


def spec_without_data(chart: alt.TopLevelMixin, name=None) -> dict:
    """The chart's spec without its data (its table is the named dataset "cells"); built once per
    `name` (default: its template's, from usermeta), since Altair's to_dict is slow.

    A copy as deep as what its callers change: its top-level keys ("datasets") and its params'
    values (sizing.set_look); everything under them is the shared spec, never changed (Streamlit's
    vega_lite_chart, too, copies and changes only the top level). A deep copy took 5 % of a rerun."""
    if name is None:
        meta = getattr(chart, "usermeta", None)
        name = meta.get("template") if isinstance(meta, dict) else None
    if name is None:
        return _bare_spec(chart)
    spec = dict(_SPECS.get_or_make(name, lambda: _bare_spec(chart)))
    if "params" in spec:
        spec["params"] = [dict(param) for param in spec["params"]]
    return spec


def _bare_spec(chart: alt.TopLevelMixin) -> dict:
    light = chart.copy(deep=False)
    light.data = alt.NamedData(name="cells")
    return light.to_dict(validate=False)


def draw(chart: alt.TopLevelMixin, key: str, **kwargs):
    """`st.altair_chart`, minus its schema validation and rebuilding (tens of ms a chart): the
    chart's one table travels as a named dataset, which Streamlit sends to the browser as Arrow.
    It fills the width it is given, in this session's look (display.py). `kwargs` go to
    `st.vega_lite_chart`."""
    spec = spec_without_data(chart)
    spec["datasets"] = {"cells": chart.data}
    look = display.look()
    sizing.set_look(spec, look, lab_by_row=display.by_row())
    return st.vega_lite_chart(spec, width="stretch", theme=None, key=key, **kwargs)


def show(chart: alt.TopLevelMixin, name: str, cfg, table: pd.DataFrame, key: str | None = None):
    """Draw a chart with its export menu under it. `name` names the exported files; `key` (default
    from the name) is the chart's element: kept across reruns, the browser swaps its data in place."""
    draw(chart, key or f"chart_{name}")
    export_menu(chart, name, cfg, table)


def panels(count: int, cols: int, name: str) -> list:
    """`count` panels in a row that wraps: side by side while each is wide enough for a heatmap
    `cols` cells wide to print its numbers (the browser measures; theme.page_css), one under
    another on narrow screens. The width asked for is in the panels' keys, which `name` keeps
    apart from other rows' (no element of its own: each costs the browser a redraw per rerun)."""
    row = st.container(horizontal=True, gap="medium")
    px = sizing.panel_px(cols, display.look())
    return [row.container(key=theme.panel_key(px, f"{name}{i}")) for i in range(count)]


def labelled(values, rows, cols) -> pd.DataFrame:
    return pd.DataFrame(np.asarray(values), index=list(rows), columns=list(cols))


def dim_labels(n: int, prefix: str = "d") -> list[str]:
    return [f"{prefix}{i + 1}" for i in range(n)]


def first_dims(values: np.ndarray, what: str, labels: list[str]) -> tuple[np.ndarray, list[str]]:
    """At most MAX_DRAWN_DIMS columns of a wide matrix (and their labels), with a caption when cut."""
    values = np.asarray(values)
    if values.shape[-1] > MAX_DRAWN_DIMS:
        st.caption(f"{what} has {values.shape[-1]} columns; the chart shows the first {MAX_DRAWN_DIMS} "
                   "(the CSV export has them all).")
    return values[..., :MAX_DRAWN_DIMS], list(labels)[:MAX_DRAWN_DIMS]


ARTICLE = ('"Transformer Architecture and the Self-Attention Mechanism" (Ashok Kumar Yadav, in *Module 10: '
           'Generative AI, LLMs & Prompt Engineering*)')


TRAINED_PAGE = "app_pages/trained_heads.py"  # the one page whose weights are learned


def untrained_note():
    """Said once on every page built on the lesson's random weights, with the way to learned ones."""
    st.caption("The W matrices on this page are **random, not trained**: the arithmetic is exactly a "
               "Transformer's, but the patterns it produces mean nothing about language.")
    st.page_link(navigation.page(TRAINED_PAGE), label="For patterns a trained model learned, see Trained heads",
                 icon=":material/school:")
