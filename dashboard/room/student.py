"""A student in a room (the Room page, made for a phone): the teacher's question with its answer
hidden, their own answer (changeable until the reveal), then the truth beside it.

The panel polls the room every STUDENT_POLL_SECONDS (a fragment): that is also the student's
heartbeat ("present" on the teacher's screen). Before the reveal the page holds only the
prompt and the choices; the answer key arrives with the reveal.
"""

from dataclasses import replace
from functools import lru_cache

import streamlit as st

from classroom.rooms import format_code, normalise_code
from classroom.rooms.records import STUDENT_POLL_SECONDS
from core import AttentionConfig, ConfigError
from dashboard import navigation
from dashboard.app_pages import predict
from dashboard.charts import questions as qc
from dashboard.display import QUESTION_BAR  # the page's CSS fixes it at the bottom of the screen
from dashboard.lesson import rerun, state
from dashboard.present import handout
from dashboard.room import session as room_session
from dashboard.room.teacher import take_back_form
from dashboard.text import plain

ROOM_PAGE = "app_pages/room.py"


def code_from_link():
    """/room?code=… (a scanned QR code): join at once, unless this screen already runs or is in that room.
    Anything else in the address (a `seat` from an old link) is ignored: a student's seat is not in links."""
    code = state.view_from_url("code", str)
    if not code:
        return
    key, norm = room_session.teacher_key(), normalise_code(code)
    if norm is not None and norm in (getattr(key, "code", None), room_session.student_code()):
        return
    room_session.join(code)


def join_form(where: str):
    """Type the code from the teacher's screen."""
    with st.form(f"room_join_{where}", border=where == "page"):
        code = st.text_input("Room code", key=f"room_join_code_{where}", placeholder="7K3M-Q9TX", max_chars=32,
                             help="The 8 letters and digits on the teacher's screen.")
        if st.form_submit_button("Join the room", type="primary" if where == "page" else "secondary"):
            if room_session.join(code):
                st.rerun()  # the page drew the form, so a new run draws the room (docs/lesson.md, What runs again)
            room_session.messages()  # why not, right under the form


def follow_switch(where: str):
    """Follow the teacher's lesson (read-only), or detach to explore and come back later."""
    key = f"room_follow_{where}"
    st.session_state[key] = room_session.following()
    st.toggle("Follow the teacher's lesson", key=key, on_change=lambda: room_session.set_following(
        st.session_state[key]), help="On: your lesson is the teacher's and changes with it. Off: explore on your "
                                     "own; switch it on again to come back.")


@lru_cache(maxsize=64)
def lesson_line(lesson_json: str) -> str:
    """The teacher's lesson in one line (parsed once per lesson: every poll shows it)."""
    try:
        cfg = AttentionConfig.from_json(lesson_json)
    except ConfigError:
        return ""
    words = {"random": "random", "manual": "hand-entered"}
    tokens = f"{cfg.num_tokens} {words[cfg.source]} tokens" if cfg.source in words else " ".join(cfg.tokens)
    return (f"The teacher's lesson: {plain(tokens[:80])} · {cfg.num_heads} head{'s' * (cfg.num_heads > 1)} of "
            f"d_k = {cfg.d_k} · mask: {cfg.mask} · ÷√d_k {'on' if cfg.scale else 'off'} · "
            f"temperature {cfg.temperature:g}")


def page():
    """The Room page of a joined student."""
    code = room_session.student_code()
    st.subheader(f"Room {format_code(code)}", anchor=False)
    follow_switch("page")
    panel()
    leave_button("room_leave")
    with st.expander("Is this your room? Take it back with its PIN"):
        take_back_form(code)  # a teacher's reload reopens /room?code=… and lands here


@rerun.poll(STUDENT_POLL_SECONDS)
def panel():
    view = room_session.student_view()
    if room_session.student_code() is None:
        return True  # the room has gone: the page says so and stops polling
    if room_session.needs_full_run(view):
        room_session.follow(view)  # nothing else on this page draws the lesson: no full run needed
    if view is None:
        room_session.messages()
        return
    st.caption(lesson_line(view.lesson_json) if room_session.following() else "You are exploring a lesson of your own.")
    room_session.messages()
    handout.student(view)  # once the teacher shares it and the deck has no question left to ask
    if view.round == 0:
        st.info("Waiting for the teacher's question…")
        return
    with st.container(border=True):
        st.markdown(f"**Question {view.round}:** {plain(view.prompt)}")
        if view.revealed:
            revealed(view)
        else:
            answering(view)


def gone_or_moved(view) -> bool:
    """A full run is needed: the room has gone (the page then stops polling it), a follower's
    teacher changed the lesson (the sidebar and the page must show it), or a question opened or
    was revealed (the page hides, or shows again, what decides it)."""
    return (room_session.student_code() is None or room_session.needs_full_run(view)
            or room_session.hiding_changed(view))


def answering(view):
    pick = f"room_pick_{view.round}"
    if pick not in st.session_state and view.my_answer is not None:  # after a reload: what was sent
        st.session_state[pick] = list(view.my_answer) if view.multiple else view.my_answer[0]
    predict.answer_widget(view, pick, "Your answer", lettered=True)  # the projector's letters
    st.button("Send my answer", key=f"room_send_{view.round}", type="primary", on_click=send, args=(view, pick))
    if view.my_answer is not None:
        sent = ", ".join(f"{qc.letter(i)}. {view.choices[i]}" for i in view.my_answer)
        st.success(f"Sent: {plain(sent)}. You can change it until the teacher reveals the answer.")


def send(view, pick: str):
    picked = st.session_state.get(pick)
    if picked is None or picked == []:
        room_session.say("Pick an answer first.")
        return
    room_session.answer(view, picked)


def revealed(view):
    predict.show_truth(view.question, view.my_answer, lettered=True)  # the letters the phone asked with
    if view.my_answer is None:
        st.caption("You did not answer this one.")
    predict.reveal_chart(view.question, f"room_reveal_{view.round}")


def ended():
    """A student whose room has closed (or expired): the class has ended, said calmly, not as a mistyped code's
    warning; and the handout, if the teacher shared it, as the last view of the room read it. With the room
    closed no question is open, so it is offered even if the class ended before the deck's last question."""
    code, last = st.session_state.get(room_session.ENDED) or (None, None)
    if code is None:
        return
    st.success(f"The class has ended: room {format_code(code)} has closed.",
               icon=":material/school:")
    if last is not None:
        handout.student(replace(last, round=0), ended=True)


def leave_button(key: str):
    """Leaving takes a second tap (a popover asks first): a stray tap on a phone must not end a
    student's place in the room."""
    with st.popover("Leave the room", icon=":material/logout:"):
        st.markdown("Leave this room? You can join again with its code.")
        st.button("Yes, leave the room", key=key, on_click=room_session.leave)


def sidebar_status():
    """A joined student on another page, in the sidebar: the room and the follow switch; leaving
    last, well apart from everything a student taps often (the question's bar is on the page)."""
    st.markdown(f"**Room {format_code(room_session.student_code())}**")
    follow_switch("sidebar")
    leave_button("room_leave_sidebar")


@rerun.poll(STUDENT_POLL_SECONDS)
def question_bar():
    """A joined student on any other page: while the room has a question, a bar at the bottom of the
    screen links to it, so it is one tap away on a phone, with the sidebar closed. Drawn in the page
    (not the sidebar, which covers most of a phone's screen while open and stays open after a link)."""
    view = room_session.student_view()
    if gone_or_moved(view):
        return True
    room_session.messages()
    if view is None or not view.round:
        return
    if view.revealed:
        label = f"Question {view.round}: see the answer"
    elif view.my_answer is None:
        label = f"Question {view.round} is open: answer it"
    else:
        label = f"Question {view.round}: answer sent (change it until the reveal)"
    with st.container(key=QUESTION_BAR):
        st.page_link(navigation.page(ROOM_PAGE), label=label, icon=":material/front_hand:", width="stretch")
