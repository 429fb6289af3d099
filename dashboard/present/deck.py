"""The decks the lab presents (classroom/decks.py reads them), checked against the lab's real names.

A link names a deck by its name only ("default"): the lab's own files, in classroom/decks/, and the teacher's
in their folder (classroom/deck_folder.py, ATTENTION_LAB_DECKS); a name is looked up in that listing, and no part
of a link ever becomes a path. Where a presented deck stands lives with the room
(classroom/rooms/presentation.py): the projector reads it there, in one process or in the hall.

A class in progress keeps its last good deck: a deck file edited into an error while it is presented goes on as
it was last read well in this process (`load`), and `problem(name)` says why the file is refused, for the
presenter to read.
"""

import json
import threading
from pathlib import Path

from animations.catalog import deck_names as names  # what a deck may name
from classroom import deck_folder, decks
from classroom.catalogue import BY_URL
from classroom.deck_questions import screen_question
from classroom.decks import Deck, DeckError, Screen
from classroom.films.service import service as films
from classroom.question import Question

DECKS = deck_folder.LAB_DECKS  # the lab's own decks; `listing()` adds the teacher's
_GOOD: dict[str, Deck] = {}  # the last deck each name's file gave, while its file is refused
_PROBLEM: dict[str, str] = {}  # why each name's file is refused now, when a good deck stands in for it
_LOCK = threading.Lock()


def listing() -> dict[str, Path]:
    """The decks a link may name: the lab's own and the teacher's (classroom/deck_folder.py)."""
    return deck_folder.listing()


def load(name: str) -> Deck:
    """The deck called `name`; while its file is refused, the last good deck of that name (`problem` says why);
    DeckError (naming the decks there are, or the file's error) for any other name, or a first read refused."""
    path = listing().get(name)
    if path is None:
        raise DeckError(f"The lab has no deck called {json.dumps(str(name)[:40])}; its decks are "
                        f"{', '.join(listing())}.")
    try:
        deck = decks.load_deck(path, names())  # kept by the file's mtime and size (and its pictures'), refusals too
    except DeckError as err:
        with _LOCK:
            if name not in _GOOD:
                raise
            _PROBLEM[name] = f"The deck file {path.name} cannot be used as it is now: {err}"
            return _GOOD[name]
    with _LOCK:
        _GOOD[name] = deck
        _PROBLEM.pop(name, None)
    return deck


def problem(name: str) -> str:
    """Why the deck file of `name` is refused while its last good deck is presented ("" when it is not)."""
    with _LOCK:
        return _PROBLEM.get(name, "")


def path_of(name: str) -> Path | None:
    """The file of the deck called `name`, from the listing."""
    return listing().get(name)


def name_of(deck: Deck) -> str:
    """The name a link and the room give the deck: its file's name without ".toml"."""
    return Path(deck.name).stem


def page_file(url_path: str) -> str:
    """The page file of a url path (a deck's page screens name pages by url path)."""
    return BY_URL[url_path].file


# -- a question screen's question ---------------------------------------------------------------
def question_of(screen: Screen) -> Question:
    """The question a question screen asks, as `make lecture` checks it (classroom.deck_questions), with the
    runs this server has trained; QuestionError says why there is none (a run not trained yet, a lesson that
    offers nothing to ask, the trained model not installed)."""
    return screen_question(screen, films().cached)
