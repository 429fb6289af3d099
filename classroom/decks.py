"""Decks: a lecture as data. A deck is an ordered list of screens, each a page at a lesson and view, a
step of a scene, a video, a room question, a moment of a training film, a text slide or a picture beside the
deck file (classroom/deck_image.py), with the teacher's notes, what goes in the students' handout, and a
planned time. docs/decks.md describes the file; classroom/deck_folder.py finds a teacher's own decks.

A deck is a TOML file that a teacher reads, edits and shares; `load_deck` validates all of it and
refuses a bad one with one `DeckError` that names the screen and the field. Lessons are checked by
`AttentionConfig` and film settings by `LearnSettings` (their own messages pass through), question
kinds by the registry of classroom/kinds.py; each kind of screen is a class of classroom/screens.py.

What a deck may name of the front ends (the pages' url paths, the scenes, the pages' view names, the
rule of which scene draws which lesson) is given by the caller as `Names`: classroom sits below the
dashboard and animations and imports neither, and each list keeps one home (classroom/catalogue.py's
PAGES and VIEW_NAMES, animations/catalog.py's SCENES; animations/catalog.py's deck_names gathers them).

Every string of a deck is plain text, and is shown to a teacher or to students: front ends show it
escaped (the dashboard through dashboard/text.py), but for the small declared part of Markdown that its
texts may use (classroom/deck_text.py), never as raw Markdown or HTML.
"""

import functools
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from classroom.deck_file import DeckError, Reader, fail, forget_loaded, load_once, parse_toml, plain_text, shown
from classroom.deck_image import Beside, Picture
from classroom.screens import SCREENS
from core.config import AttentionConfig
from core.errors import ModelMissing
from core.film import LearnSettings
from core.presets import PRESETS

__all__ = ["DEFAULT_DECK", "Deck", "DeckError", "Names", "Screen", "default_deck", "forget_loaded", "load_deck",
           "parse_deck"]

DEFAULT_DECK = Path(__file__).resolve().parent / "decks" / "default.toml"
MAX_SCREENS = 200
MAX_TITLE_CHARS, MAX_NOTES_CHARS = 120, 4000
MIN_MINUTES, MAX_MINUTES = 0.25, 30  # a screen; a longer stretch is several screens
MAX_DECK_MINUTES = 240
KINDS_OF_SCREEN = tuple(SCREENS)  # classroom/screens.py: one class each
_COMMON = ("kind", "title", "minutes", "notes", "handout")


@dataclass(frozen=True)
class Names:
    """What a deck may name of the front ends, given by the one that shows it."""

    pages: frozenset[str]  # url paths
    scenes: frozenset[str]
    views: frozenset[str]  # the names of a page's view in its address ("head", "step"...)
    check_scene: Callable[[str, AttentionConfig], None] | None = None  # ConfigError if the scene cannot draw it


@dataclass(frozen=True)
class Screen:
    number: int  # 1 = the first
    kind: str  # one of KINDS_OF_SCREEN
    title: str
    minutes: float  # planned
    notes: str = ""  # the teacher's, never shown on the projector
    handout: str = ""  # what the students' handout says of this screen ("" = nothing)
    lesson: AttentionConfig = PRESETS["default"]  # page, scene, video and lesson questions
    page: str = ""  # a url path of the lab
    view: tuple[tuple[str, str], ...] = ()  # the page's view as its address writes it: ("head", "2")
    scene: str = ""  # scene and video
    step: str = ""  # scene: the section's name ("softmax")
    question: str = ""  # the kind's name (classroom/kinds.py)
    head: int = 0  # 0-based, as Kind.suggest takes it; the file writes it 1-based
    seed: int = 0  # draws the question's row (and change or mask, when not given)
    change: str = ""  # a "change" question's change (classroom/changes.py), or drawn
    mask: str = ""  # a "blocked" question's mask, or drawn
    film: LearnSettings | None = None  # film screens and film questions
    at: int = 0  # film: the training step shown
    body: str = ""  # text: the slide's text (the declared Markdown, classroom/deck_text.py)
    picture: Picture | None = None  # image: the picture beside the deck, read and checked (classroom/deck_image.py)
    # Why this machine cannot show the screen ("" = it can): its lesson is on the trained model, which is not
    # installed. Its lesson is then not its own (the default one stands in): nothing may show or ask it.
    unready: str = ""


@dataclass(frozen=True)
class Deck:
    name: str  # the file's name
    title: str
    about: str
    screens: tuple[Screen, ...]
    files: tuple = field(default=(), compare=False, repr=False)  # the pictures read: (path, stamp) (load_once)

    @property
    def minutes(self) -> float:
        return sum(s.minutes for s in self.screens)


def load_deck(path, names: Names) -> Deck:
    """The deck in the file `path`, its image slides' pictures read beside it; DeckError (and nothing else) says
    why a file is no deck. Read once until the file or a picture changes, a refusal too (classroom/deck_file.py's
    load_once)."""
    folder = os.path.dirname(os.path.abspath(path))
    return load_once(path, names, functools.partial(parse_deck, folder=folder))


def default_deck(names: Names) -> Deck:
    """The deck the lab ships: the article's lecture, about 45 to 50 minutes."""
    return load_deck(DEFAULT_DECK, names)


def parse_deck(text: str | bytes, name: str, names: Names, folder: str | None = None) -> Deck:
    """The deck in `text` (the contents of a file called `name`, in `folder`: where its image slides' pictures
    lie; None for a text alone, which then shows none)."""
    beside = Beside(folder) if folder is not None else None
    try:
        return _parse(text, name, names, beside)
    except DeckError as err:
        err.files = beside.files() if beside is not None else ()  # a picture fixed is another try
        raise


def _parse(text, name: str, names: Names, beside: Beside | None) -> Deck:
    data = parse_toml(text, name)
    top = Reader(data, 0, "", ("title", "about", "screen"))
    title, about = top.text("title", MAX_TITLE_CHARS, required=True), top.text("about", MAX_NOTES_CHARS)
    tables = data.get("screen")
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
        raise fail("a deck lists its screens as [[screen]] tables, at least one.", field="screen")
    if len(tables) > MAX_SCREENS:
        raise fail(f"the deck has {len(tables):,} screens; a deck holds at most {MAX_SCREENS}.", field="screen")
    screens = tuple(_screen(i + 1, table, names, beside) for i, table in enumerate(tables))
    deck = Deck(name, title, about, screens, beside.files() if beside is not None else ())
    if deck.minutes > MAX_DECK_MINUTES:
        raise fail(f"its screens plan {deck.minutes:g} minutes; a deck plans at most {MAX_DECK_MINUTES}.",
                   field="minutes")
    return deck


def _screen(number: int, table: dict, names: Names, beside: Beside | None) -> Screen:
    title = table.get("title")
    title = title if isinstance(title, str) and not plain_text(title, MAX_TITLE_CHARS) else ""
    kind = table.get("kind")
    if kind not in KINDS_OF_SCREEN:
        got = f"got {shown(kind)}" if kind is not None else "none is given"
        raise fail(f"the kind of screen must be one of {', '.join(KINDS_OF_SCREEN)}; {got}.", number, title, "kind")
    own = SCREENS[kind].fields_of(table, number, title)
    r = Reader(table, number, title, _COMMON + own, beside=beside)
    common = {"number": number, "kind": kind, "title": r.text("title", MAX_TITLE_CHARS, required=True),
              "minutes": r.number("minutes", MIN_MINUTES, MAX_MINUTES, whole=False),
              "notes": r.text("notes", MAX_NOTES_CHARS), "handout": r.text("handout", MAX_NOTES_CHARS)}
    try:
        return Screen(**common, **SCREENS[kind].read(r, names))
    except ModelMissing as err:  # the deck still loads: this screen says why it cannot be shown here
        return Screen(**common, **_named(r), unready=str(err))


def _named(r: Reader) -> dict:
    """What an unready screen names (its page, scene and step, or kind of question), read as text: what
    depends on its lesson (a head within its heads, a scene that can draw it) is checked once it can be made."""
    return {key: r.text(key, 60) for key in ("page", "scene", "step", "question") if key in r.table}
