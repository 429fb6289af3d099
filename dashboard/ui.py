"""Layout helpers shared by the pages: a chart with its export menu, side-by-side panels."""

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from .export import export_menu

SIDE_BY_SIDE_UP_TO = 16  # tokens; longer sequences get one full-width chart per row
MAX_DRAWN_DIMS = 64  # wider matrices are shown in part (the first columns), and the page says so


def show(chart: alt.TopLevelMixin, name: str, cfg, table: pd.DataFrame):
    """Draw a chart with its export menu under it."""
    st.altair_chart(chart, width="content", theme=None, key=f"chart_{name}")
    export_menu(chart, name, cfg, table)


def panels(count: int, num_tokens: int) -> list:
    """`count` columns when the sequence is short, else full-width containers one under another."""
    if num_tokens <= SIDE_BY_SIDE_UP_TO:
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
