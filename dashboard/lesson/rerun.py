"""The rerun policy: how a move of any control reaches the screen, in this one module.

A page is its introduction (the same for every lesson) plus a lesson view: `view(lesson_view)`, where
`lesson_view(cfg, trace)` draws what depends on the lesson. The view runs as one fragment (KEY):

- a page control inside it (a head button, a step, "Predict first") reruns the view alone, as any
  widget in a fragment does;
- a sidebar control whose new value shows nowhere else in the sidebar (`PAGE_ONLY`, drawn in a
  small fragment of their own: `settings`) hands its run to the view from its callback
  (`after_change`): the sidebar and the introduction stay as the browser has them;
- any other change (a preset, the number of heads, a room's lesson...) runs the whole app. A change
  the sidebar must show that reaches the view some other way (a page button that loads a lesson)
  is caught at the top of the view (`_sidebar_is_stale`), which then asks for a full run.

Around every view, here and nowhere else: the messages about the lesson, then the view, then the
address (`state.write_url`, in a `finally`, so no early return of a page can skip it) and the
lesson for a room's followers. Pages never call `st.rerun` or write the address (the room's three
forms rerun the app themselves: docs/lesson.md, "What runs again", says why).

While a room's question is open, a page, a deck's screen or the presenter's view that can show what
decides it (classroom/hiding.py, one table) shows a note instead, for a student or a projector's window:
`hidden`, called here around every page run and every lesson view, and by the projector for each screen.

Pages that show a video or an image (their catalogue record says `runs_whole`) run whole, outside any
fragment: a video drawn inside a fragment lost its media file when a poll of the render's progress ended
(the browser got 404; tests/studio/test_browser_studio.py). Such a page may still hand a part that shows no media
to `part`, whose own controls then rerun it alone.

What is kept outside the session (a room, a render, a training run) reaches the screen by polling:
a part made with `poll` reruns itself on a timer, and asks for a full run when what it found
changes more than the part (docs/lesson.md, "What runs again").
"""

import functools

import streamlit as st

from classroom import hiding
from dashboard import data, devices
from dashboard.lesson import state
from dashboard.room import doors
from dashboard.room import session as room_session

KEY = "lesson_view"
# Lesson settings whose value shows in the sidebar only in their own widget. Not here: the
# sentence (its box may say "Not in use"), the number of heads (the d_k line under it), d_model
# (the heads on offer), the source and the mask (the controls under them); the number of random
# tokens only where no padding slider or custom grid depends on it (`page_only`).
PAGE_ONLY = frozenset({"temperature", "seed", "scale", "positional", "device"})

_SHOWN = "rerun_sidebar_shows"  # what the sidebar showed when it was last drawn
_ALLOWED = "rerun_alone_allowed"  # whether the sidebar lets the view rerun alone (set by each full run)
_MAY = "rerun_view_alone"  # whether a lesson change may rerun the view alone: the view exists and is allowed
SIDEBAR_VIDEO = "sidebar-video"  # the sidebar's "Render with my settings" and its video: a row of classroom/hiding.py
_DOOR = "rerun_door"  # the row of classroom/hiding.py's table of what this session shows (a page, a screen)


def _charged(fragment):
    """`fragment` with its CPU time charged to this session's device (dashboard/devices.py, `spending`): a
    fragment's run alone is a run; inside a whole run it is that run's. The name stays: it is the fragment's id."""

    @functools.wraps(fragment)
    def run(*args, **kwargs):
        with devices.spending():
            return fragment(*args, **kwargs)

    return run


def page_only(field: str) -> bool:
    """Whether a change of `field` that worked shows nowhere in the sidebar but its own widget."""
    return field in PAGE_ONLY or (field == "seq_len" and state.lesson().mask in ("none", "causal", "window"))


def _in_room() -> bool:
    """Whether this session is a room's teacher or student: only then do the room's functions run
    around a view (most sessions are in no room, and a slider move should not pay for one)."""
    ss = st.session_state
    return ss.get(room_session.TEACHER) is not None or bool(ss.get(room_session.CODE))


def _sidebar_shows() -> tuple:
    if not _in_room():
        return state.version(), False, None, None
    key = room_session.teacher_key()
    return (state.version(), room_session.following(), key.code if key is not None else None,
            room_session.student_code())


def sidebar_drawn(names_the_lesson: bool):
    """app.py, after drawing the sidebar in a full run. The view may not rerun alone while the
    sidebar shows something that names the lesson (a render's progress or video): that must follow
    the lesson too."""
    st.session_state[_ALLOWED] = not names_the_lesson
    st.session_state[_SHOWN] = _sidebar_shows()


def _sidebar_is_stale() -> bool:
    """Whether the sidebar, as last drawn, no longer shows the lesson and the room (False where no
    sidebar was drawn at all: asking for a full run there would ask again forever)."""
    return _SHOWN in st.session_state and st.session_state[_SHOWN] != _sidebar_shows()


def settings(draw):
    """The sidebar's settings that show nowhere else in it (PAGE_ONLY), drawn by `draw()`, as a small
    fragment of their own. A move of one then starts a run of this fragment instead of the whole
    app before its callback hands the run on (`after_change`): in the browser the start of a whole
    run redraws every element of the page, a fragment's only its own (docs/performance.md)."""
    st.fragment(_charged(draw))()


def after_change(field: str, shown: bool = True):
    """From a sidebar control's callback, after a change of `field`. One that worked and that the
    widget already shows as the lesson has it (`shown`) reruns the view alone if nothing else in the
    sidebar shows it. Otherwise the whole app runs: the widget's own run, or, for a setting drawn in
    `settings` (whose own run would be of that fragment alone), a run asked for here."""
    if shown and page_only(field) and st.session_state.get(_MAY):
        st.session_state[_SHOWN] = _sidebar_shows()
        st.rerun(KEY)  # the view alone, after this callback
    if field in PAGE_ONLY:
        st.rerun()  # the whole app: a refusal to say, a page that runs whole, a render that names the lesson


def run(page, here):
    """app.py: run the chosen page (`here`: its catalogue record), unless a room's open question hides it
    (`hidden`); a page that runs whole gets the lesson's messages and the address around it (a page in a
    fragment gets them from `view`)."""
    st.session_state[_MAY] = False  # until the page draws its view (a new process has no view at all)
    door = here.url
    if here.runs_whole:
        _around(lambda: hidden(door, page.title) or page.run())
    elif hides(door):
        _around(lambda: _say_hidden(door, page.title))
    else:
        st.session_state[_DOOR] = door  # its view, rerun alone, checks again (`view`)
        page.run()


def view(lesson_view, with_trace: bool = True):
    """Called once by each page that does not run whole, after its introduction: `lesson_view(cfg, trace)`
    (`lesson_view(cfg)` with `with_trace=False`, for a page that computes its own numbers) as the one
    fragment that a lesson control or a page control reruns alone."""

    def fragment():
        if _sidebar_is_stale():
            st.rerun()  # e.g. a page button loaded a lesson: the sidebar must show it too
        cfg = state.lesson()
        door = st.session_state.get(_DOOR, "default-page")  # set by `run`, or the projector's screen
        _around(lambda: hidden(door) or (lesson_view(cfg, data.trace(cfg)) if with_trace else lesson_view(cfg)))

    st.session_state[_MAY] = st.session_state.get(_ALLOWED, False)
    st.fragment(_charged(fragment), key=KEY)()


def part(body, *args, every: float | None = None):
    """Part of a page that runs whole (the Trained heads page's open head) as a fragment of its own:
    its controls rerun `body(*args)` alone, and each of its runs ends by writing the address.

    `every`: seconds between the part's own reruns (a film that plays). `body` returns the timer it
    wants next (None: none); when that differs from the one the part was made with, one full run
    remakes the part with it: a fragment's timer is fixed when the fragment is made."""

    def fragment(*args):
        try:
            door = st.session_state.get(_DOOR)  # a question opened since the page's run: the page hides it
            wanted = None if door is not None and hidden(door) else body(*args)
        finally:
            state.write_url(state.lesson())
        if wanted != every:
            st.rerun()  # a new timer: only a full run makes the part again

    st.fragment(_charged(fragment), run_every=every)(*args)


def poll(every: float):
    """Decorate `draw(*args)`, a part of a page that shows what is kept outside this session, as a
    fragment that reruns itself every `every` seconds. `draw` returns True when what it found changes
    more than the part (the room has gone, the job has ended): then the whole app runs again."""

    def decorate(draw):
        @functools.wraps(draw)  # the fragment's id comes from draw's name: one per polled part
        def fragment(*args):
            if draw(*args):
                st.rerun()  # the whole app: the part cannot draw outside itself

        return st.fragment(_charged(fragment), run_every=every)

    return decorate


def hides(door: str) -> bool:
    """Whether `door` (a page's url path, a kind of deck screen, a view: classroom/hiding.py) must hide
    what it shows from this session: a room's student or projector window with a question open that the door
    can decide, or any session of a device that is not a teacher's while some room has one open
    (dashboard/room/doors.py). A room's teacher, and the presenter's picture of the next screen, are never hidden
    from."""
    if doors.teachers_next_picture():
        return False
    kinds = doors.open_kinds()
    if _in_room():
        kinds |= {room_session.open_question()} - {None}
    else:
        st.session_state.pop(room_session.HIDING, None)  # what open_question() would say: nothing open
    return any(hiding.hides(door, kind) for kind in kinds)


def hidden(door: str, title: str = "") -> bool:
    """`hides(door)`, and then the note that says so instead (under `title`, if given). The door is kept
    for the page's parts that rerun alone (`view`, `part`)."""
    st.session_state[_DOOR] = door
    return hides(door) and _say_hidden(door, title)


def _say_hidden(door: str, title: str) -> bool:
    """The note instead of what `door` shows; True."""
    st.session_state[_DOOR] = door
    if title:
        st.title(title, anchor=False)
    own = st.session_state.get(room_session.HIDING)  # this session's room's open question, if any
    if own is not None and hiding.hides(door, own):
        st.info("Your room's question is open: what goes here shows again once the teacher reveals the answer.")
    else:  # another room's, or a tab with no seat on a device that is not a teacher's
        st.info("A question is open in a class on this lab: what goes here shows again once its teacher reveals "
                "the answer.")
    return True


def _around(body):
    """The messages about the lesson, `body()`, then the address and the lesson for the room."""
    state.start_page()
    state.messages()
    try:
        body()
    finally:
        cfg = state.lesson()
        state.write_url(cfg)
        if _in_room():
            room_session.push_lesson(cfg)
