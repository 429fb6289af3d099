"""Export under every heatmap: the numbers as CSV, the chart as PNG/SVG (rendered on the server
by vl-convert, so it works offline) and the lesson as JSON. Files are made only when clicked."""

from functools import partial

import altair as alt
import pandas as pd
import streamlit as st
import vl_convert as vlc


def _spec(chart: alt.TopLevelMixin) -> str:
    with alt.data_transformers.enable("default", max_rows=None):  # big lessons exceed Altair's 5000 rows
        return chart.to_json()


def chart_png(chart: alt.TopLevelMixin) -> bytes:
    return vlc.vegalite_to_png(_spec(chart), scale=2)


def chart_svg(chart: alt.TopLevelMixin) -> str:
    return vlc.vegalite_to_svg(_spec(chart))


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
