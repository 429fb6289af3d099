"""Page 5: positional encodings, and how each one changes the lesson's attention."""

import streamlit as st

from animations import style
from core.config import POSITIONALS
from dashboard import charts, controls, data
from dashboard.ui import dim_labels, first_dims, labelled, panels, show

st.title("Positional encoding")
st.markdown(
    "Attention by itself ignores word order: shuffle the tokens and each gets the same output. A positional "
    "encoding adds (or, for rotary, turns) each token's vector according to its position. Below: the "
    "sinusoidal table, how alike two positions' codes are, and the lesson's weights under each encoding."
)

cfg = controls.current()
T, D = cfg.num_tokens, cfg.d_model
table, similarity = data.positional(T, D)
positions = [f"pos {i}" for i in range(T)]
dims = dim_labels(D)

left, right = panels(2, T)
with left:
    show(charts.matrix_heatmap(first_dims(table, "The table"), positions, dims[:64], "sinusoidal encoding",
                               "sinusoidal", y_title="position", max_width=340),
         "sinusoidal", cfg, labelled(table, positions, dims))
with right:
    show(charts.matrix_heatmap(similarity, positions, positions, "cosine similarity of positions", "similarity",
                               x_title="position", y_title="position", domain=[-1, 1]),
         "similarity", cfg, labelled(similarity, positions, positions))


@st.fragment
def by_encoding():
    cfg = controls.current()
    st.subheader("The lesson's weights under each encoding")
    traces = data.traces_by_positional(cfg)
    h = controls.head_control(cfg.num_heads)
    labels = charts.token_labels(cfg.tokens)
    slots = panels(2, T) + panels(2, T)  # a 2×2 grid when the sequence is short
    for panel, p in zip(slots, POSITIONALS, strict=True):
        with panel:
            trace = traces[p]
            if isinstance(trace, Exception):
                st.markdown(f"**{p}**")
                st.warning(str(trace))
                continue
            show(charts.weights_heatmap(trace, h, f"{p}"), f"pos_{p}_{h}", cfg.replace(positional=p),
                 labelled(trace.weights[h], labels, labels))
    st.caption(f"Head {h + 1}. Colours: {style.WEIGHT_SCHEME}, 0..1; grey = masked.")


by_encoding()
