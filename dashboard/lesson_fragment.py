"""The part of every run that shows the lesson, as one fragment that can rerun alone.

app.py draws the navigation, the display settings, the room block, the lesson's controls and
the video block (all in the sidebar), then calls the fragment: the page, the messages about
the lesson and the address. A lesson
control whose new value changes nothing else in the sidebar (`PAGE_ONLY`) reruns only the
fragment (`rerun_alone`, `st.rerun` with the fragment's key): the moved widget already shows
its value, and the rest of the sidebar stays as the browser has it, so the server runs and the
browser redraws far less.

Anything else that changed what the sidebar shows (a page button that loads a lesson, the room
page's follow switch) is caught at the top of the fragment (`sidebar_is_stale`), which then
asks for a full run.
"""

import streamlit as st

from . import room_session, state

KEY = "lesson_page"
_DRAWN = "lesson_fragment_drawn"  # what the sidebar showed when it was last drawn (or told it shows)
_IN_FRAGMENT = "lesson_fragment_on"  # whether the page of the last full run runs in the fragment

# Lesson settings whose value shows in the sidebar only in their own widget. Not here: the
# sentence (its box may say "Not in use"), the number of heads (the d_k line under it), d_model
# (the heads on offer), the source and the mask (the controls under them); the number of random
# tokens only where no padding slider or custom grid depends on it (`page_only`).
PAGE_ONLY = frozenset({"temperature", "seed", "scale", "positional", "device"})

# Pages that show a video or an image (a media file) run whole, outside the fragment: a video
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
    while the sidebar shows something that names the lesson (a render's progress or video)."""
    if url_path is not None:
        st.session_state[_IN_FRAGMENT] = in_fragment(url_path) and not names_the_lesson
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


def run_page(page):
    """Run the page `st.navigation` chose, in a full run or again in the fragment's own rerun.

    Streamlit lets a page run once per `st.navigation` call and marks it runnable there; the
    fragment's own rerun does not call `st.navigation`, so the page is marked runnable again
    here, as `st.navigation` would (tests/dashboard/test_lesson_fragment.py reruns it)."""
    page._can_be_called = True
    page.run()
