"""Which screens of a deck this machine cannot show yet, and why: the lecturer learns it before the class does.

A screen is not ready when its lesson needs the trained model and it is not installed, its video is not rendered
(or has not the step the screen names), its training run is not trained, or its question cannot be built (a
question about a run not trained). The checks are the projector's own (projector.py): what it would draw.
The presenter view and the deck's overview list them with `make lecture`, which prepares them; the projector
shows such a screen's title alone, never the lab's setup words to the class.
"""

import streamlit as st

from animations.sections import steps
from classroom.decks import Deck, Screen
from classroom.films.service import service as films
from classroom.question import QuestionError
from dashboard.present import deck as decks
from dashboard.video import studio

CHECK_SECONDS = 60  # a video rendered or a run trained meanwhile (make lecture in another window) shows by then


def video_file(screen: Screen):
    """The screen's video as rendered before class (`make lecture`), at the best quality there is."""
    for quality in ("class", "low"):
        for voice in (studio.NARRATOR, None):
            if (movie := studio.service().cached(screen.scene, screen.lesson, quality, voice)) is not None:
                return movie
    return None


def why_not(screen: Screen) -> str:
    """Why this machine cannot show `screen` ("" when it can), in the lecturer's words."""
    if screen.unready:
        return screen.unready
    if screen.kind in ("scene", "video"):
        movie = video_file(screen)
        if movie is None:
            return "its video is not rendered yet"
        if screen.kind == "scene" and not any(p.name == screen.step for p in steps(movie)):
            return f"its video has no step {screen.step!r}"
    elif screen.kind == "film" and films().cached(screen.film) is None:
        return "its training run is not trained yet"
    elif screen.kind == "question":
        try:
            decks.question_of(screen)
        except QuestionError as err:
            return str(err)
    return ""


def said(screen: Screen) -> str:
    """What the presenter view says of a screen this machine cannot show ("" when it can)."""
    if not (why := why_not(screen)):
        return ""
    why = why.replace("`", "")  # said as plain text: no code marks
    return (f"This screen is not ready on this machine. {why[0].upper()}{why[1:]}{'' if why.endswith('.') else '.'}"
            " The projector shows its title alone.")


@st.cache_data(ttl=CHECK_SECONDS, show_spinner=False, max_entries=16)
def _not_ready(name: str, path: str) -> dict[int, str]:
    return {s.number: why for s in decks.load(name).screens if (why := why_not(s))}


def not_ready(deck: Deck) -> dict[int, str]:
    """{screen number: why not} for the screens of `deck` this machine cannot show yet."""
    return _not_ready(decks.name_of(deck), str(decks.path_of(decks.name_of(deck)) or ""))


def warning(deck: Deck):
    """One line above the deck: which screens are not ready, and the command that prepares them."""
    if missing := not_ready(deck):
        numbers = ", ".join(str(n) for n in missing)
        st.warning(f"Not ready on this machine: screen{'s' if len(missing) > 1 else ''} {numbers}. Run "
                   "`make lecture` before class to prepare them (videos, training runs, their questions); until "
                   "then the projector shows only their titles.", icon=":material/movie:")
