"""What stays after class (docs/classroom.md): the room's answers as CSV, downloadable at any time and,
from the tab that closed the room, after closing; closing, which asks whether to keep them; and the
answer sets kept in the lab, each opened (for a download) or deleted with its room's PIN.

This session holds the closed room's CSV (`CLOSED`), the kept sets it opened (`KEPT_OPEN`) and the CSV the
presenter view read last (`READ`), in st.session_state only. Every file is named by the lab (a room code,
an id it drew), never by a visitor.
"""

import time
from datetime import UTC, datetime
from functools import partial

import streamlit as st

from classroom.rooms import RoomError, format_code
from core.limits import MAX_FIELD_CHARS
from dashboard.room import session as room_session

CLOSED, KEPT_OPEN = "room_closed_csv", "room_kept_open"
READ = "room_csv_read"  # (room code, its answers as CSV, when read): the presenter's read_then_download


def close(keep: bool = False):
    """Close the room; its answers stay in this tab as CSV for a download, and in the lab too if `keep`."""
    text = room_session.teacher_call(room_session.registry().close, keep)
    if text is None and room_session.teacher_key() is not None:
        return  # refused (too many kept sets): the room stays open, the message says why
    st.session_state.pop(room_session.TEACHER, None)
    if text is not None:
        st.session_state[CLOSED] = text
        if keep:
            room_session.say("The room is closed; its answers are kept in the lab until you delete them (with "
                             "its PIN).", "success")


def closed_csv() -> str | None:
    """The answers of the room this tab closed last, as CSV."""
    return st.session_state.get(CLOSED)


def _read(key, rooms) -> str:
    """The room's answers as CSV at this moment (no Streamlit state: it may run in another thread)."""
    try:
        return rooms.answers_csv(key)
    except RoomError as err:
        return f"error\r\n{err}\r\n"  # the room closed meanwhile: the file says so


def answers_csv_source():
    """For st.download_button: a function (it runs when the button is clicked, in another thread, with
    no Streamlit state) that reads the room's answers as CSV at that moment."""
    return partial(_read, room_session.teacher_key(), room_session.registry())


def file_name(code: str) -> str:
    return f"room-{code}-answers.csv"


CSV_HELP = ("Question, choice, count, when, and the seats' tags; no names, no addresses. The answer key only once "
            "revealed.")


def read_then_download(code: str):
    """The answers as CSV for the presenter view, whose clock reruns every 2 s: read on a click, then offered
    as a plain download of that text. A deferred download (`answers_csv_source`) lost its file to those reruns."""
    if st.button("Read the room's answers for a CSV", key="present_csv_read", help=CSV_HELP):
        st.session_state[READ] = (code, _read(room_session.teacher_key(), room_session.registry()), time.time())
    read = st.session_state.get(READ)
    if read and read[0] == code:
        st.download_button(f"Download the answers as read at {_clock(read[2])} (CSV)", read[1],
                           file_name=file_name(code), mime="text/csv", key="present_csv", on_click="ignore")


def _clock(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%H:%M:%S UTC")


def kept_list() -> tuple:
    try:
        return room_session.registry().kept_list()
    except RoomError as err:
        room_session.say(str(err))
        return ()


def open_kept(kept_id: str, pin: str) -> bool:
    """A kept set's CSV into this session, if `pin` is its room's."""
    try:
        text = room_session.registry().kept_csv(kept_id, pin, room_session.session_id(), room_session.client_address())
    except RoomError as err:
        room_session.say(str(err))
        return False
    st.session_state.setdefault(KEPT_OPEN, {})[kept_id] = text
    return True


def opened_kept(kept_id: str) -> str | None:
    return st.session_state.get(KEPT_OPEN, {}).get(kept_id)


def delete_kept(kept_id: str, pin: str) -> bool:
    try:
        room_session.registry().delete_kept(kept_id, pin, room_session.session_id(), room_session.client_address())
    except RoomError as err:
        room_session.say(str(err))
        return False
    st.session_state.get(KEPT_OPEN, {}).pop(kept_id, None)
    room_session.say("Those kept answers are deleted.", "toast")
    return True


KEEP = {"keep": "Keep them in the lab (open them later with this room's PIN, until you delete them)",
        "delete": "Delete them (download the CSV first if you want it)"}


def after_class(code: str):
    """The answers as CSV at any time; closing, which asks whether to keep them; the kept sets."""
    left, right = st.columns(2)
    with left:
        st.download_button("Download the answers (CSV)", data=answers_csv_source(), file_name=file_name(code),
                           mime="text/csv", key="room_csv", on_click="ignore", help=CSV_HELP)
    with right, st.popover("Close the room"):
        st.markdown("Everyone leaves the room. Its answers:")
        st.radio("Its answers", list(KEEP), format_func=KEEP.get, index=None, key="room_keep",
                 label_visibility="collapsed")
        st.button("Close it for everyone", key="room_close", type="primary", on_click=_close)
    kept_answers()


def _close():
    choice = st.session_state.get("room_keep")
    if choice not in KEEP:
        room_session.say("Choose first whether to keep the answers.")
        return
    close(keep=choice == "keep")


def _closed_at(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M UTC")


def kept_answers():
    """Answer sets kept after closing: each opens (for a download) or goes with its room's PIN."""
    kept = kept_list()
    if not kept:
        return
    by_id = {k.id: k for k in kept}
    with st.expander(f"Kept answers ({len(kept)})"):
        with st.form("room_kept", clear_on_submit=True, border=False):
            chosen = st.selectbox("Answers kept from", list(by_id), key="room_kept_id", format_func=lambda i: (
                f"room {format_code(by_id[i].code)}, closed {_closed_at(by_id[i].closed)}: {by_id[i].rounds} "
                f"round{'s' * (by_id[i].rounds != 1)}, {by_id[i].answers} answer{'s' * (by_id[i].answers != 1)}"))
            pin = st.text_input("That room's PIN", type="password", key="room_kept_pin", max_chars=MAX_FIELD_CHARS)
            left, right = st.columns(2)
            if left.form_submit_button("Open"):
                open_kept(chosen, pin)
            if right.form_submit_button("Delete"):
                delete_kept(chosen, pin)
        room_session.messages()
        for kept_id, info in by_id.items():
            text = opened_kept(kept_id)
            if text is not None:
                st.download_button(f"Download room {format_code(info.code)}'s answers, closed "
                                   f"{_closed_at(info.closed)} (CSV)", data=text, mime="text/csv",
                                   file_name=file_name(info.code), key=f"room_kept_csv_{kept_id}",
                                   on_click="ignore")


def closed_download():
    """The answers of the room this tab closed, as CSV (whether or not they were kept)."""
    text = closed_csv()
    if text is not None:
        st.download_button("Download the answers of the room you closed (CSV)", data=text, mime="text/csv",
                           file_name="room-answers.csv", key="room_closed_download", on_click="ignore")
