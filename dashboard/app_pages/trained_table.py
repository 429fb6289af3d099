"""The Trained heads page's table of every head's measured patterns: a column per measure, or on a phone
(phone.phone_view) one measure at a time, so that the table fits the screen's width."""

import pandas as pd
import streamlit as st

from dashboard.app_pages import trained_model
from dashboard.text import plain


def caption(phone: bool) -> str:
    causal = trained_model.info().causal
    over = ("every token's row but the first (which can only look at itself)" if causal else
            "the rows of the sentence's word pieces ([CLS]'s and [SEP]'s rows left out)")
    how = ("Pick the measure shown above the table; tap a column's name to sort by it." if phone else
           "Click a column's name to sort by it.")
    what = "measures" if phone else "columns"
    overlap = ("" if causal else
               f" The {what} can overlap: the first word piece's previous piece is [CLS] and the last one's next "
               f"piece is [SEP], so a head like layer 1, head 3 of MiniLM counts its first word piece's row in both "
               f"its “previous” and “[CLS]” {what}: its “[CLS]” mean is about 1 ÷ n (n word pieces), all from that "
               "row.")
    return f"Measured by core on this sentence only: the mean over {over}. {how}{overlap}"


def table(measured: dict, phone: bool = False):
    st.subheader("Every head's measured patterns", anchor=False)
    st.caption(caption(phone))
    columns, described = trained_model.columns(), trained_model.described()
    if phone:  # layer, head and one measure: three columns fit a phone's width, none scrolls sideways
        shown = st.selectbox("Measure shown", list(columns), format_func=columns.get, key="trained_table_measure")
        st.caption(plain(f"{columns[shown]}: {described[shown]}."))
        columns = {shown: columns[shown]}
    L, H = measured["previous"].shape
    rows = pd.DataFrame({"layer": [la + 1 for la in range(L) for _ in range(H)], "head": list(range(1, H + 1)) * L})
    for name, column in columns.items():
        rows[column] = measured[name].reshape(-1)
    config = {column: st.column_config.NumberColumn(column, format="%.3f", help=described[name])
              for name, column in columns.items()}
    # The full table on a phone (its switch off): the measures scroll sideways, the head they are of stays in view.
    config |= {name: st.column_config.NumberColumn(name, pinned=not phone, width=56) for name in ("layer", "head")}
    st.dataframe(rows, hide_index=True, column_config=config, height=320,
                 key="trained_phone_table" if phone else "trained_table")
