"""attention-lab's dashboard: `make run` (this machine) or `make classroom` (the local network).

The sidebar holds the lesson (shared by every page, mirrored in the URL); each page in
`app_pages/` shows one idea about self-attention, drawn from `core.run_trace`. What shows the
lesson is one fragment that a lesson control can rerun alone (lesson_fragment.py).
"""

import streamlit as st
import torch

from dashboard import display, navigation, process, serve
from dashboard.lesson import links, sidebar, state
from dashboard.lesson import rerun as lesson_fragment
from dashboard.room import session as room_session
from dashboard.room import sidebar as room_sidebar
from dashboard.video import studio

serve.install()  # for a server started with plain `streamlit run` (make run uses dashboard/serve.py)
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
with st.sidebar:
    if page.url_path == "trained-heads":  # its video is the trained model's, rendered from the page itself
        studio.video_on_the_page("A video of these heads")
    else:
        studio.render_with_my_settings(state.lesson)
        studio.job_panel("mine", current=state.lesson())
lesson_fragment.sidebar_drawn(page.url_path, names_the_lesson=studio.has_job("mine"))
links.app_views_done()


if lesson_fragment.in_fragment(page.url_path):
    page.run()  # the page hands what it draws from the lesson to lesson_fragment.lesson
else:  # a page that shows videos or images: run whole (lesson_fragment.WHOLE_RUNS says why)
    lesson_fragment.draw_lesson(page.run, page.url_path)
process.freeze_loaded_objects()
