"""The classroom room: a teacher asks the class about the lesson, students answer on their phones.

Peer instruction (Crouch et al., Am. J. Phys. 72:835, 2004): everyone predicts, sees the
class's answers, discusses, answers again, then sees the truth. Students open this page from
the QR code (`/room?code=…`) or type the code; the teacher opens a room from the sidebar.
"""

import streamlit as st

from dashboard.lesson import state
from dashboard.room import session as room_session
from dashboard.room import student as room_student
from dashboard.room import teacher as room_teacher

st.title("Classroom room", anchor=False)
room_session.resume_teacher()  # a teacher's reload (the cookie of keep_teacher): the room, not a seat in it
room_student.code_from_link()
room_session.messages()
key, code = room_session.teacher_key(), room_session.student_code()
if key is not None:
    state.view_param("code", key.code, None)  # the public code only: the address bar is projected too
    room_session.keep_teacher()
    room_teacher.page()
elif code is not None:
    state.view_param("code", code, None)
    room_session.keep_seat()  # a reload or a failover keeps this student's place: a cookie, never the address
    room_student.page()
else:
    room_student.ended()  # the room this browser was in has closed: calmly, with the handout if it was shared
    st.markdown("Your teacher shows a **room code** and a QR code. Scan it, or type the code here.")
    room_student.join_form("page")
    st.divider()
    room_teacher.start_forms()
