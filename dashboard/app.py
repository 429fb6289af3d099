"""attention-lab's dashboard: `make run` (this machine) or `make classroom` (the local network).

The sidebar holds the lesson (shared by every page, mirrored in the URL); each page in
`app_pages/` shows one idea about self-attention, drawn from `core.run_trace`.
"""

import gc

import streamlit as st
import torch

from dashboard import links, sidebar, state, studio

PAGES = [
    st.Page("app_pages/attention.py", title="Scaled dot-product attention", url_path="scaled-dot-product",
            default=True),
    st.Page("app_pages/multi_head.py", title="Multi-head attention", url_path="multi-head"),
    st.Page("app_pages/masking.py", title="Masking", url_path="masking"),
    st.Page("app_pages/why_scale.py", title="Why divide by √d_k", url_path="why-scale"),
    st.Page("app_pages/positional.py", title="Positional encoding", url_path="positional"),
    st.Page("app_pages/block.py", title="Transformer block", url_path="block"),
    st.Page("app_pages/worked_example.py", title="The article's worked example", url_path="worked-example"),
    st.Page("app_pages/trained_heads.py", title="Trained heads", url_path="trained-heads"),
    st.Page("app_pages/lecture.py", title="Lecture videos", url_path="lecture"),
    # The first page also answers at its own name, as a teacher would write it on a slide.
    st.Page("app_pages/attention.py", title="Scaled dot-product attention", url_path="attention",
            visibility="hidden"),
]


@st.cache_resource(show_spinner=False)
def freeze_loaded_objects():
    """Once per server, at the end of the first run (everything a page needs is imported by then).

    Streamlit runs a full `gc.collect()` after every run (runner.postScriptGC) and the browser
    waits for that run's last message meanwhile. With torch, Altair and pandas loaded it walks
    some 250 000 long-lived objects: about 160 ms of every slider move. Frozen, they are skipped,
    and the collector looks only at what the runs themselves create."""
    gc.collect()
    gc.freeze()


torch.set_num_threads(1)  # lessons are tiny: more threads only fight the browser for the cores
st.set_page_config(page_title="attention-lab", page_icon="🔍", layout="wide")
page = st.navigation(PAGES)
links.start_run()
sidebar.sidebar()
state.messages(page.url_path)
with st.sidebar:
    studio.render_with_my_settings(state.lesson())
try:
    page.run()
finally:
    links.write_url(state.lesson())
freeze_loaded_objects()
