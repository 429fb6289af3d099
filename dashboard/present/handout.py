"""The students' handout in class: the room's teacher makes it from the presenter view and shares it; the
room's students then download it on their Room page, but not while a question is open (its tables print the
lessons' weights, which decide the deck's questions).

Making it is a job (classroom/handout_service.py): built once per deck file and lab version, off the page's
thread, kept on disk; a second click, or another teacher's, joins the running build or gets the file. Sharing is
kept with the room, as where the deck stands is (classroom/rooms/presentation.py: `handout`), so a hall's
processes see it too; the file lies in the media folder they share.
"""

from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import streamlit as st

from animations.transcripts import transcripts
from classroom import handout_service
from classroom.decks import Deck
from classroom.handout import build_handout
from dashboard import devices
from dashboard.lesson import rerun
from dashboard.present import deck as decks
from dashboard.present import ready
from dashboard.room import session as room_session
from jobs import QueueFull

JOB = "present_handout_job"  # the key of the build this session asked for
POLL_SECONDS = 1.0
WHAT = ("One HTML file that opens offline: the screens, their numbers, the formulas, the charts, the notes meant "
        "for students and a reading list. Never the teacher's notes.")


def _build(deck: Deck) -> str:
    """The handout with its videos' transcripts (animations/transcripts.py)."""
    return build_handout(deck, transcripts=transcripts)


def service():
    """This process's handout service, building with the transcripts."""
    return handout_service.service(build=_build)


def stamp(deck: Deck) -> tuple:
    """The deck file's (modification time, size), and its pictures' stamps: an edited deck is another handout."""
    got = decks.path_of(decks.name_of(deck)).stat()
    return (got.st_mtime_ns, got.st_size, *(was for _, was in deck.files))


@lru_cache(maxsize=4)
def _read(path: Path) -> bytes:  # its name holds the deck's stamp and the lab's version: one content per name
    return path.read_bytes()


def _file_name(name: str) -> str:
    return f"{name}-handout.html"


def teacher(deck: Deck):
    """The presenter view's part (the view is the room's teacher's alone): make the handout, download it,
    share it with the class or stop sharing it."""
    ss, name = st.session_state, decks.name_of(deck)
    path = service().cached(deck, stamp(deck))
    if path is None:
        job = service().job(ss[JOB]) if ss.get(JOB) else None
        if job is not None and job.active:
            return _making(job.key)
        if job is not None and job.state == "failed":
            st.warning(job.error)
        st.button("Make the students' handout", key="present_handout_make", on_click=_make, args=(deck,), help=WHAT)
        return
    st.download_button("Students' handout (HTML)", _read(path), file_name=_file_name(name), mime="text/html",
                       on_click="ignore", key="present_handout", help=WHAT)
    if shared(deck):
        left = questions_left(deck, room_session.presentation())
        st.caption("Shared with the class: the room's students download it on their Room page "
                   + (f"once the deck's questions have been asked and revealed ({left} to go), or the room has "
                      "closed." if left else "now (every question of the deck has been asked)."))
        st.button("Stop sharing the handout", key="present_handout_unshare", on_click=share, args=(deck, False))
    else:
        st.button("Share the handout with the class", key="present_handout_share", on_click=share,
                  args=(deck, True), help="The room's students can download it on their Room page once every "
                  "question of the deck has been asked and revealed, or the room has closed: it prints every "
                  "question's answer and the numbers that decide it.")


def shared(deck: Deck) -> bool:
    """The room's presentation is this deck's, with its handout shared."""
    shown = room_session.presentation()
    return shown.handout and shown.deck == decks.name_of(deck)


def share(deck: Deck, on: bool):
    """Share the handout with the room's students, or stop: kept with the room, where they read it."""
    shown = room_session.presentation()
    if shown.deck == decks.name_of(deck):
        room_session.present(replace(shown, handout=on))


def _make(deck: Deck):
    try:
        job = service().submit(deck, stamp(deck), devices.who())
    except QueueFull as err:
        room_session.say(str(err))
        return
    st.session_state[JOB] = job.key


@rerun.poll(POLL_SECONDS)
def _making(key: str):
    """While the build runs: the whole view runs again once it has ended (the download, or why not)."""
    job = service().job(key)
    if job is None or not job.active:
        return True
    service().waiting(job, devices.who())
    st.caption("Making the handout… (a few seconds: every lesson's numbers and charts)")


def questions_left(deck: Deck, shown) -> int:
    """The deck's question screens this room has not asked yet, of those this machine can ask (a question whose
    training run is not here is never asked, and the handout does not print it either)."""
    asked = set(shown.asked) if shown.deck == decks.name_of(deck) else set()
    return sum(s.kind == "question" and s.number not in asked and not ready.why_not(s) for s in deck.screens)


def student(view, ended: bool = False):
    """A room's student: the handout, once the teacher shares it and no question of the deck is left to ask or
    open (it prints every answer), or once the room has `ended`."""
    name = view.presentation.deck
    if not view.presentation.handout or decks.path_of(name) is None or (view.round > 0 and not view.revealed):
        return
    deck = decks.load(name)
    if not ended and questions_left(deck, view.presentation):
        st.caption("The teacher has shared the lecture's handout: it opens here once the class has answered the "
                   "deck's last question (it prints every answer).")
        return
    path = service().cached(deck, stamp(deck))
    if path is not None:
        st.download_button("The lecture's handout (HTML)", _read(path), file_name=_file_name(name),
                           mime="text/html", on_click="ignore", key="room_handout", help=WHAT)
