"""The teacher's Room page, made to be projected: the room's code and QR code, large; the
question to ask; the class's answers arriving live; the reveal; ask again, before and after.

Nothing secret is drawn: the teacher's key stays in the session, and the answer key, the
truth and who was right appear only after the reveal (the projector shows this screen). Students
are listed by tag and device number only, never by address. The seats (lock, seats per device,
devices taken out) are here too (docs/classroom.md, Seats); the answers as CSV, closing and the
kept answer sets in answers.py.
"""

import streamlit as st

from classroom.kinds import LESSON_KINDS
from classroom.rooms import format_code
from classroom.rooms.address import AddressError, lan_address, parse_host, qr_svg, room_url, served_host
from classroom.rooms.clients import OPENED_ELSEWHERE, TAG_HEX, trusted_proxies
from classroom.rooms.records import TEACHER_POLL_SECONDS
from core.limits import MAX_FIELD_CHARS
from dashboard.app_pages import predict
from dashboard.charts import questions as qc
from dashboard.lesson import rerun, state
from dashboard.room import answers as room_answers
from dashboard.room import session as room_session
from dashboard.text import plain

HOST = "room_host"  # session: the address the teacher typed for students' phones
RAISED = "room_seats_raised"  # session: the panel raised the seats per device (live: a full run shows it)


UNREACHABLE = ("Phones cannot reach this lab, which listens on this computer only (as `make run` starts it): "
               "serve the class with `make classroom` instead.")


def address(code: str) -> str | None:
    """The room's address for students' phones: the host the teacher typed, else the lab's own on the local
    network; None where none works (a host typed wrong, said here; a lab phones cannot reach: `reachable`)."""
    port = int(st.get_option("server.port") or 8501)
    typed = st.session_state.get(HOST, "").strip()
    if typed:
        try:
            host, port = parse_host(typed, port)
        except AddressError as err:
            st.error(str(err))
            return None
    else:
        host = served_host(st.get_option("server.address"), bool(trusted_proxies()))
        if host is None:
            return None
    return room_url(host, port, code)


def reachable() -> bool:
    """Whether phones can open the lab: it listens beyond this computer, or the teacher typed the host they
    open (a proxy in front of it)."""
    return bool(st.session_state.get(HOST, "").strip()) or served_host(
        st.get_option("server.address"), bool(trusted_proxies())) is not None


def header(code: str):
    """The code and the QR code, large enough to read and scan from the back of the room; on a lab that
    phones cannot reach (`make run`), the code and why, with no address where nothing listens."""
    qr, words = st.columns([2, 3])
    url, phones = address(code), reachable()
    with words:
        if phones:
            st.markdown("Students: scan the QR code, or open the lab and type the room code")
        else:
            st.warning(UNREACHABLE)
        st.markdown(f"# {format_code(code)}")
        if url:
            st.code(url, language=None)
        with st.expander("Phones cannot open this address?" if phones else "Phones reach this lab through a proxy "
                         "or a host name? Type it"):
            st.text_input("Host name or IP address the phones can reach (and :port if it differs)", key=HOST,
                          max_chars=MAX_FIELD_CHARS, placeholder=f"{lan_address()}:{st.get_option('server.port')}",
                          help="E.g. behind a proxy or with a DNS name: lab.school.example or 192.168.1.20:8501.")
    if url:
        qr.image(qr_svg(url), width=360)


def page():
    key = room_session.teacher_key()
    st.caption("You run this room. Changes to your lesson reach every student who follows it within 2 s.")
    header(key.code)
    live()
    seats()
    st.divider()
    ask_panel()
    st.divider()
    room_answers.after_class(key.code)


@rerun.poll(TEACHER_POLL_SECONDS)
def live(compact: bool = False):
    """Who is here, and the current question's answers (refreshed every second). `compact` (the presenter view,
    below its pictures): no prompt (its heading and picture show it) and shorter rows, so that the answers fit
    above the fold of a laptop's window."""
    if st.session_state.pop(RAISED, False):
        return True  # the seats per device were raised here: the Seats block, a full run's, shows the new bound
    view = room_session.teacher_view()
    if view is None and room_session.teacher_key() is None:
        return True  # the key stopped working: the page says so and shows the way back in
    room_session.messages()
    if view is None:
        return
    st.markdown(f"**{view.present}** student{'s' * (view.present != 1)} present (seen in the last "
                f"{room_session.registry().limits.present_seconds:g} s), {view.members} joined.")
    refused(view)
    now = view.current
    if now is None:
        st.info("No question yet: choose one below and ask it.")
        roster(view)
        return
    if not compact:
        st.markdown(f"**Question {now.number}:** {plain(now.question.prompt)}")
    rounds_left(view)
    rounds = [view.before, now] if view.before is not None else [now]
    for col, tally in zip(st.columns(len(rounds)), rounds, strict=True):
        with col:
            when = "before discussion" if tally is view.before else "after discussion" if view.before else "answers"
            title, top = f"Round {tally.number}, {when}", max(view.present, tally.answered)
            row_px = qc.COMPACT_ROW_PX if compact else qc.ROW_PX
            # lettered as the projector and the phones letter the choices: "I picked B" reads here as it is said
            predict.draw(("answers-teacher", tally.question.key(), title, top, row_px),
                         qc.answers_histogram(tally, title, top, lettered=True, row_px=row_px),
                         key=f"room_hist_{tally.number}")
            st.caption(count_line(tally, view.present))
    roster(view)
    if now.revealed:
        predict.show_truth(now.question, None)
        predict.reveal_chart(now.question, f"room_teacher_reveal_{now.number}")
        return
    left, right = st.columns(2)
    left.button("Reveal the answer", key="room_reveal", type="primary", on_click=room_session.reveal,
                help="Every student's screen shows the truth beside their own answer.")
    right.button("Ask again (after discussion)", key="room_again", on_click=room_session.ask_again,
                 help="The same question in a new round: the two histograms side by side.")


def refused(view):
    """Browsers the room refused a seat because their network address already held its bound, how many, and one
    click that raises the bound by the most from one address (no address is shown: the screen is projected)."""
    n, seats = view.refused, view.seats_per_device
    if not n:
        return
    one = view.refused_most == n  # all from one address
    whose = "its network address" if n == 1 else "their network address" if one else "their network addresses"
    st.warning(f"{n} browser{' was' if n == 1 else 's were'} refused a seat: {whose} already had {seats} seat"
               f"{'s' * (seats != 1)}{'' if one else ' each'} in this room.")
    more = min(seats + view.refused_most, room_session.registry().limits.max_members)
    if more > seats:
        st.button(f"Allow {more} seats per address", key="room_raise_seats", on_click=_raise_seats, args=(more,),
                  help="Phones behind one network address (a shared Wi-Fi's router) or a shared tablet need more "
                       "seats per address; a student's spare tabs take them too. Those refused then join again.")


def _raise_seats(seats: int):
    _teach("set_seats", seats)
    st.session_state[RAISED] = True


def rounds_left(view):
    """Near the room's bound of rounds, how many are left (none is dropped: at the bound an ask is refused)."""
    left = view.rounds_left
    if left <= room_session.registry().limits.rounds_warning:
        more = (f"it can ask {left} more" if left else "it asks no more") + " (every answer is kept)"
        st.warning(f"This room has asked {view.max_rounds - left} of its {view.max_rounds} questions: {more}. "
                   "For more, download the answers, close the room and open a new one.")


def count_line(tally, present: int) -> str:
    """What the histogram counts, said exactly: answers of students present now, and the others apart."""
    line = f"{tally.answered_present} answered of {present} present"
    if gone := tally.answered - tally.answered_present:
        line += f" (the chart also counts {gone} answer{'s' * (gone != 1)} of students no longer present)"
    return line + (f"; {tally.correct} of {tally.answered} right." if tally.revealed else ".")


def roster(view):
    """Who is in the room, by tag and device number (no names, no addresses: the screen is projected);
    remove one by its whole tag, or every seat of its device."""
    locked = " · locked" if view.locked else ""
    with st.expander(f"Students in the room ({view.members}){locked}"):
        if view.roster:
            st.dataframe([{"student": m.tag, "device": m.device, "present": m.present,
                           "last seen": "left (answers kept)" if m.seen_ago is None else f"{m.seen_ago:.0f} s ago",
                           "answered": m.answered} for m in view.roster], hide_index=True, height=180)
        with st.form("room_remove", clear_on_submit=True, border=False):
            st.text_input(f"A student's tag, all {TAG_HEX} digits as listed (copy it from the table)",
                                key="room_remove_tag", max_chars=2 * TAG_HEX, placeholder="3F2A9C0B71D4E658")
            left, right = st.columns(2)  # callbacks: they run before the poll shows its messages
            left.form_submit_button("Remove", on_click=_remove, args=(False,),
                                    help="This seat leaves with its answers; its device gets no new seat in this "
                                         "room (a cleared cookie does not help).")
            right.form_submit_button("Remove and block its device", on_click=_remove, args=(True,),
                                     help="Every seat of that device leaves, with their answers.")


def _remove(block: bool):
    tag = room_session.teacher_call(room_session.registry().remove, st.session_state.get("room_remove_tag"), block)
    if tag is not None:  # the registry's: 16 hex digits, nothing else
        what = "and every seat of its device are" if block else "is"
        room_session.say(f"Student {tag} {what} out of the room, with their answers.", "toast")


def _teach(action: str, *args):
    """A teacher action on the room's seats (a RoomRegistry method); a refusal is said on the page."""
    room_session.teacher_call(getattr(room_session.registry(), action), *args)


def seats():
    """The room's doors: locked or open to new students, seats per device, devices taken out."""
    view = room_session.teacher_view()
    if view is None:
        return
    limits = room_session.registry().limits
    with st.expander(f"Seats: {view.seats_per_device} per device" + (", locked" if view.locked else "")):
        st.session_state["room_lock"] = view.locked
        st.toggle("Lock the room: no new students (those in the room stay)", key="room_lock",
                  on_change=lambda: _teach("lock", st.session_state["room_lock"]))
        st.session_state["room_seats"] = view.seats_per_device
        st.number_input("Seats per device (a device is a network address: raise it for shared tablets, or a "
                        "class whose phones share one address)", key="room_seats", min_value=1,
                        max_value=limits.max_members, step=1,
                        on_change=lambda: _teach("set_seats", int(st.session_state["room_seats"])),
                        help="A device holds at most this many seats, and its answers count at most this many "
                             "times in a round, even after its seats leave.")
        if view.blocked:
            st.caption(f"{view.blocked} device{'s' * (view.blocked != 1)} taken out: no new seat from "
                       f"{'them' if view.blocked != 1 else 'it'} in this room.")
            st.button("Let them join again", key="room_unblock", on_click=_teach, args=("unblock",),
                      help="Removed seats stay out; their devices may take new seats.")


def ask_panel():
    """Pick a question about the current lesson; its answer is not shown here."""
    st.subheader("Ask the class", anchor=False)
    cfg = state.lesson()
    H = cfg.num_heads
    head = 0
    if H > 1:
        with st.columns([1, 3])[0]:
            head = st.selectbox("Head", range(H), key="room_head", format_func=lambda h: f"head {h + 1}")
    question = predict.lesson_question("room", cfg, LESSON_KINDS, head=head)
    if question is None:
        return
    st.markdown(f"**{plain(question.prompt)}**")
    st.caption("Choices: " + plain(" · ".join(question.choices)))
    left, right = st.columns(2)
    left.button("Ask the class", key="room_ask", type="primary", on_click=room_session.ask, args=(question,))
    right.button("Another question", key="room_next", on_click=_next)


def _next():
    st.session_state["predict_seed_room"] = predict.seed("room") + 1


def start_forms():
    """Open a room (choose its PIN), or take one back on a new screen or after a reload. A device that may not
    open a room (room_session.opens_rooms) is told where rooms are opened instead of the first form."""
    left, right = st.columns(2)
    with left:
        if room_session.opens_rooms():
            open_form()
        else:
            st.info(OPENED_ELSEWHERE)
    with right:
        take_back_form()
    room_answers.closed_download()
    room_answers.kept_answers()


def open_form():
    with st.form("room_open_page", clear_on_submit=True):
        st.markdown("**Teachers: open a room**")
        pin = st.text_input("Choose a PIN (6 or more characters)", type="password", key="room_open_pin",
                            max_chars=MAX_FIELD_CHARS,
                            help="You need it only to take the room back from another screen.")
        if st.form_submit_button("Open a room"):
            if room_session.open_room(pin):
                st.rerun()  # the page drew the forms, so a new run draws the room (docs/lesson.md, What runs again)
            room_session.messages()


def take_back_form(code: str = ""):
    """The room back on this screen with its PIN: the old screen's key stops working."""
    with st.form("room_reclaim", clear_on_submit=True, border=not code):
        if not code:
            st.markdown("**Teachers: take your room back** (after a reload, or on another laptop)")
            code = st.text_input("Your room's code", key="room_reclaim_code", max_chars=32)
        pin = st.text_input("The room's PIN", type="password", key="room_reclaim_pin", max_chars=MAX_FIELD_CHARS)
        if st.form_submit_button("Take it back"):
            if room_session.reclaim(code, pin):
                st.rerun()  # as above: the room instead of the forms; a refusal is said under the form
            room_session.messages()
