"""The sidebar's room block, on every page: open or join a room; in one, its status.

A teacher opens a room here (the Room page then shows its code and QR code); a student joins
with a code. While a student follows the teacher, the lesson's own controls give way to a
line saying whose lesson it is (it is read-only until they detach).
"""

import streamlit as st

from classroom.rooms import format_code
from classroom.rooms.clients import OPENED_ELSEWHERE
from core.limits import MAX_FIELD_CHARS
from dashboard import navigation
from dashboard.room import session as room_session
from dashboard.room import student as room_student

ROOM_PAGE = room_student.ROOM_PAGE


def block(on_room_page: bool):
    with st.sidebar:
        room_session.rejoin()
        key, code = room_session.teacher_key(), room_session.student_code()
        viewer = code is not None and st.session_state.get(room_session.VIEWER)
        if key is not None:
            st.markdown(f"**Your room: {format_code(key.code)}**")
            if not on_room_page:
                st.page_link(navigation.page(ROOM_PAGE), label="The room's code and answers", icon="📣")
        elif viewer:  # a projector's window: no seat, so nothing of a student's (no bar, no polls of its own)
            st.markdown(f"**Room {format_code(code)}**: this window shows it (no seat).")
        elif code is not None:
            room_session.keep_seat()  # joined from this sidebar, on any page: a reload keeps the place
            room_session.open_question()  # before the poll below, which compares with this full run's
            if on_room_page:  # the page itself has the switch and the question
                st.markdown(f"**Room {format_code(code)}**")
            else:
                room_student.sidebar_status()
            if room_session.following():
                st.caption("You follow the teacher: the lesson is theirs (read-only). Switch off to explore.")
        elif not on_room_page:  # the Room page has the same forms, larger
            if ended := st.session_state.get(room_session.ENDED):  # the Room page has the handout, if shared
                st.caption(f"The class has ended: room {format_code(ended[0])} has closed.")
            start()
        else:
            return  # nothing drawn: no divider under the page list
        st.divider()
    if code is not None and key is None and not viewer and not on_room_page:
        room_student.question_bar()  # on the page, above its title; the CSS fixes it at the screen's bottom


def start():
    with st.expander("Classroom room"):
        room_student.join_form("sidebar")
        if not room_session.opens_rooms():  # taking a room back is on the Room page
            st.caption(OPENED_ELSEWHERE)
            return
        with st.form("room_open_sidebar", clear_on_submit=True, border=False):
            pin = st.text_input("Teachers: choose a PIN to open a room", type="password", key="room_open_pin_side",
                                max_chars=MAX_FIELD_CHARS,
                                help="6 or more characters; you need it only to take the room back from another "
                                     "screen.")
            if st.form_submit_button("Open a room"):
                if room_session.open_room(pin):
                    st.switch_page(navigation.page(ROOM_PAGE))
                room_session.messages()
