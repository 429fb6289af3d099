"""Page 3: the same scores before the mask, after it, and after the softmax, for each mask kind."""

import streamlit as st

from core import ConfigError
from core.config import MASKS
from dashboard import charts, controls, data
from dashboard.ui import labelled, panels, show

st.title("Masking")
st.markdown(
    "A mask says which keys each query may look at. Blocked scores become −∞ before the softmax, so their "
    "weights are exactly 0 and the row's other weights share the whole 1. Pick a mask kind below to compare "
    "it with the lesson's; the sidebar sets the lesson's own mask (and its custom grid)."
)


def with_mask(cfg, kind: str):
    """The lesson under another mask kind; the custom demo blocks the first query's whole row."""
    T = cfg.num_tokens
    if kind == "custom" and cfg.mask != "custom":
        grid = tuple(tuple(i > 0 and j <= i for j in range(T)) for i in range(T))
        return cfg.replace(mask="custom", custom_mask=grid)
    if kind == "padding":
        return cfg.replace(mask="padding", pad_length=min(cfg.pad_length, T))
    return cfg.replace(mask=kind, custom_mask=cfg.custom_mask if kind == "custom" else ())


@st.fragment
def compare():
    cfg = controls.current()
    kind = st.segmented_control("Mask to show", MASKS, key="view_mask", default=cfg.mask) or cfg.mask
    try:
        view = with_mask(cfg, kind)
    except ConfigError as err:
        st.warning(str(err))
        return
    trace = data.trace(view)
    h = controls.head_control(trace.num_heads)
    labels = charts.token_labels(trace.tokens)
    before, after = panels(2, len(labels))
    with before:
        show(charts.scores_heatmap(trace, h, "scaled", "1. scaled scores"), f"mask_before_{h}", view,
             labelled(trace.scaled[h], labels, labels))
    with after:
        show(charts.scores_heatmap(trace, h, "scaled", "2. after the mask", show_mask=True), f"mask_after_{h}", view,
             labelled(trace.masked[h], labels, labels))
    show(charts.weights_heatmap(trace, h, "3. after the softmax"), f"mask_weights_{h}", view,
         labelled(trace.weights[h], labels, labels))
    explain_blocked(trace, labels)


def explain_blocked(trace, labels):
    rows = [labels[i] for i, b in enumerate(trace.blocked_rows) if b]
    if not rows:
        st.caption("Every query can see at least one key, so every row of weights sums to 1.")
        return
    st.info(
        f"**Fully blocked row{'s' if len(rows) > 1 else ''}: {', '.join(rows)}.** This query may attend to no key: "
        "every score in its row is −∞, and a softmax of only −∞ would be 0 / 0 = NaN. Like PyTorch's "
        "`scaled_dot_product_attention`, the lab gives such a row weights of 0 and an output of 0, and marks it, "
        "instead of spreading NaN through the rest of the model."
    )


compare()
