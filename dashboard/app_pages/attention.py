"""Page 1: one head of scaled dot-product attention, step by step."""

import streamlit as st

from dashboard import controls, display
from dashboard.app_pages import predict, steps
from dashboard.app_pages.ui import controls_row, introduction
from dashboard.lesson import rerun

introduction(
    "Scaled dot-product attention",
    "Each token's vector x is multiplied by three matrices: W_Q gives its **query** q (what it looks for), "
    "W_K its **key** k (what the queries are matched against) and W_V its **value** v (what it passes on). "
    "How well query i matches key j is the dot product qᵢ·kⱼ. Divided by √d_k and passed through a softmax, "
    "each row of scores becomes **weights** that add up to 1, and token i's output is the weighted average of "
    "the values: `softmax(Q·Kᵀ / √d_k) · V`."
)


def one_head(cfg, trace):
    # One step at a time (only the chosen one is computed and drawn): legible on a projector, fast.
    slides = display.projector()
    with controls_row():
        h = controls.head_control(trace.num_heads)
        chosen = steps.choose(arrows=slides)
        # In the row on a projector (its own row would push the step's charts off the screen).
        predicting = predict.switch("softmax") if slides and chosen[2].open else None
        flat = steps.why_flat(cfg, trace, h) if slides and chosen[2].open and predicting is not True else None
        if flat:
            with st.popover("Why so flat?"):
                st.caption(flat)
    steps.draw_step(chosen, cfg, trace, h, predicting=predicting)


rerun.view(one_head)
