"""attention-lab's dashboard: `make run` (this machine) or `make classroom` (the local network).

The sidebar holds the lesson (shared by every page, mirrored in the URL); each page in
`app_pages/` shows one idea about self-attention, drawn from `core.run_trace`.
"""

import gc

import streamlit as st
import torch

from dashboard import display, links, room_session, room_sidebar, sidebar, state, studio

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
    st.Page("app_pages/compare.py", title="Compare two lessons", url_path="compare"),
    st.Page("app_pages/room.py", title="Classroom room", url_path="room"),
    # The first page also answers at its own name, as a teacher would write it on a slide.
    st.Page("app_pages/attention.py", title="Scaled dot-product attention", url_path="attention",
            visibility="hidden"),
]


@st.cache_resource(show_spinner=False)
def freeze_loaded_objects():
    """Once per server, at the end of the first run (everything a page needs is imported by then).

    With torch, Altair and pandas loaded, a full garbage collection walks some 250 000
    long-lived objects: about 160 ms. Streamlit ran one after every run (runner.postScriptGC,
    now off in .streamlit/config.toml) and Python's own collector still runs full ones now and
    then; frozen, those objects are skipped and it looks only at what the runs create."""
    gc.collect()
    gc.freeze()


torch.set_num_threads(1)  # lessons are tiny: more threads only fight the browser for the cores
page = st.navigation(PAGES)
links.start_run()
display.page_config()  # projector mode folds the sidebar away
with st.sidebar:
    display.sidebar()
room_session.follow()  # a student who follows the teacher: the lesson is the teacher's (read-only)
room_sidebar.block(on_room_page=page.url_path == "room")
if not room_session.following():
    sidebar.sidebar()
state.messages(page.url_path)
with st.sidebar:
    if page.url_path == "trained-heads":  # its video is the trained model's, rendered from the page itself
        studio.video_on_the_page("A video of these heads")
    else:
        studio.render_with_my_settings(state.lesson())
try:
    page.run()
finally:
    links.write_url(state.lesson())
    room_session.push_lesson(state.lesson())  # a teacher's lesson, to the room's followers
freeze_loaded_objects()
