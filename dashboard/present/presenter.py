"""The presenter's view of a deck (the teacher's laptop, or a second window): the screen's notes, previews of this
screen and the next, the time elapsed against the time planned, and the keys that step the deck (lectern.py).

It steers the projector through the room: each step sets the room's lesson to the screen's and keeps where the
deck stands with the room (classroom/rooms/presentation.py: the screen, the blank, the clock, the handout
shared); the projector's window, a member of the room, polls it, in one process or across a hall's processes
alike. Where the deck stands and its clock live with the room, not with this session: a reload, another tab of
this browser (the teacher key's cookie, room/session.py) or another laptop (the PIN) stands where it stood. A
question screen is asked in the room as the deck reaches it; on it, "next" reveals first, then advances. The
notes stay in this session: they never enter the room.

The view is the room's teacher's: a session that does not hold a room's teacher key (it opened the room, took it
back with the code and PIN, or its browser's cookie holds the key) gets the forms to open one or take one back,
never the notes, the clock, the steps or the handout. A projector's window needs no key: it shows what the
projector shows.
"""

import html
import time
from dataclasses import replace
from urllib.parse import urlencode

import streamlit as st

from classroom import hiding
from classroom.decks import Deck, Screen
from classroom.question import QuestionError
from classroom.rooms import format_code
from classroom.rooms.records import Tally
from dashboard import display
from dashboard.lesson import rerun, state
from dashboard.present import deck as decks
from dashboard.present import handout as handouts
from dashboard.present import lectern, ready, steer
from dashboard.present.projector import LINK_NOTICE, keys
from dashboard.room import answers as room_answers
from dashboard.room import session as room_session
from dashboard.room import teacher as room_teacher
from dashboard.text import deck_markdown, plain

AT = "present_at"  # the screen this session last stood on (the room's record is where the deck stands)
CLOCK_SECONDS = 2.0
LINKED = "present_linked"  # the screen the link named, until this session is the room's teacher


def go(deck: Deck, number: int):
    """Stand on screen `number`: its lesson becomes the teacher's; in a room, its question is asked (unless the
    room asked it already) and the room keeps where the deck stands (the projector reads it there), its clock
    started if it was not."""
    number = min(max(1, number), len(deck.screens))
    screen = _stand(deck, number)
    if room_session.teacher_key() is None:
        return
    shown, name = room_session.presentation(), decks.name_of(deck)
    asked = shown.asked if shown.deck == name else ()
    if screen.kind == "question" and not screen.unready and _ask(screen, number, number in asked):
        asked = tuple(sorted({*asked, number}))
    room_session.present(replace(shown, deck=name, screen=number, blanked=False, view=(), asked=asked,
                                 handout=shown.handout and shown.deck == name).start(time.time()))
    room_session.push_lesson(state.lesson())  # at once, not at the end of the run: the projector polls for it


def _stand(deck: Deck, number: int) -> Screen:
    """This session on screen `number`: its lesson (an unready screen's is a stand-in: the lesson stays)."""
    ss, screen = st.session_state, deck.screens[number - 1]
    if ss.get(AT, number) != number:
        ss.pop(LINK_NOTICE, None)  # the link's notice stays until the first step
    ss[AT] = number
    ss.pop(lectern.TYPED, None)
    if not screen.unready:
        state.set_lesson(screen.lesson)
    return screen


def step(deck: Deck, to: int):
    """A step's key: on a question screen whose question is open, "next" reveals it (as reveal.js steps a
    slide's fragments); the next press advances."""
    at = st.session_state.get(AT, 1)
    if to == at + 1 and _open(deck.screens[at - 1]):
        room_session.reveal()
        return
    go(deck, to)


def _blank():
    shown = room_session.presentation()
    if shown.deck:
        room_session.present(replace(shown, blanked=not shown.blanked))


def _clock(change: str):
    """Pause, resume or restart the clock (Presentation's methods), kept with the room."""
    shown = room_session.presentation()
    if shown.deck:
        room_session.present(getattr(shown, change)(time.time()))


def _ask(screen, number: int, before: bool) -> bool:
    """Ask the screen's question (screen `number` of the deck) in the room; whether the room has it now. Not if
    it is the room's current question, nor if the room asked it `before`: a step back to a question the class
    answered (to discuss it) asks the phones nothing and adds no gradebook column; A asks it again on purpose."""
    try:
        question = decks.question_of(screen)
    except QuestionError as err:
        room_session.say(f"The question of this screen cannot be asked: {str(err).replace('`', '')}")
        return False
    if _is_current(question, _current()):
        return True
    if before:
        return False  # the view's notes say so while it stands here (`_answered_before`)
    room_session.ask(question, number)
    return True


def _again(screen, number: int):
    """A: ask this screen's question again: the room's current round again, or, back on a question the class
    answered earlier, that question in a new round."""
    if _asked(screen, _current()):
        room_session.ask_again()
    elif screen.kind == "question" and not screen.unready:
        try:
            room_session.ask(decks.question_of(screen), number)
        except QuestionError:
            pass  # it cannot be built here: the screen says why


def _answered_before(screen, asked: bool, now) -> bool:
    """The room (`now`: its teacher view) asked this screen's question earlier, and another is its current one
    now (`asked`: `_asked`)."""
    if screen.kind != "question" or screen.unready or asked or now is None:
        return False
    return screen.number in now.presentation.asked


def _current() -> Tally | None:
    """The room's current round, if any."""
    now = room_session.teacher_view()
    return now.current if now is not None else None


def _is_current(question, current: Tally | None) -> bool:
    return current is not None and current.question.key() == question.key()


def _asked(screen, current: Tally | None) -> bool:
    """This question screen's question is the room's `current` round's: its answers and reveal belong here (a
    screen whose question could not be asked must not show the previous question's panel)."""
    if screen.kind != "question" or screen.unready:
        return False
    try:
        return _is_current(decks.question_of(screen), current)
    except QuestionError:
        return False


def _open(screen) -> bool:
    """This screen's question is the room's current one, not revealed yet."""
    current = _current()
    return _asked(screen, current) and not current.revealed


def view(deck: Deck, linked: int | None):
    """The presenter's view; `linked`: the screen its link named, if any. The room's teacher's only."""
    ss = st.session_state
    if linked is not None:
        ss[LINKED] = linked  # kept until the view is the teacher's: the room opened, it stands there
    room_session.resume_teacher()  # a reload, or another tab of this browser: the room's teacher still
    if not _is_teacher():
        return _not_teacher(deck)
    room_session.keep_teacher()
    linked, last = ss.pop(LINKED, None), len(deck.screens)
    shown = room_session.presentation()
    if shown.deck == decks.name_of(deck) and 1 <= shown.screen <= last:  # the room's place wins over a link's
        if ss.get(AT) != shown.screen:  # a reload, another tab or laptop stepped: stand where the deck stands
            _stand(deck, shown.screen)
            room_session.push_lesson(state.lesson())
    else:
        go(deck, linked or ss.get(AT) or 1)  # a room just opened (or another deck presented): stand here
        shown = room_session.presentation()
    key = room_session.teacher_key()
    if key is None:  # a step's teacher action found the key stopped working
        return _not_teacher(deck)
    number = ss[AT]
    screen = deck.screens[number - 1]
    now = room_session.teacher_view()  # the room, read once after the steps above: every test below reads it
    current = now.current if now is not None else None
    asked = _asked(screen, current)  # this screen's question is the room's current one
    open_, before = asked and not current.revealed, _answered_before(screen, asked, now)
    st.markdown(f"**Presenting:** {deck_markdown(deck.title, inline=True)}")
    lectern.panels([deck_markdown(s.title, inline=True) for s in deck.screens], lambda n: go(deck, n), number)
    with st.container(horizontal=True, vertical_alignment="center", key="present_presenter_row"):
        keys(deck, number, step, "presenter", visible=True)
        st.markdown(f"### {number} / {last} · {deck_markdown(screen.title, inline=True)}")
        st.button("Keys (?)", key="present_keys_help", on_click=lectern.toggle, args=("keys",))
    lectern.bind(last, lambda n: go(deck, n), _blank, room_session.reveal, lambda: _again(screen, number), open_,
                 asked or before)
    with st.container(key="present_said"):  # one element whatever it holds: what follows keeps its place
        if shown.blanked:
            st.warning("The projector is blanked: it shows black. B or . shows it again.")
        if problem := decks.problem(decks.name_of(deck)):  # the file edited into an error: the class goes on
            st.error(plain(f"{problem} The class goes on with the deck as it was last read well; fix the file and "
                           "the next step reads it again."))
        ready.warning(deck)
        if why := ready.said(screen):
            st.warning(plain(why))
        if (hiding_round := _hidden_by(screen, asked, current)) is not None:
            where, how = ((f"of screen {hiding_round.screen}", " Reveal it on its screen (R there).")
                          if hiding_round.screen else ("(asked outside the deck)", ""))
            st.info(f"The room's question {where} is still open: the projector and the phones hide this screen "
                    f"until its answer is revealed, since what it shows could decide the question.{how}")
    # As reveal.js's speaker view: this screen's picture the largest, at the top left, the notes under it; the next
    # screen's beside it, the clock's line under that, then the class's answers while this screen's question is
    # asked (what the lecturer watches then: above the fold), the clock's buttons and the steering. Two columns, each
    # a stack of its own: the notes follow their picture however long the answers run. Each picture stands in the
    # same place on every screen: a picture moved in the page would load again.
    left, right = st.columns([3, 2], gap="medium")
    nxt = deck.screens[number] if number < len(deck.screens) else None
    with left:
        preview(deck, key.code, "Now", screen)
        lectern.typed_line()
        # on an open question, what → does now: said here, beside the notes, so that the answers lie above the fold
        reveal = " · → (or R) reveals the answer; the next → goes on." if open_ else ""
        st.caption(f"Notes · a {screen.kind} screen · {screen.minutes:g} min planned{reveal}")
        st.markdown(deck_markdown(screen.notes) if screen.notes else "*No notes for this screen.*")
        if before:
            st.caption("The class answered this question earlier: stepping back did not ask it again. A asks it "
                       "again.")
    with right:
        preview(deck, key.code, "Next", nxt)
        clock(deck, number)
        if asked:
            room_teacher.live(True)  # compact: the class's answers and the reveal
        clock_buttons()
        with st.container(key="present_steer_slot"):
            steer.panel(screen)  # a page screen's only
        with st.container(horizontal=True, key="present_picture_switches"):
            st.toggle("Pictures of the screens", value=True, key="present_pictures",
                      help="Each picture is a small projector window: off, the words alone (less work for a slow "
                           "machine).")
        display.give_keys_back(".st-key-present_picture_switches")  # a click on the switch leaves → to the deck
        handouts.teacher(deck)
    room_session.messages()
    url = f"present?deck={decks.name_of(deck)}&code={key.code}&projector=1"
    st.link_button("Open the projector window", url, help="Open it on the projector's screen; it shows the "
                   "screen this view stands on, without the notes.")
    st.caption(f"Room {format_code(key.code)}: the projector window and students' phones follow this view.")
    room_answers.read_then_download(key.code)  # the Room page's CSV, read on a click: the clock reruns


def _hidden_by(screen: Screen, asked: bool, current: Tally | None) -> Tally | None:
    """The room's `current` round if it is open and its question hides this screen, else None: the class went back
    to a page while a question is open, say. The projector shows a note instead, and the presenter should know why."""
    if current is None or current.revealed or asked or screen.unready or \
            not hiding.hides(hiding.door_of(screen.kind, screen.page), current.question.kind):
        return None
    return current


def _what(screen: Screen) -> str:
    """What the projector shows of a screen, in a line: its kind and its page, scene step, question or run."""
    if why := ready.why_not(screen):
        return f"NOT READY on this machine ({why.replace('`', '')})"
    if screen.kind == "page":
        view = ", ".join(f"{k} {v}" for k, v in screen.view)
        return f"the page {screen.page}" + (f" ({view})" if view else "")
    if screen.kind == "scene":
        return f"the video {screen.scene}, its step {screen.step}"
    if screen.kind == "video":
        return f"the video {screen.scene}"
    if screen.kind == "film":
        return f"the training run, at step {screen.at:,}"
    if screen.kind == "text":
        return f"the text: {' '.join(screen.body.split())[:120]}"
    if screen.kind == "image":
        return f"the picture {screen.picture.name}: {screen.picture.alt}"
    try:
        return f"the question: {decks.question_of(screen).prompt}"
    except QuestionError as err:
        return f"a question that cannot be asked: {err}"


def preview(deck: Deck, code: str, label: str, screen: Screen | None):
    """This screen ("Now") or the next ("Next") as the projector shows it: a live picture (a window like the
    projector's, following the room: projector.py `PREVIEW`; its frame's bounds are display.PICTURE_BOUNDS), then
    its title and what it draws in words. The pictures can be switched off (a slow machine: each is a session that
    runs its screen)."""
    with st.container(border=True, key=f"present_preview_{label.lower()}"):
        if st.session_state.get("present_pictures", True):
            picture(deck, code, label.lower())
        if screen is None:
            st.markdown(f"**{label}:** the end of the deck.")
            return
        st.markdown(f"**{label} · {screen.number}. {deck_markdown(screen.title, inline=True)}**")
        st.caption(plain(f"A {screen.kind} screen: {_what(screen)} · {screen.minutes:g} min planned"))


# The picture: the window at the projector's size, scaled to fit the frame (its own script: the frame's size is the
# browser's to know). It takes no pointer: a click on it leaves the keys with the presenter's view.
_PICTURE = """<style>html, body {{margin: 0; overflow: hidden}}</style>
<div id="box" style="overflow:hidden;position:relative;box-sizing:border-box;border:1px solid #8a8a8a;margin:0 auto">
<iframe src="{src}" title="{title}" tabindex="-1"
style="position:absolute;left:0;top:0;width:1920px;height:1080px;border:0;transform-origin:0 0;pointer-events:none">
</iframe></div>
<script>
const box = document.getElementById("box"), frame = box.querySelector("iframe");
const fit = () => {{
  const s = Math.min(window.innerWidth / 1920, window.innerHeight / 1080);
  frame.style.transform = `scale(${{s}})`;
  box.style.width = `${{1920 * s}}px`; box.style.height = `${{1080 * s}}px`; }};
fit(); window.addEventListener("resize", fit);
</script>"""
def picture(deck: Deck, code: str, which: str):
    """A live picture of the screen the room stands on (`which` "now") or the next ("next")."""
    query = urlencode({"deck": decks.name_of(deck), "code": code, "projector": "1", "preview": which})
    title = "The screen the projector shows" if which == "now" else "The next screen, as the projector will show it"
    high = display.PICTURE_BOUNDS[which][0]  # display.py's CSS replaces it by the frame's own
    st.iframe(_PICTURE.format(src=html.escape(f"present?{query}"), title=title), height=high, tab_index=-1)


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


def clock_part(deck: Deck, number: int) -> bool:
    """Time on the room's clock against the plan, one line: ahead of this screen's planned start, behind its planned
    end, or on time between. True once this session is no longer the room's teacher (taken back with the PIN
    elsewhere, or closed): the whole view must run again, to say so and drop the notes, not wait for the
    lecturer's next key."""
    shown = room_session.presentation()
    if room_session.teacher_key() is None:
        return True
    elapsed = shown.elapsed(time.time())
    before = 60 * sum(s.minutes for s in deck.screens[:number - 1])
    until = before + 60 * deck.screens[number - 1].minutes
    if elapsed > until:
        pace = f"{_minutes(elapsed - until)} behind"
    elif elapsed < before:
        pace = f"{_minutes(before - elapsed)} ahead"
    else:
        pace = "on time"
    paused = " (paused)" if shown.paused else ""
    st.markdown(f"**{_minutes(elapsed)}**{paused} elapsed · **{pace}** · this screen: {_minutes(before)}–"
                f"{_minutes(until)} of {_minutes(60 * deck.minutes)}")


def clock_buttons():
    """Pause (or resume) and restart the room's clock: a part of the page's run, below the class's answers on a
    question screen (the clock's line stays above them)."""
    left, right = st.columns(2)
    if room_session.presentation().paused:
        left.button("Resume the clock", key="present_clock_resume", on_click=_clock, args=("resume",))
    else:
        left.button("Pause the clock", key="present_clock_pause", on_click=_clock, args=("pause",))
    right.button("Restart the clock", key="present_clock_restart", on_click=_clock, args=("restart",))


clock = rerun.poll(CLOCK_SECONDS)(clock_part)
