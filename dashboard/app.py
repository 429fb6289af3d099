"""attention-lab's dashboard: `make run` (this machine) or `make classroom` (the local network).

The sidebar holds the lesson (shared by every page, mirrored in the URL); each page in
`app_pages/` shows one idea about self-attention, drawn from `core.run_trace`.
"""

import gc

import streamlit as st
import torch

from dashboard import display, links, navigation, room_session, room_sidebar, sidebar, state, studio


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
page = st.navigation(navigation.pages())
links.start_run()
display.page_config()  # projector mode folds the sidebar away
with st.sidebar:
    display.sidebar()
room_session.follow()  # a student who follows the teacher: the lesson is the teacher's (read-only)
room_sidebar.block(on_room_page=page.url_path == "room")
if not room_session.following():
    sidebar.sidebar()
state.messages(page.url_path)
studio.keep_video_settings()
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
