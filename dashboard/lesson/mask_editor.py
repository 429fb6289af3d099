"""The custom mask's editor: a grid of checkboxes, row = a query, column = a key (True = may attend)."""

import numpy as np
import pandas as pd
import streamlit as st

from dashboard.charts.heatmaps import token_labels
from dashboard.lesson import state


def fit_grid(grid, T: int) -> tuple:
    """The student's grid at size T: kept where it overlaps, causal where new."""
    out = np.tril(np.ones((T, T), dtype=bool))
    old = np.array(grid, dtype=bool).reshape(len(grid), -1) if len(grid) else np.zeros((0, 0), bool)
    n = min(T, old.shape[0])
    out[:n, :n] = old[:n, :n]
    return tuple(tuple(bool(x) for x in row) for row in out)


def editor():
    """Edit the lesson's grid in a popover wide enough for it; an edit becomes the lesson at once."""
    cfg = state.lesson()
    labels = token_labels(cfg.tokens)
    columns = {label: st.column_config.CheckboxColumn(label, width="small") for label in labels}
    with st.popover("Edit the custom mask", icon=":material/grid_on:", width="stretch"):
        st.caption("Tick the keys (columns) each query (row) may attend to. "
                   "Untick a whole row to see a blocked query.")
        # A new key whenever the lesson changes, so the editor always starts from the lesson's grid.
        edited = st.data_editor(pd.DataFrame(np.array(cfg.custom_mask, dtype=bool), index=labels, columns=labels),
                                column_config=columns, key=f"ctl_mask_grid_{state.version()}", width="content")
    grid = tuple(tuple(bool(x) for x in row) for row in np.asarray(edited, dtype=bool))
    if grid != cfg.custom_mask:
        state.propose(custom_mask=grid)
    cells = sum(map(sum, state.lesson().custom_mask))
    st.caption(f"{cells} of {len(labels) ** 2} cells may attend.")
