"""The decks the lab presents (classroom/decks.py reads them), checked against the lab's real names.

A link names a deck by its name only ("default"): the files are the lab's own, in classroom/decks/, and
no part of a link ever becomes a path. Where a presented deck stands lives with the room
(classroom/rooms/presentation.py): the projector reads it there, in one process or in the hall.
"""

import json
from pathlib import Path

from animations.catalog import deck_names as names  # what a deck may name
from classroom import decks
from classroom.catalogue import BY_URL
from classroom.deck_questions import screen_question
from classroom.decks import Deck, DeckError, Screen
from classroom.films.service import service as films
from classroom.question import Question

DECKS = {path.stem: path for path in sorted(decks.DEFAULT_DECK.parent.glob("*.toml"))}  # the lab's own decks


def load(name: str) -> Deck:
    """The lab's deck called `name`; DeckError (naming the decks there are) for any other name."""
    if name not in DECKS:
        raise DeckError(f"The lab has no deck called {json.dumps(str(name)[:40])}; its decks are "
                        f"{', '.join(DECKS)}.")
    return decks.load_deck(DECKS[name], names())  # kept by the file's mtime and size, refusals too


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
