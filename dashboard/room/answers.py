"""What stays after class (docs/classroom.md): the room's answers as two CSVs (a row per answer; a row per
student, for a gradebook), downloadable at any time and, from the tab that closed the room, after closing;
closing, which asks whether to keep them; and the answer sets kept in the lab, each opened (for a download)
or deleted with its room's PIN.

This session holds the closed room's files (`CLOSED`), the kept sets it opened (`KEPT_OPEN`) and the files
the presenter view read last (`READ`), in st.session_state only. Every file is named by the lab (a room
code and a date), never by a visitor.
"""

import time
from datetime import UTC, datetime
from functools import partial

import streamlit as st

from classroom.rooms import RoomError, format_code
from classroom.rooms.answer_files import AnswerFiles, file_name
from core.limits import MAX_FIELD_CHARS
from dashboard.room import session as room_session

CLOSED, KEPT_OPEN = "room_closed_csv", "room_kept_open"
READ = "room_csv_read"  # (room code, its AnswerFiles, when read): the presenter's read_then_download
FILES = {"answers": "Answers (a row per answer)", "by-student": "By student (for a gradebook)"}


def close(keep: bool = False):
    """Close the room; its answers stay in this tab as CSV for a download, and in the lab too if `keep`."""
    files = room_session.teacher_call(room_session.registry().close, keep)
    if files is None and room_session.teacher_key() is not None:
        return  # refused (too many kept sets): the room stays open, the message says why
    st.session_state.pop(room_session.TEACHER, None)
    if files is not None:
        st.session_state[CLOSED] = files
        if keep:
            room_session.say("The room is closed; its answers are kept in the lab until you delete them (with "
                             "its PIN).", "success")


def closed_files() -> AnswerFiles | None:
    """The answers of the room this tab closed last, as the two CSVs."""
    return st.session_state.get(CLOSED)


def _read(key, rooms, what: str | None = None):
    """The room's answers at this moment (no Streamlit state: it may run in another thread): both files, or
    the text of one (`what`: "answers" or "by-student")."""
    try:
        files = rooms.answer_files(key)
    except RoomError as err:
        text = f"\ufefferror\r\n{err}\r\n"  # the room closed meanwhile: the file says so
        files = AnswerFiles(getattr(key, "code", ""), time.time(), text, text)
    return files if what is None else _text(files, what)


def _text(files: AnswerFiles, what: str) -> str | None:
    return files.answers if what == "answers" else files.students


def answers_csv_source(what: str = "answers"):
    """For st.download_button: a function (it runs when the button is clicked, in another thread, with
    no Streamlit state) that reads the room's answers as the CSV `what` at that moment."""
    return partial(_read, room_session.teacher_key(), room_session.registry(), what)


CSV_HELP = ("Answers: a row per answer (round, screen, question, the answer, right or not, the right answer, "
            "seconds to answer, the seat's tag). By student: a row per seat, a column per round, 1 right and 0 "
            "wrong, for a gradebook. No names, no addresses; the answer key only once revealed, or after closing.")


def downloads(files: AnswerFiles, key: str, label: str = "Download"):
    """A download button for each of the two files (a set kept before the second existed has one)."""
    for what, title in FILES.items():
        text = _text(files, what)
        if text is not None:
            st.download_button(f"{label}: {title} (CSV)", text, file_name=files.name(what), mime="text/csv",
                               key=f"{key}_{what}" if what != "answers" else key, on_click="ignore")


def read_then_download(code: str):
    """The answers as CSV for the presenter view, whose clock reruns every 2 s: read on a click, then offered
    as plain downloads of that text. A deferred download (`answers_csv_source`) lost its file to those reruns."""
    if st.button("Read the room's answers for a CSV", key="present_csv_read", help=CSV_HELP):
        st.session_state[READ] = (code, _read(room_session.teacher_key(), room_session.registry()), time.time())
    read = st.session_state.get(READ)
    if read and read[0] == code:
        downloads(read[1], "present_csv", f"Download the answers as read at {_clock(read[2])}")


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
        files = room_session.registry().kept_files(kept_id, pin, room_session.session_id(),
                                                   room_session.client_address())
    except RoomError as err:
        room_session.say(str(err))
        return False
    st.session_state.setdefault(KEPT_OPEN, {})[kept_id] = files
    return True


def opened_kept(kept_id: str) -> AnswerFiles | None:
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
        now = time.time()
        for what, title in FILES.items():
            st.download_button(f"Download the answers: {title} (CSV)", data=answers_csv_source(what),
                               file_name=file_name(code, now, what), mime="text/csv", on_click="ignore",
                               key="room_csv" if what == "answers" else f"room_csv_{what}", help=CSV_HELP)
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
            files = opened_kept(kept_id)
            if files is not None:
                downloads(files, f"room_kept_csv_{kept_id}",
                          f"Room {format_code(info.code)}, closed {_closed_at(info.closed)}")


def closed_download():
    """The answers of the room this tab closed, as the two CSVs (whether or not they were kept)."""
    files = closed_files()
    if files is not None:
        downloads(files, "room_closed_download", "The room you closed")
