"""The part of a page that shows the lesson, as one fragment that can rerun alone.

app.py draws the navigation, the display settings, the room block, the lesson's controls and
the video block (all in the sidebar), then runs the page. The page draws its introduction (the
same for every lesson) and hands the rest to `lesson`: the messages about the lesson, the part
of the page drawn from it, and the address, as one fragment. A lesson control whose new value
changes nothing else in the sidebar (`PAGE_ONLY`) reruns only that fragment (`rerun_alone`,
`st.rerun` with the fragment's key): the moved widget already shows its value, and the sidebar
and the page's introduction stay as the browser has them, so the server runs and the browser
redraws far less. Those controls sit in a small sidebar fragment of their own
(`sidebar.page_only_controls`), so that the run their move starts is that fragment's, not the app's.

Anything else that changed what the sidebar shows (a page button that loads a lesson, the room
page's follow switch) is caught at the top of the fragment (`sidebar_is_stale`), which then
asks for a full run.
"""

import streamlit as st

from dashboard.lesson import links, state
from dashboard.room import session as room_session

KEY = "lesson_page"
_DRAWN = "lesson_fragment_drawn"  # what the sidebar showed when it was last drawn (or told it shows)
_MAY = "lesson_fragment_may"  # whether this full run's page may run its lesson in the fragment
_IN_FRAGMENT = "lesson_fragment_on"  # whether the page of the last full run did

# Lesson settings whose value shows in the sidebar only in their own widget. Not here: the
# sentence (its box may say "Not in use"), the number of heads (the d_k line under it), d_model
# (the heads on offer), the source and the mask (the controls under them); the number of random
# tokens only where no padding slider or custom grid depends on it (`page_only`).
PAGE_ONLY = frozenset({"temperature", "seed", "scale", "positional", "device"})

# Pages that show a video or an image (a media file) run whole, outside the fragment (app.py draws
# their messages and address around them; every other page calls `lesson`): a video
# drawn inside the fragment lost its file after the render's progress poll ended (the browser got
# 404 for it, Streamlit 1.67; tests/studio/test_browser_studio.py), so the sidebar's render
# progress and video are drawn outside it too (app.py).
WHOLE_RUNS = frozenset({"lecture", "trained-heads", "room"})


def in_fragment(url_path: str) -> bool:
    return url_path not in WHOLE_RUNS


def page_only(field: str) -> bool:
    """Whether a change of `field` that worked shows nowhere in the sidebar but its own widget."""
    return field in PAGE_ONLY or (field == "seq_len" and state.lesson().mask in ("none", "causal", "window"))


def _sidebar_shows() -> tuple:
    key = room_session.teacher_key()
    return (state.version(), room_session.following(), key.code if key is not None else None,
            room_session.student_code())


def sidebar_drawn(url_path: str | None = None, names_the_lesson: bool = False):
    """After the sidebar is drawn in a full run (on the page at `url_path`): remember what it shows,
    and whether a lesson change may rerun the fragment alone: not on a page that runs whole, nor
    while the sidebar shows something that names the lesson (a render's progress or video). It
    may only once the page has set the fragment up (`lesson`)."""
    if url_path is not None:
        st.session_state[_MAY] = in_fragment(url_path) and not names_the_lesson
        st.session_state[_IN_FRAGMENT] = False
    st.session_state[_DRAWN] = _sidebar_shows()


def sidebar_is_stale() -> bool:
    """At the top of the fragment: something changed what the sidebar should show since it was drawn."""
    return st.session_state.get(_DRAWN) != _sidebar_shows()


def rerun_alone():
    """From a sidebar control's callback, after a `page_only` change that worked: rerun the fragment
    only (on a page that runs whole, the callback returns and the app reruns whole)."""
    sidebar_drawn()  # the moved widget shows the new value itself
    if st.session_state.get(_IN_FRAGMENT):
        st.rerun(KEY)


def lesson(body=None):
    """Called once by every page that does not run whole, after its introduction: the messages
    about the lesson, then `body()` (the page's part drawn from the lesson; None for a page whose
    content is the same for every lesson), then the address, as the fragment that `rerun_alone`
    reruns. In the fragment's own reruns Streamlit calls the fragment again, not the page, so
    the introduction stays as the browser has it."""

    def fragment():
        if sidebar_is_stale():
            st.rerun()  # e.g. a page button loaded a lesson: the sidebar must show it too
        draw_lesson(body)

    st.session_state[_IN_FRAGMENT] = st.session_state.get(_MAY, False)
    st.fragment(fragment, key=KEY)()


def draw_lesson(body, here: str = ""):
    """The messages, `body()` and the address: inside the fragment, or around a page that runs
    whole (`here`, its url path, tells the messages which page they are on)."""
    links.start_page()
    state.messages(here)
    try:
        if body is not None:
            body()
    finally:
        links.write_url(state.lesson())
        room_session.push_lesson(state.lesson())  # a teacher's lesson, to the room's followers
