"""What a session may see while a class runs, decided by its device, not by its tab (docs/classroom.md, "What
each page and screen can show while a question is open").

A student has one device and as many tabs as they like: a second tab with no seat, a seat left to look and
taken again, a room joined only after looking, a projector link without the room's code. So what hides while a
room's question is open is every room's open question for every session of a device that is not a teacher's
(`open_kinds`), and a link to a presented deck from such a device goes no further than the class (read by
dashboard/present/projector.py). A teacher's device is the lab's own computer or one named as a teacher's
(`room_session.opens_rooms`); a room's teacher (the session holding its key) is never hidden from either.
"""

import streamlit as st

from classroom.rooms import RoomError
from dashboard.room import session as room_session

BROWSER_TEACHES = "room_browser_teaches"  # code -> whether this browser's teacher cookie holds that room's key
# "now" or "next" in a window that is one of the presenter's pictures of the screens (set by the Present page for a
# teacher's device or browser only: dashboard/present/projector.py)
PICTURE = "present_preview"


def teachers_next_picture() -> bool:
    """This window is the presenter's picture of the next screen: it shows that screen as the projector will once
    it gets there, after the open question's reveal (the first → reveals), so nothing in it hides."""
    return st.session_state.get(PICTURE) == "next"


def teacher_device() -> bool:
    """Whether this session's device is a teacher's: the lab's own computer or a device named as a teacher's."""
    return room_session.opens_rooms()


def browser_teaches(code: str) -> bool:
    """Whether this browser holds room `code`'s working teacher key in its cookie (`room_session.keep_teacher`),
    read once per session and room: the presenter's pictures of the screens, opened from the presenter's own
    browser, may stand ahead of the class (dashboard/present/projector.py). It makes this session no teacher."""
    known = st.session_state.setdefault(BROWSER_TEACHES, {})
    if code not in known:
        key = room_session.cookie_key()
        known[code] = False
        if key is not None and key.code == code:
            try:
                known[code] = room_session.registry().teacher_view(key) is not None
            except RoomError:
                pass
    return known[code]


def open_kinds() -> frozenset:
    """The kinds of every open room's open question, for a session on a device that is not a teacher's; none for
    a room's teacher or a teacher's device. A store that does not answer hides nothing: no one can answer then
    either."""
    if room_session.teacher_key() is not None or teacher_device():
        return frozenset()
    try:
        return room_session.registry().open_kinds()
    except RoomError:
        return frozenset()
