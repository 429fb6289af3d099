"""A heatmap's table: one row per cell, with what its tooltip, its printed number and a screen reader's
description say, written on the server (numbers.py says why). heatmaps.py puts a table under a chart.

A table is built as plain columns and made a DataFrame once: each column pandas adds to a frame costs
more than formatting 49 cells. A step draws two heatmaps of the same head (the scores, the weights),
so one head's columns are kept for the rest of the script's run (`attention_columns`), and handed out
read-only (`frozen`): a chart that wants other columns makes a new mapping (`table` does), and numpy refuses
a write into a shared column.
"""

import threading
import types
import weakref

import numpy as np
import pandas as pd

from core.trace import token_labels
from dashboard.charts import numbers, sizing

# An attention cell's tooltip: (column, title); its text also describes the cell (`described`) to a screen reader.
TOOLTIP = (("query", "query"), ("key", "key"), ("lab_qk_tip", "q·k"), ("lab_scaled_tip", "scaled"),
           ("masked_text", "masked"), ("lab_weight_tip", "weight"))

_last = threading.local()  # each run of a script has a thread: that run's last (trace, head, columns)


def labels(values) -> np.ndarray:
    """Labels as Python strings: numpy's fixed-width strings would drop a trailing NUL."""
    return np.array(list(values), dtype=object)


def frozen(columns: dict) -> types.MappingProxyType:
    """`columns` as a read-only mapping of read-only columns (arrays that refuse writes, tuples)."""
    out = {}
    for name, column in columns.items():
        if isinstance(column, np.ndarray):
            column = column.view()
            column.flags.writeable = False
        elif isinstance(column, list):
            column = tuple(column)
        out[name] = column
    return types.MappingProxyType(out)


def attention_columns(trace, head: int) -> types.MappingProxyType:
    """One head's T×T cells with every intermediate a tooltip shows, as read-only columns. A second call for
    the same trace and head in the same run gets the same columns. The trace is held by a weak reference, so
    a trace the lesson cache dropped is not kept alive here."""
    kept = getattr(_last, "kept", None)
    if kept is not None and kept[0]() is trace and kept[1] == head:
        return kept[2]
    names = labels(token_labels(trace.tokens))
    T = len(names)
    qi, ki = np.divmod(np.arange(T * T), T)
    masked = ~trace.mask.reshape(-1)
    columns = {
        "query": names[qi], "key": names[ki], "row": qi, "col": ki, "cell": np.arange(T * T),
        "qk": trace.scores[head].reshape(-1), "scaled": trace.scaled[head].reshape(-1),
        "masked": masked, "masked_text": np.where(masked, "yes", "no"),
        "weight": trace.weights[head].reshape(-1),
        # the tooltip's numbers as text (numbers.tooltip): no format string writes both 4.273 and 2.05e10
        "lab_qk_tip": numbers.tooltip(trace.scores[head]), "lab_scaled_tip": numbers.tooltip(trace.scaled[head]),
        "lab_weight_tip": numbers.fixed(trace.weights[head], 3),
    }
    columns["lab_description"] = described(columns, [(title, field) for field, title in TOOLTIP])
    columns = frozen(columns)
    _last.kept = (weakref.ref(trace), head, columns)
    return columns


def matrix_columns(values: np.ndarray, row_labels, col_labels, y_title: str, x_title: str) -> dict:
    """A (rows, cols) matrix's cells, with each cell's value as its tooltip writes it."""
    rows, cols = values.shape
    ri, ci = np.divmod(np.arange(rows * cols), cols)
    columns = {"row_label": labels(row_labels)[ri], "col_label": labels(col_labels)[ci],
               "row": ri, "col": ci, "cell": np.arange(rows * cols),
               "value": values.reshape(-1).astype(float), "lab_value_tip": numbers.tooltip(values)}
    columns["lab_description"] = described(columns, [(y_title, "row_label"), (x_title, "col_label"),
                                                     ("value", "lab_value_tip")])
    return columns


def described(columns: dict, fields) -> list[str] | str:
    """What a screen reader says of each cell: the tooltip's fields (title, column), as "query: 1 The; key: …".
    Empty on a chart drawn on a Canvas (over SVG_UP_TO cells), whose marks screen readers are not shown."""
    if len(columns[fields[0][1]]) > sizing.SVG_UP_TO:
        return ""
    texts = [list(map(str, columns[field])) for _, field in fields]
    return ["; ".join(f"{title}: {value}" for (title, _), value in zip(fields, row, strict=True))
            for row in zip(*texts, strict=True)]


def table(columns, printed) -> pd.DataFrame:
    """`columns` as a DataFrame, with the cells' numbers as `printed()` writes them (`lab_text`) and the
    longest one's length (`lab_chars`), for the number layer (sizing.number_transforms); a chart too large
    for it has its numbers never written."""
    if len(columns["cell"]) <= sizing.MAX_NUMBER_CELLS:
        texts = list(printed())
        columns = {**columns, "lab_text": texts, "lab_chars": max(map(len, texts), default=0)}
    return pd.DataFrame(dict(columns))  # a plain dict: pandas reads another mapping's keys as rows
