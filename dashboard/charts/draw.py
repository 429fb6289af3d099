"""How a chart reaches the page: its spec without data (built once per template), this session's
look (ordinary, projector or a slide: sizing.Look), the width it is given, and its export menu (the
numbers as CSV, the chart as PNG/SVG rendered on the server by vl-convert, so it works offline, and
the lesson as JSON; files made only when clicked).

Every chart drawn through `draw` follows the look (`set_look`), so a new page needs nothing of its
own."""

import contextlib
import contextvars
import logging
from functools import partial
from html import escape

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st
import vl_convert as vlc

from dashboard import controls
from dashboard.charts import sizing
from dashboard.data import MemoryLRU

log = logging.getLogger(__name__)

# A template's Vega-Lite spec (no data), by its name; shared by every session's thread.
_SPECS = MemoryLRU(budget=float("inf"), max_items=512)
PANEL_STEPS = range(200, 2401, 25)  # CSS px: the widths a panel may ask for (panel_px, rounded up)
PANEL_KEY = "lab_w"  # a row of panels' key: lab_w{width}_{name}; "_" ends the width, so 300 never matches 3000


# -- the look and the width ------------------------------------------------------------------------
_SLIDE = contextvars.ContextVar("lab_slide", default=None)  # per script run (each has its own thread)


@contextlib.contextmanager
def slide(look: sizing.Look = sizing.SLIDE):
    """Charts drawn inside are a slide's (projector mode only): sized so the whole step fits the window, their
    plot at most `look.window_share` of its height (a slide with less above and below its charts gives them more:
    a page keeps its own such look as a constant, from sizing.SLIDE)."""
    token = _SLIDE.set(look)
    try:
        yield
    finally:
        _SLIDE.reset(token)


def look() -> sizing.Look:
    if not controls.projector():
        return sizing.ORDINARY
    return _SLIDE.get() or sizing.PROJECTOR


def set_look(spec: dict, look: sizing.Look, **values):
    """Give the spec's own signals this look's values (and any others named, e.g. lab_by_row)."""
    wanted = {**look.signals, **values}
    for param in spec.get("params", ()):
        if param.get("name") in wanted:
            param["value"] = wanted[param["name"]]


def panel_px(cols: int, look: sizing.Look) -> int:
    """The narrowest panel (CSS px) in which a `cols`-wide heatmap still prints its numbers."""
    # "−0.43" at the smallest size allowed; on a slide, where the window caps the cells, a small cell
    cell = look.min_number_px * 5 * sizing.DIGIT_EM + 8 if look.legible else sizing.SLIDE_PANEL_CELL
    return int(cols * cell + 130 * look.scale + (sizing.KEY_BESIDE_PX if look.key_beside else 0))


def panel_key(px: int, name: str) -> str:
    """The key of a row of panels (`panels`), each at least `px` wide: Streamlit writes it into the
    row's class (st-key-…), which display.page_css picks by its start."""
    step = next((s for s in PANEL_STEPS if s >= px), PANEL_STEPS[-1])
    return f"{PANEL_KEY}{step}_{name}"


# -- a chart onto the page -------------------------------------------------------------------------


def spec_without_data(chart: alt.TopLevelMixin, name=None, key_beside: bool = False) -> dict:
    """The chart's spec without its data (its table is the named dataset "cells"); built once per
    `name` (default: its template's, from usermeta) and side of its colour key (`key_beside`), since
    Altair's to_dict is slow.

    A copy as deep as what its callers change: its top-level keys ("datasets") and its params'
    values (`set_look`); everything under them is the shared spec, never changed (Streamlit's
    vega_lite_chart, too, copies and changes only the top level). A deep copy took 5 % of a rerun."""
    if name is None:
        meta = getattr(chart, "usermeta", None)
        name = meta.get("template") if isinstance(meta, dict) else None
    if name is None:
        return _bare_spec(chart, key_beside)
    spec = dict(_SPECS.get_or_make((name, key_beside), lambda: _bare_spec(chart, key_beside)))
    if "params" in spec:
        spec["params"] = [dict(param) for param in spec["params"]]
    return spec


def _bare_spec(chart: alt.TopLevelMixin, key_beside: bool = False) -> dict:
    light = chart.copy(deep=False)
    light.data = alt.NamedData(name="cells")
    spec = light.to_dict(validate=False)
    if key_beside:
        _key_beside(spec)
    return spec


def _key_beside(spec: dict):
    """A colour key (a gradient legend) under its chart moves beside it, standing as tall as the grid. Said as a
    change of the built spec (a fresh dict of this look's own) because Vega-Lite's legend `orient` takes no
    expression, so the look's signals cannot choose it."""
    for part in (spec, *spec.get("layer", ())):
        color = part.get("encoding", {}).get("color", {})
        legend = color.get("legend")
        if color.get("type") == "quantitative" and isinstance(legend, dict) and legend.get("orient") == "bottom":
            # right of the plot, not of the view: the plot is narrower than the view when the window caps the cells
            color["legend"] = {**legend, "orient": "right", "direction": "vertical",
                               "offset": {"expr": "lab_cell * lab_cols - width + 18 * lab_fit"},
                               "gradientLength": {"expr": "clamp(lab_cell * lab_rows * 0.8, 100, 480)"}}


def draw(chart: alt.TopLevelMixin, key: str, **kwargs):
    """`st.altair_chart`, minus its schema validation and rebuilding (tens of ms a chart): the
    chart's one table travels as a named dataset, which Streamlit sends to the browser as Arrow.
    It fills the width it is given, in this session's look. `kwargs` go to `st.vega_lite_chart`."""
    this = look()
    spec = spec_without_data(chart, key_beside=this.key_beside)
    spec["datasets"] = {"cells": chart.data}
    set_look(spec, this, lab_by_row=controls.by_row())
    return st.vega_lite_chart(spec, width="stretch", theme=None, key=key, **kwargs)


def show(chart: alt.TopLevelMixin, name: str, cfg, table: pd.DataFrame, key: str | None = None):
    """Draw a chart with its export menu under it. `name` names the exported files; `key` (default
    from the name) is the chart's element: kept across reruns, the browser swaps its data in place."""
    draw(chart, key or f"chart_{name}")
    export_menu(chart, name, cfg, table)


def panels(count: int, cols: int, name: str) -> list:
    """`count` panels in a row that wraps: side by side while each is wide enough for a heatmap
    `cols` cells wide to print its numbers (the browser measures; display.page_css), one under
    another on narrow screens. The width asked for is in the row's key, which `name` keeps apart
    from other rows' (no element of its own: each costs the browser a redraw per rerun)."""
    row = st.container(horizontal=True, gap="medium", key=panel_key(panel_px(cols, look()), name))
    return [row.container() for _ in range(count)]


def labelled(values, rows, cols) -> pd.DataFrame:
    return pd.DataFrame(np.asarray(values), index=list(rows), columns=list(cols))


# -- export -----------------------------------------------------------------------------------------
def _spec(chart: alt.TopLevelMixin) -> str:
    with alt.data_transformers.enable("default", max_rows=None):  # big lessons exceed Altair's 5000 rows
        return chart.to_json()


# What a failed chart export gives instead of the chart: Streamlit would show only its own "Failed to
# generate file for download" under the button (the reason goes to the server's log, never to the page).
EXPORT_FAILED = ("This chart could not be made into a picture file on the server.",
                 "Its numbers are in Numbers (CSV), in the same Export menu.")


def failed_svg() -> str:
    """A picture that says, in words, that the chart's export failed."""
    lines = "".join(f'<text x="16" y="{32 + 26 * i}">{escape(line)}</text>' for i, line in enumerate(EXPORT_FAILED))
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="620" height="90"><rect width="100%" height="100%" '
            f'fill="white"/><g font-family="DejaVu Sans" font-size="16" fill="black">{lines}</g></svg>')


def chart_png(chart: alt.TopLevelMixin) -> bytes:
    try:
        return vlc.vegalite_to_png(_spec(chart), scale=2)
    except Exception:  # any cause: a sentence for the teacher, the traceback for the server's log
        log.exception("PNG export of chart %r failed", _lab(chart))
        return vlc.svg_to_png(failed_svg(), scale=2)


def chart_svg(chart: alt.TopLevelMixin) -> str:
    try:
        return vlc.vegalite_to_svg(_spec(chart))
    except Exception:
        log.exception("SVG export of chart %r failed", _lab(chart))
        return failed_svg()


def _lab(chart) -> str | None:
    meta = getattr(chart, "usermeta", None)
    return meta.get("lab") if isinstance(meta, dict) else None


def table_csv(table: pd.DataFrame) -> str:
    return table.to_csv(float_format="%.6g")


def export_menu(chart: alt.TopLevelMixin, name: str, cfg, table: pd.DataFrame):
    """A popover whose buttons exist only while it is open; each file is made only when clicked."""
    stem = f"attention-lab-{name}-{cfg.key()}"
    menu = st.popover("Export", icon=":material/download:", key=f"export_{name}", on_change="rerun")
    if not menu.open:
        return
    with menu:
        st.download_button("Numbers (CSV)", partial(table_csv, table), f"{stem}.csv", "text/csv",
                           key=f"export_{name}_csv", on_click="ignore")
        st.download_button("Chart (PNG)", partial(chart_png, chart), f"{stem}.png", "image/png",
                           key=f"export_{name}_png", on_click="ignore")
        st.download_button("Chart (SVG)", partial(chart_svg, chart), f"{stem}.svg", "image/svg+xml",
                           key=f"export_{name}_svg", on_click="ignore")
        st.download_button("Lesson settings (JSON)", cfg.to_json(), "attention-lab-lesson.json",
                           "application/json", key=f"export_{name}_json", on_click="ignore")
