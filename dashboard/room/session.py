"""This browser session's place in a classroom room: teacher, student, or neither.

One registry per server (`registry()`, whatever `make_registry` picks: this process's memory or Redis); pages
never know which. What a session holds lives in `st.session_state` only:
- a teacher: the `TeacherKey` (its secret never reaches the URL or the screen); on the teacher's pages (the
  presenter view, the Room page) also in a cookie of this browser (`keep_teacher`), so a reload or a second tab
  of that browser is the room's teacher still (`resume_teacher`), with no PIN typed again;
- a student: the room's public code, whether they follow the teacher's lesson, and the lesson version they
  last applied. No name is asked or kept: a random session id, their seat. The seat never travels in the
  address (a student shares that): a reload or a hall failover, which start a new Streamlit session, find it in
  a cookie of this browser (`keep_seat`), so a student keeps their place and their vote and a link gives no one
  theirs. A viewer (a projector's window) has the code and no seat: not counted, no vote (`join`).
- a client, for the registry's limits: the session, and the network address when known (`client_address`),
  also the student's device: a seat cookie copied to another address is no seat there (`join`; Seats).
- after closing: the closed room's answers, and kept sets opened with their PIN (answers.py); a student's, that
  the class has ended, with the last view of the room they read (`student_view`: whether the handout was shared).
Every action returns nothing and leaves a message (`say`) when it could not be done; a room that closed or a
key that stopped working is forgotten, so the page stops polling it.
"""

import functools

import streamlit as st

from classroom.question import Question
from classroom.rooms import (
    NotInRoom,
    NotTeacher,
    RoomError,
    RoomRegistry,
    SeatElsewhere,
    TeacherKey,
    make_registry,
    normalise_code,
)
from classroom.rooms.clients import OPENED_ELSEWHERE, address_of, may_open_rooms, teacher_devices, trusted_proxies
from classroom.rooms.codes import valid_session
from classroom.rooms.presentation import Presentation
from core import AttentionConfig, ConfigError
from dashboard import display
from dashboard.lesson import state
from dashboard.process import Held

SESSION, TEACHER, CODE = "room_session", "room_teacher", "room_code"
FOLLOW, APPLIED, PUSHED, MESSAGE = "room_follow", "room_applied", "room_pushed", "room_message"
SEAT_COOKIE, ROOM_COOKIE, HIDING, VIEWER = "attention_lab_seat", "attention_lab_room", "room_hiding", "room_viewer"
REJOIN, FORGET = "room_rejoin_tried", "room_forget"
TEACHER_COOKIE, RESUMED = "attention_lab_teacher", "room_teacher_resumed"  # see keep_teacher
LAST, ENDED = "room_last_view", "room_ended"  # see student_view
SEAT_HOURS = 8  # a school day: the cookie outlives a room's idle limit, not the week

registry: Held[RoomRegistry] = Held(make_registry)  # not a Streamlit cache (dashboard/process.py)


def session_id() -> str:
    """This browser's seat: the one its cookie names (kept by `keep_seat`), else a new random one.
    Read once per Streamlit session, so a session is one member, with one vote, for its life."""
    ss = st.session_state
    if SESSION not in ss:
        seat = cookie_seat()
        # Without a cookie, the session's own key: a clear_cache message empties st.session_state, and
        # a new random seat then joined the same tab a second time ("2 joined").
        ss[SESSION] = seat if valid_session(seat) else _session_key()
    return ss[SESSION]


def _session_key() -> str:
    from dashboard import devices  # it imports this module
    return devices.session_key()


def cookie_seat():
    return st.context.cookies.get(SEAT_COOKIE)


def _cookies(**values):
    display.set_cookies(values, SEAT_HOURS)


def keep_seat():
    """A joined student's seat and room in cookies of this browser (SameSite, never in a link), so a
    reload on any page finds both (`rejoin`). On every full run: an element that leaves the page on a
    later run would be a cookie written or not by chance."""
    code = student_code()  # a viewer has no seat: the teacher's browser must not rejoin as a student
    if valid_session(session_id()) and normalise_code(code) == code and not st.session_state.get(VIEWER):
        _cookies(**{SEAT_COOKIE: session_id(), ROOM_COOKIE: code})


def rejoin():
    """Once per session, at the top of every full run: a browser that was in a room (a reload, a failover)
    is back in it, in its seat. A room that has gone, or took this browser out, is forgotten quietly."""
    ss = st.session_state
    if ss.pop(FORGET, None):
        _cookies(**{ROOM_COOKIE: None})
    if ss.get(REJOIN) or student_code() or teacher_key() is not None:
        return
    ss[REJOIN] = True
    code = normalise_code(st.context.cookies.get(ROOM_COOKIE))
    if code and valid_session(cookie_seat()) and not join(code):
        ss.pop(MESSAGE, None)
        _cookies(**{ROOM_COOKIE: None})


def teacher_cookie():
    return st.context.cookies.get(TEACHER_COOKIE)


def keep_teacher():
    """The room's teacher key in a cookie of this browser (SameSite=Strict, never in a link or on the screen), so
    a reload of a teacher's page, or another tab of this browser, takes the room back by itself (`resume_teacher`).
    On every full run of a teacher's page, as `keep_seat`. The code holds digits only and the secret letters,
    digits, - and _: the first "_" parts them."""
    key = teacher_key()
    if key is not None:
        _cookies(**{TEACHER_COOKIE: f"{key.code}_{key.secret}"})


def cookie_key() -> TeacherKey | None:
    """The teacher key this browser's cookie holds (`keep_teacher`), as written; None for none or a malformed one.
    Whether it still works is the room's to say."""
    raw = teacher_cookie()
    code, _, secret = raw.partition("_") if isinstance(raw, str) else ("", "", "")
    return TeacherKey(code, secret) if secret and normalise_code(code) == code else None


def resume_teacher():
    """Once per session, on a teacher's page: a browser whose cookie holds a room's teacher key that still works
    (the room open, its key not taken back with the PIN elsewhere) is that room's teacher again. A key that no
    longer works is forgotten, its cookie deleted."""
    ss = st.session_state
    if teacher_key() is not None or ss.get(RESUMED):
        return
    ss[RESUMED] = True
    key = cookie_key()
    if key is None:
        return
    try:
        view = registry().teacher_view(key)
    except NotTeacher:
        _cookies(**{TEACHER_COOKIE: None})
        return
    except RoomError as err:
        say(str(err))
        return
    ss[TEACHER], ss[PUSHED] = key, view.lesson_json  # the room's lesson stays until this session changes it


def client_address() -> str | None:
    """This client's network address: the connection's own, or, from a trusted proxy, the client it names in
    X-Forwarded-For (classroom/rooms/clients.py). None for a screen on this machine."""
    return address_of(st.context.ip_address, st.context.headers.get_all("X-Forwarded-For"), trusted_proxies())


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


def teacher_call(action, *args):
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
def opens_rooms() -> bool:
    """Whether this device may open a room: the lab's own computer, or a teacher's device the lab is told of
    (classroom/rooms/clients.py `may_open_rooms`). Any device may take a room back with its code and PIN."""
    return may_open_rooms(client_address(), teacher_devices())


def open_room(pin: str) -> bool:
    if not opens_rooms():  # its form is not drawn there; a run that submits it anyway is refused here
        say(OPENED_ELSEWHERE)
        return False
    try:
        key = registry().open(pin, state.lesson().to_json(), session_id(), client_address())
    except RoomError as err:
        say(str(err))
        return False
    _become_teacher(key)
    return True


def reclaim(code: str, pin: str) -> bool:
    try:
        key = registry().reclaim(code, pin, session_id(), client_address())
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
    if st.session_state.get(PUSHED) != text and teacher_call(registry().set_lesson, text) is not None:
        st.session_state[PUSHED] = text


def ask(question: Question, screen: int = 0):  # screen: the deck's that asks it (RoomRegistry.ask)
    if teacher_call(registry().ask, question, screen) is not None:
        say("Asked: every student's screen shows the question now.", "toast")  # passes, unlike a box


def ask_again():
    teacher_call(registry().ask_again)


def reveal():
    teacher_call(registry().reveal)


def teacher_view():
    return teacher_call(registry().teacher_view)


def presentation() -> Presentation:
    """Where the teacher's room's presented deck stands (classroom/rooms/presentation.py); none without a room."""
    view = teacher_view()
    return view.presentation if view is not None else Presentation()


def present(changed: Presentation):
    """Keep where the presented deck stands in the room: a reload, another tab and the projector read it there."""
    teacher_call(registry().present, changed)


# -- a student ------------------------------------------------------------------------------
def join(code: str, viewer: bool = False) -> bool:
    """Join the room `code` in this browser's seat (`session_id`). A seat (its cookie) that joined from
    another address is no seat here: this browser takes a new seat, one of its own device's. `viewer` (a
    projector's window): no seat, so not counted and no vote (RoomRegistry.view), and no lesson followed."""
    try:
        try:
            got = (registry().view if viewer else registry().join)(code, session_id(), client_address())
        except SeatElsewhere:  # a join's only
            st.session_state[SESSION] = _session_key()  # this tab's own: a clear_cache then finds the same seat
            got = registry().join(code, session_id(), client_address())
    except RoomError as err:
        say(str(err))
        return False
    ss = st.session_state
    for old in (TEACHER, ENDED, LAST):
        ss.pop(old, None)
    ss[CODE], ss[FOLLOW], ss[APPLIED], ss[VIEWER] = got.code if viewer else got, not viewer, None, viewer
    return True


def leave():
    code = st.session_state.pop(CODE, None)
    st.session_state[FORGET] = True  # a reload must not bring the student back
    if code:
        registry().leave(code, session_id())


def student_view():
    """What this student sees now (and their heartbeat); None once the room has gone. A room that closed (or
    expired) leaves ENDED: its code and the last view this session read of it (whether the teacher shared the
    handout), for the page to say calmly that the class has ended; a seat taken out is told so."""
    code, ss = student_code(), st.session_state
    if not code:
        return None
    try:
        view = (registry().view(code, session_id(), client_address()) if ss.get(VIEWER)
                else registry().student_view(code, session_id()))
    except NotInRoom as err:
        ss.pop(CODE, None)
        ss[FORGET] = True
        if _closed(code):
            ss[ENDED] = (code, ss.pop(LAST, None))
        else:
            say(f"You are no longer in room {code[:4]}-{code[4:]}: {err}")
        return None
    except RoomError as err:
        say(str(err))
        return None
    ss[LAST] = view
    return view


def _closed(code: str) -> bool:
    """The room this session was in has closed, as opposed to its seat having been taken out."""
    try:
        return not registry().is_open(code)
    except RoomError:  # the hall's store does not answer: the plain message
        return False


def open_kind(view) -> str | None:
    """The kind of the room's open question (asked, not revealed), else None: what hides depends on it
    alone (classroom/hiding.py), not on the lesson a screen shows (another seed still decides it)."""
    return view.kind if view is not None and view.round > 0 and not view.revealed else None


def open_question() -> str | None:
    """`open_kind` for a room's student or projector window (None for anyone else), kept for the polls."""
    kind = open_kind(student_view()) if student_code() else None
    st.session_state[HIDING] = kind
    return kind


def hiding_changed(view) -> bool:
    """A poll found a question opened or revealed since the page was drawn: it must be drawn again."""
    return bool(student_code()) and open_kind(view) != st.session_state.get(HIDING)


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
    if st.session_state.get(APPLIED) == view.lesson_version and state.lesson().to_json() == lesson_of(view.lesson_json):
        return
    try:
        state.set_lesson(AttentionConfig.from_json(view.lesson_json))
    except ConfigError as err:  # a lesson this server cannot run (another device): keep one's own
        say(f"The teacher's lesson cannot run here: {err}")
    st.session_state[APPLIED] = view.lesson_version


@functools.lru_cache(maxsize=64)
def lesson_of(lesson_json: str) -> str:
    """A room's lesson as `AttentionConfig.to_json` writes it (a room keeps the JSON it was given)."""
    try:
        return AttentionConfig.from_json(lesson_json).to_json()
    except ConfigError:  # a lesson this server cannot run (another device): compared as it is
        return lesson_json


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
