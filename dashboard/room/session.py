"""This browser session's place in a classroom room: teacher, student, or neither.

One registry per server (`registry()`, whatever `make_registry` picks: this process's memory
or Redis); pages never know which. What a session holds lives in `st.session_state` only:

- a teacher: the `TeacherKey` (its secret never reaches the URL or the screen);
- a student: the room's public code, whether they follow the teacher's lesson, and the
  lesson version they last applied. No name is asked or kept: a random session id.

Every action returns nothing and leaves a message (`say`) when it could not be done; a room
that closed or a key that stopped working is forgotten, so the page stops polling it.
"""

import uuid

import streamlit as st

from classroom.question import Question
from classroom.rooms import NotInRoom, NotTeacher, RoomError, RoomRegistry, make_registry
from classroom.rooms.codes import valid_session
from core import AttentionConfig, ConfigError
from dashboard.lesson import state
from dashboard.process import Held

SESSION, TEACHER, CODE = "room_session", "room_teacher", "room_code"
FOLLOW, APPLIED, PUSHED, MESSAGE = "room_follow", "room_applied", "room_pushed", "room_message"


registry: Held[RoomRegistry] = Held(make_registry)  # not a Streamlit cache (dashboard/process.py)


def session_id() -> str:
    return st.session_state.setdefault(SESSION, uuid.uuid4().hex)


def teacher_key():
    return st.session_state.get(TEACHER)


def student_code() -> str | None:
    return st.session_state.get(CODE)


def following() -> bool:
    return bool(student_code()) and st.session_state.get(FOLLOW, True)


def say(message: str, kind: str = "warning"):
    st.session_state[MESSAGE] = (kind, message)


def messages():
    """The last action's message, once."""
    kind, text = st.session_state.pop(MESSAGE, (None, ""))
    if text:
        getattr(st, kind)(text)


def _teacher_call(action, *args):
    """A teacher action; a key that stopped working is dropped (the room closed, or was taken back)."""
    key = teacher_key()
    try:
        return action(key, *args)
    except NotTeacher as err:
        st.session_state.pop(TEACHER, None)
        say(str(err))
    except RoomError as err:
        say(str(err))
    return None


# -- the teacher ----------------------------------------------------------------------------
def open_room(pin: str) -> bool:
    try:
        key = registry().open(pin, state.lesson().to_json())
    except RoomError as err:
        say(str(err))
        return False
    _become_teacher(key)
    return True


def reclaim(code: str, pin: str) -> bool:
    try:
        key = registry().reclaim(code, pin, session_id())
    except RoomError as err:
        say(str(err))
        return False
    _become_teacher(key)
    return True


def _become_teacher(key):
    ss = st.session_state
    leave()  # a teacher is not also a student (a teacher's reload opens /room?code=… and joins)
    ss[TEACHER], ss[PUSHED] = key, None
    push_lesson(state.lesson())


def push_lesson(cfg: AttentionConfig):
    """At the end of a teacher's run: the lesson, if it changed, to the room's followers."""
    if teacher_key() is None:
        return
    text = cfg.to_json()
    if st.session_state.get(PUSHED) != text and _teacher_call(registry().set_lesson, text) is not None:
        st.session_state[PUSHED] = text


def ask(question: Question):
    if _teacher_call(registry().ask, question) is not None:
        say("Asked: every student's screen shows the question now.", "toast")  # passes, unlike a box


def ask_again():
    _teacher_call(registry().ask_again)


def reveal():
    _teacher_call(registry().reveal)


def close():
    _teacher_call(registry().close)
    st.session_state.pop(TEACHER, None)


def teacher_view():
    return _teacher_call(registry().teacher_view)


# -- a student ------------------------------------------------------------------------------
def join(code: str, seat: str | None = None) -> bool:
    """Join the room `code`. `seat`: the session id a student's address carries (the Room page
    writes it there), so that after a reload or a hall failover, which start a new Streamlit
    session, the same student comes back, with the answer they sent, instead of a second member
    with a second vote. Taken only by a session that is in no room yet; one that is not a session
    id as the pages make them is ignored."""
    if seat is not None and student_code() is None and valid_session(seat):
        st.session_state[SESSION] = seat
    try:
        norm = registry().join(code, session_id())
    except RoomError as err:
        say(str(err))
        return False
    ss = st.session_state
    ss.pop(TEACHER, None)
    ss[CODE], ss[FOLLOW], ss[APPLIED] = norm, True, None
    return True


def leave():
    code = st.session_state.pop(CODE, None)
    if code:
        registry().leave(code, session_id())


def student_view():
    """What this student sees now (and their heartbeat); None once the room has gone."""
    code = student_code()
    if not code:
        return None
    try:
        return registry().student_view(code, session_id())
    except NotInRoom as err:
        st.session_state.pop(CODE, None)
        say(f"You are no longer in room {code[:4]}-{code[4:]}: {err}")
    except RoomError as err:
        say(str(err))
    return None


def set_following(on: bool):
    st.session_state[FOLLOW] = on
    if on:
        st.session_state[APPLIED] = None  # take the teacher's lesson again at once


def follow(view=None):
    """At the top of a follower's run: their lesson is the teacher's (read-only while following)."""
    if not following():
        return
    view = view or student_view()
    if view is None:
        return
    if st.session_state.get(APPLIED) == view.lesson_version and state.lesson().to_json() == view.lesson_json:
        return
    try:
        state.set_lesson(AttentionConfig.from_json(view.lesson_json))
    except ConfigError as err:  # a lesson this server cannot run (another device): keep one's own
        say(f"The teacher's lesson cannot run here: {err}")
    st.session_state[APPLIED] = view.lesson_version


def needs_full_run(view) -> bool:
    """A poll found a lesson the follower has not applied: the sidebar and page must show it."""
    return following() and view is not None and st.session_state.get(APPLIED) != view.lesson_version


def answer(view, choice):
    try:
        registry().answer(view.code, session_id(), view.round, choice)
    except RoomError as err:
        say(str(err))
        return False
    return True
