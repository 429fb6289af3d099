"""The presenter's view of a deck (the teacher's laptop, or a second window): the screen's notes, the next
screen's title, the time elapsed against the time planned, and the keys that step the deck.

It steers the projector the way Follow works: each step sets the room's lesson to the screen's and carries
where the deck stands with it (dashboard/present/deck.py); the projector's window, a member of the room,
polls it, in one process or across a hall's processes alike. A question screen is asked in the room as
the deck reaches it, and revealed from here. The notes stay in this session: they never enter the room.

The view is the room's teacher's: a session that does not hold a room's teacher key (it opened the room, or
took it back with the code and PIN) gets the forms to open one or take one back, never the notes, the clock,
the steps or the handout. A projector's window needs no key: it shows what the projector shows.
"""

import time

import streamlit as st

from classroom.decks import Deck
from classroom.question import QuestionError
from classroom.rooms import format_code
from dashboard.lesson import rerun, state
from dashboard.present import deck as decks
from dashboard.present import handout as handouts
from dashboard.present.projector import LINK_NOTICE, keys, unready
from dashboard.room import answers as room_answers
from dashboard.room import session as room_session
from dashboard.room import teacher as room_teacher
from dashboard.text import deck_markdown

AT = "present_at"  # the screen the presenter stands on (1 = the first)
STARTED = "present_started"  # when the clock started (time.time(): a hall's processes share no monotonic clock)
CLOCK_SECONDS = 2.0
LINKED = "present_linked"  # the screen the link named, until this session is the room's teacher


def go(deck: Deck, number: int):
    """Stand on screen `number`: its lesson becomes the teacher's; in a room, its question is asked and the
    projector is told where the deck stands."""
    number = min(max(1, number), len(deck.screens))
    screen = deck.screens[number - 1]
    if st.session_state.get(AT, number) != number:
        st.session_state.pop(LINK_NOTICE, None)  # the link's notice stays until the first step
    st.session_state[AT] = number
    st.session_state.setdefault(STARTED, time.time())
    if not screen.unready:  # an unready screen's lesson is a stand-in: the lesson stays, nothing is asked
        state.set_lesson(screen.lesson)
    if room_session.teacher_key() is None:
        return
    if screen.kind == "question" and not screen.unready:
        _ask(screen, number)
    st.session_state[room_session.CARRIED] = _place(deck, number)
    room_session.push_lesson(state.lesson())  # at once, not at the end of the run: the projector polls for it


def _place(deck: Deck, number: int) -> dict:
    """What the room's lesson carries for the deck: where it stands, and the handout if the teacher shares it."""
    return {decks.PLACE_KEY: f"{decks.name_of(deck)}:{number}", **handouts.carried(deck)}


def _ask(screen, number: int):
    """Ask the screen's question (screen `number` of the deck) in the room, unless it is the room's current
    question already (a step back and forth does not start a new round)."""
    try:
        question = decks.question_of(screen)
    except QuestionError as err:
        room_session.say(f"The question of this screen cannot be asked: {err}")
        return
    if not _is_current(question):
        room_session.ask(question, number)


def _is_current(question) -> bool:
    now = room_session.teacher_view()
    return now is not None and now.current is not None and now.current.question.key() == question.key()


def _asked(screen) -> bool:
    """This question screen's question is the room's current one: its answers and reveal belong here (a
    screen whose question could not be asked must not show the previous question's panel)."""
    try:
        return _is_current(decks.question_of(screen))
    except QuestionError:
        return False


def view(deck: Deck, linked: int | None):
    """The presenter's view; `linked`: the screen its link named, if any. The room's teacher's only."""
    ss = st.session_state
    if linked is not None:
        ss[LINKED] = linked  # kept until the view is the teacher's: the room opened, it stands there
    if not _is_teacher():
        return _not_teacher(deck)
    linked = ss.pop(LINKED, None)
    if AT not in ss or (linked is not None and linked != ss[AT]):
        go(deck, linked or 1)
    number = ss[AT]
    if ss.get(room_session.CARRIED) != _place(deck, number):
        go(deck, number)  # a room opened (or taken back), or the handout shared, since the last step
    key = room_session.teacher_key()
    if key is None:  # a step's teacher action found the key stopped working
        return _not_teacher(deck)
    screen, last = deck.screens[number - 1], len(deck.screens)
    st.markdown(f"**Presenting:** {deck_markdown(deck.title, inline=True)}")
    with st.container(horizontal=True, vertical_alignment="center", key="present_presenter_row"):
        keys(deck, number, go, "presenter", visible=True)
        st.markdown(f"### {number} / {last} · {deck_markdown(screen.title, inline=True)}")
    if screen.unready:
        st.warning(unready(screen))
    left, right = st.columns([3, 2], gap="large")
    with left:
        st.caption(f"Notes · a {screen.kind} screen · {screen.minutes:g} min planned")
        st.markdown(deck_markdown(screen.notes) if screen.notes else "*No notes for this screen.*")
    with right:
        nxt = deck.screens[number] if number < last else None
        st.markdown(f"**Next:** {deck_markdown(nxt.title, inline=True)} ({nxt.kind})" if nxt
                    else "**Next:** the end of the deck.")
        clock(deck, number)
        handouts.teacher(deck)
    room_session.messages()
    url = f"present?deck={decks.name_of(deck)}&code={key.code}&projector=1"
    st.link_button("Open the projector window", url, help="Open it on the projector's screen; it shows the "
                   "screen this view stands on, without the notes.")
    st.caption(f"Room {format_code(key.code)}: the projector window and students' phones follow this view.")
    if screen.kind == "question" and _asked(screen):
        room_teacher.live()  # the class's answers and the reveal
    room_answers.read_then_download(key.code)  # the Room page's CSV, read on a click: the clock reruns


def _is_teacher() -> bool:
    """This session holds a room's teacher key that still works (asked of the room: a key taken back with the
    PIN on another screen, or of a room that closed, is dropped here, and the page says why)."""
    if room_session.teacher_key() is None:
        return False
    room_session.teacher_view()
    return room_session.teacher_key() is not None


def _not_teacher(deck: Deck):
    """What anyone else gets: no notes, no clock, no steps, no handout; the way to become the room's teacher."""
    st.markdown(f"**Presenting:** {deck_markdown(deck.title, inline=True)}")
    how = ("Open a room with a PIN of your choice, or take yours back with its code and PIN." if
           room_session.opens_rooms() else "Take your room back with its code and PIN.")  # else: where rooms open
    st.info("The presenter view (the screens' notes, the clock, the steps and the handout) is the room's "
            f"teacher's. {how} The projector's window, which shows the deck without the notes, needs neither.")
    room_session.messages()
    room_teacher.start_forms()


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


@rerun.poll(CLOCK_SECONDS)
def clock(deck: Deck, number: int):
    """Time elapsed against the time planned up to the end of this screen."""
    elapsed = time.time() - st.session_state.get(STARTED, time.time())
    before = 60 * sum(s.minutes for s in deck.screens[:number - 1])
    until = before + 60 * deck.screens[number - 1].minutes
    if elapsed > until:
        pace = f"{_minutes(elapsed - until)} behind"
    elif elapsed < before:
        pace = f"{_minutes(before - elapsed)} ahead"
    else:
        pace = "on time"
    st.markdown(f"**{_minutes(elapsed)}** elapsed · planned {_minutes(before)}–{_minutes(until)} for this screen, "
                f"{_minutes(60 * deck.minutes)} in all · **{pace}**")
    st.button("Restart the clock", key="present_clock_restart",
              on_click=lambda: st.session_state.update({STARTED: time.time()}))
