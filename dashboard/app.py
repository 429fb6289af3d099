"""attention-lab's dashboard: `make run` (this machine) or `make classroom` (the local network).

Each full run draws the sidebar (the room block, the display settings, the lesson's controls, the
video block), then the chosen page from `app_pages/`. What a page draws from the lesson is its
lesson view, which the rerun policy (lesson/rerun.py) can rerun alone.
"""

import streamlit as st

from classroom.catalogue import ROOM
from dashboard import devices, display, navigation, process, serve
from dashboard.lesson import rerun, sidebar, state
from dashboard.room import session as room_session
from dashboard.room import sidebar as room_sidebar
from dashboard.video import studio

serve.install()  # for a server started with plain `streamlit run` (make run uses dashboard/serve.py)
devices.admit_session()  # one device holds a bounded number of sessions: an extra one runs nothing more


def main():
    """One whole run; its CPU time is charged to this session's device (dashboard/devices.py)."""
    page = navigation.choose()
    here = navigation.record(page)  # the chosen page's facts (classroom/catalogue.py)
    state.start_run()
    display.page_config()  # projector mode folds the sidebar away
    room_session.follow()  # a student who follows the teacher: the lesson is the teacher's (read-only)
    # The room block first: the browser loads each widget kind's code on first use and draws a stand-in
    # until then, so a block above the room's form that grows later would move its button under the
    # teacher's click (issue 28); above it there is only the page list.
    room_sidebar.block(on_room_page=here is ROOM)
    with st.sidebar:
        display.sidebar()
        st.divider()
    if not room_session.following() and here.lesson_controls:  # a deck sets the lesson screen by screen
        sidebar.sidebar()
    with st.sidebar:
        if here.video == "page":  # its video is the page's own (the trained model's, a training run's)
            studio.video_on_the_page(here.video_label)
        elif here.video == "lesson" and rerun.hides(rerun.SIDEBAR_VIDEO):  # a video of the lesson would decide it
            st.caption("Lecture video: hidden while a question is open; it shows again once the teacher reveals "
                       "the answer.")
        elif here.video == "lesson":
            studio.render_with_my_settings(state.lesson)
            studio.job_panel("mine", current=state.lesson())
    rerun.sidebar_drawn(names_the_lesson=studio.has_job("mine"))
    state.app_views_done()
    rerun.run(page, here)
    process.freeze_loaded_objects()
    process.give_back_memory()


with devices.spending():
    main()
