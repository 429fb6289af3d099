"""Page 5: positional encodings, and how each one changes the lesson's attention."""

import numpy as np
import streamlit as st

from animations import style
from core.config import POSITIONALS
from dashboard import controls, data
from dashboard.app_pages.ui import dim_labels, first_dims, introduction
from dashboard.charts import heatmaps as charts
from dashboard.charts.draw import draw, labelled, panels, show
from dashboard.lesson import rerun
from dashboard.text import plain

# On the projector a deck's screen may show one part (`part=encodings`: the lesson's weights under each
# encoding, side by side); the whole page, three parts of tables and heatmaps, is several screens tall.
PART = controls.part(("table", "shuffle", "encodings"))
introduction(
    "Positional encoding",
    "Attention by itself does not see word order. Without a mask it is **permutation-equivariant**: shuffle "
    "the tokens and each token's output is the same as before, only listed in the new order (a causal mask "
    "already depends on order). A positional encoding breaks this. Sinusoidal and learned encodings **add** a "
    "position vector to each token's embedding. Rotary encoding (RoPE) instead **rotates** each head's q and k, "
    "one pair of dimensions at a time, by an angle proportional to the token's position (v and the embedding "
    "are left alone), so q·k depends on the two positions only through their offset.\n\n"
    "Here the “learned” table is random, drawn from the seed, as PyTorch's nn.Embedding draws one before "
    "training: its entries are drawn with variance 1 (BERT and GPT-2 start theirs far smaller), so their squares "
    "average about 1, while the sinusoidal entries' squares average exactly 0.5 (each sine and cosine pair gives "
    "sin² + cos² = 1). So the learned vectors are the longer ones, "
    "about √2 times as long: bear that in mind when the tables below compare encodings.",
)

def sinusoidal_table(cfg):
    T, D = cfg.num_tokens, cfg.d_model
    labels = charts.token_labels(cfg.tokens)
    table, similarity = data.positional(T, D)
    st.subheader("The sinusoidal table", anchor=False)
    st.caption("One row per position, numbered from 1 like the tokens; the formula counts from 0 "
               "(token 1 has pos = 0): PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(…).")
    shown, cols = first_dims(table, "The table", dim_labels(D))
    left, right = panels(2, max(T, len(cols)), "sinusoidal")
    with left:
        show(charts.matrix_heatmap(shown, labels, cols, "sinusoidal encoding", "sinusoidal", y_title="position"),
             "sinusoidal", cfg, labelled(table, labels, dim_labels(D)))
    with right:
        show(charts.matrix_heatmap(similarity, labels, labels, "cosine similarity of positions", "similarity",
                                   x_title="position", y_title="position", domain=[-1, 1]),
             "similarity", cfg, labelled(similarity, labels, labels))


def same_words(tokens) -> list[list[int]]:
    """Groups of positions holding the same word, whatever its case ("The" and "the")."""
    groups: dict[str, list[int]] = {}
    for i, t in enumerate(tokens):
        groups.setdefault(t.lower(), []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def shuffle(cfg):
    st.subheader("Shuffle the tokens", anchor=False)
    if cfg.source == "manual":
        st.info("Hand-entered Q, K, V have no token vectors to shuffle: choose a sentence or random tokens.")
        return
    seed = controls.number("Shuffle number", 1, 99, "shuffle", 1, help="Each number is another order.")
    order = tuple(int(i) for i in np.random.default_rng(seed).permutation(cfg.num_tokens))
    rows = []
    for p in POSITIONALS:
        try:
            demo = data.shuffle_demo(cfg.replace(positional=p), order)
        except ValueError as err:  # rotary needs an even d_k
            rows.append({"positional encoding": p, "largest change of a token's output": str(err)})
            continue
        change = float(np.abs(demo["shuffled"] - demo["output"][list(order)]).max())
        rows.append({"positional encoding": p, "largest change of a token's output": f"{change:.6f}"})
    words = [cfg.tokens[i] for i in order]
    st.caption(f"New order: {plain(' '.join(words))}. No mask. For every token, its output after the shuffle is "
               "compared with its output before: without positions the change is only float rounding.")
    st.dataframe(rows, hide_index=True, width="content")


def by_encoding(cfg):
    slide = PART == "encodings"  # the projector's slide: no positions beside sinusoidal ones, the head beside them
    traces = data.traces_by_positional(cfg)
    labels = charts.token_labels(cfg.tokens)
    T = cfg.num_tokens
    if slide:
        *slots, side = st.columns([5, 5, 3], gap="large")
        with side:
            h = controls.head_control(cfg.num_heads)
            st.caption(f"Head {h + 1}'s weights without positions (left), then with sinusoidal positions added "
                       "(right). The whole page also shows learned and rotary (RoPE) encodings.")
        shown = ("none", "sinusoidal")
    else:
        st.subheader("The lesson's weights under each encoding", anchor=False)
        h = controls.head_control(cfg.num_heads)
        slots = panels(2, T, "encodings") + panels(2, T, "encodings_more")  # a 2×2 grid when the sequence is short
        shown = POSITIONALS
    for panel, p in zip(slots, shown, strict=True):
        with panel:
            trace = traces[p]
            if isinstance(trace, Exception):
                st.markdown(f"**{p}**")
                st.warning(plain(trace))
                continue
            chart = charts.weights_heatmap(trace, h, f"{p}")
            if slide:  # no export menu on the projector
                draw(chart, f"chart_pos_{p}_{h}")
            else:
                show(chart, f"pos_{p}_{h}", cfg.replace(positional=p), labelled(trace.weights[h], labels, labels))
    if slide:
        return
    st.caption(f"Head {h + 1}. Colours: {style.WEIGHT_SCHEME}, 0..1; grey = masked.")
    for group in same_words(cfg.tokens):
        named = plain(" and ".join(f"{labels[i]!r}" for i in group))
        st.caption(f"Without positions, {named} have the same q, k and v (the lab gives each word one vector, "
                   "whatever its case), so their rows of scores are identical, and so are their rows of weights "
                   "wherever the mask treats them alike. Positions make them differ.")


def the_lesson(cfg):
    for name, draw_part in (("table", sinusoidal_table), ("shuffle", shuffle), ("encodings", by_encoding)):
        if PART in (None, name):
            draw_part(cfg)


rerun.view(the_lesson, with_trace=False)
