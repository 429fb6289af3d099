"""The decks the lab presents (classroom/decks.py reads them), checked against the lab's real names, and
where a presented deck stands, as the room carries it to the projector.

A link names a deck by its name only ("default"): the files are the lab's own, in classroom/decks/, and
no part of a link ever becomes a path. Where the deck stands travels inside the lesson the room already
transports to its members (dashboard/room/session.py): so the projector follows the presenter exactly as
a student follows the teacher's lesson, in one process or in the hall.
"""

import functools
import json
from pathlib import Path

from animations.catalog import SCENES, check_scene
from classroom import decks
from classroom.catalogue import BY_URL
from classroom.deck_questions import screen_question
from classroom.decks import Deck, DeckError, Names, Screen
from classroom.films.service import service as films
from classroom.question import Question
from dashboard.lesson.state import VIEW_NAMES

DECKS = {path.stem: path for path in sorted(decks.DEFAULT_DECK.parent.glob("*.toml"))}  # the lab's own decks
PLACE_KEY = "deck_screen"  # in the room's lesson JSON: "default:3" (AttentionConfig.from_dict ignores it)
HANDOUT_KEY = "deck_handout"  # in it too: the deck whose handout the teacher shares with the class ("default")


@functools.cache
def names() -> Names:
    """What a deck may name, from each list's one home: the navigation's pages, the catalogue's scenes and
    its rule of which scene draws which lesson, the address's view names."""
    return Names(frozenset(BY_URL), frozenset(SCENES), VIEW_NAMES, check_scene)


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


# -- where a deck stands, inside the room's lesson -----------------------------------------------
def with_place(lesson_json: str, deck: str, number: int) -> str:
    """The lesson's JSON carrying where the deck stands."""
    return json.dumps({**json.loads(lesson_json), PLACE_KEY: f"{deck}:{number}"}, sort_keys=True, ensure_ascii=False)


@functools.lru_cache(maxsize=64)
def place_in(lesson_json: str) -> tuple[str, int] | None:
    """(deck, screen number) that a room's lesson carries, or None; anything malformed is None."""
    try:
        raw = json.loads(lesson_json).get(PLACE_KEY)
        deck, number = raw.rsplit(":", 1)
        return (deck, int(number)) if deck in DECKS and int(number) >= 1 else None
    except (AttributeError, TypeError, ValueError):
        return None


@functools.lru_cache(maxsize=64)
def handout_in(lesson_json: str) -> str | None:
    """The deck whose handout a room's lesson says is shared, or None; anything but a lab deck's name is None."""
    try:
        raw = json.loads(lesson_json).get(HANDOUT_KEY)
    except (AttributeError, TypeError, ValueError):
        return None
    return raw if isinstance(raw, str) and raw in DECKS else None


# -- a question screen's question ---------------------------------------------------------------
def question_of(screen: Screen) -> Question:
    """The question a question screen asks, as `make lecture` checks it (classroom.deck_questions), with the
    runs this server has trained; QuestionError says why there is none (a run not trained yet, a lesson that
    offers nothing to ask, the trained model not installed)."""
    return screen_question(screen, films().cached)
