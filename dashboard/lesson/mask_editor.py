"""The custom mask's editor: a grid of checkboxes, row = a query, column = a key (True = may attend)."""

import logging

import numpy as np
import pandas as pd
import streamlit as st

from dashboard.charts.heatmaps import token_labels
from dashboard.lesson import state

log = logging.getLogger(__name__)
_FRESH = "mask_editor_fresh"  # bumped when an edit could not be applied: the editor starts again


def fit_grid(grid, T: int) -> tuple:
    """The student's grid at size T: kept where it overlaps, causal where new."""
    out = np.tril(np.ones((T, T), dtype=bool))
    old = np.array(grid, dtype=bool).reshape(len(grid), -1) if len(grid) else np.zeros((0, 0), bool)
    n = min(T, old.shape[0])
    out[:n, :n] = old[:n, :n]
    return tuple(tuple(bool(x) for x in row) for row in out)


def _grid_editor(frame, columns):
    # A new key whenever the lesson changes, so the editor always starts from the lesson's grid.
    key = f"ctl_mask_grid_{state.version()}_{st.session_state.get(_FRESH, 0)}"
    return st.data_editor(frame, column_config=columns, key=key, width="content", num_rows="fixed")


def editor():
    """Edit the lesson's grid in a popover wide enough for it; an edit becomes the lesson at once."""
    cfg = state.lesson()
    labels = token_labels(cfg.tokens)
    columns = {label: st.column_config.CheckboxColumn(label, width="small") for label in labels}
    with st.popover("Edit the custom mask", icon=":material/grid_on:", width="stretch"):
        st.caption("Tick the keys (columns) each query (row) may attend to. "
                   "Untick a whole row to see a blocked query.")
        frame = pd.DataFrame(np.array(cfg.custom_mask, dtype=bool), index=labels, columns=labels)
        try:
            edited = _grid_editor(frame, columns)
        except Exception:  # a crafted editor state (Streamlit applies it inside data_editor): start afresh
            log.warning("custom mask editor: an edit that could not be applied was dropped", exc_info=True)
            st.session_state[_FRESH] = st.session_state.get(_FRESH, 0) + 1  # a new key: no state at all
            st.warning("The mask editor got an edit it could not apply (a row or a column it does not have, or "
                       "no edit at all); it starts again from the lesson's mask, which is unchanged.", icon="🔲")
            edited = _grid_editor(frame, columns)
        edited = edited.reindex(index=labels, columns=labels).fillna(False)  # nothing but the lesson's cells
    grid = tuple(tuple(bool(x) for x in row) for row in np.asarray(edited, dtype=bool))
    if grid != cfg.custom_mask:
        state.propose(custom_mask=grid)
    cells = sum(map(sum, state.lesson().custom_mask))
    st.caption(f"{cells} of {len(labels) ** 2} cells may attend.")
