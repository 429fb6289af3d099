"""Decks: a lecture as data. A deck is an ordered list of screens, each a page at a lesson and view, a
step of a scene, a video, a room question or a moment of a training film, with the teacher's notes,
what goes in the students' handout, and a planned time. docs/decks.md describes the file.

A deck is a TOML file that a teacher reads, edits and shares; `load_deck` validates all of it and
refuses a bad one with one `DeckError` that names the screen and the field. Lessons are checked by
`AttentionConfig` and film settings by `LearnSettings` (their own messages pass through), question
kinds by the registry of classroom/kinds.py.

What a deck may name of the front ends (the pages' url paths, the scenes, the pages' view names, the
rule of which scene draws which lesson) is given by the caller as `Names`: classroom sits below the
dashboard and animations and imports neither, and each list keeps one home (dashboard/navigation.py's
PAGES, animations/catalog.py's SCENES, dashboard/lesson/state.py's VIEW_NAMES).

Every string of a deck is plain text, and is shown to a teacher or to students: front ends show it
escaped (the dashboard through dashboard/text.py), but for the small declared part of Markdown that its
texts may use (classroom/deck_text.py), never as raw Markdown or HTML.
"""

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from classroom import film_question
from classroom.changes import apply_change
from classroom.deck_file import DeckError, Reader, fail, forget_loaded, load_once, parse_toml, plain_text, shown
from classroom.kinds import KINDS
from core.config import MASKS, AttentionConfig
from core.errors import ConfigError, ModelMissing, quote
from core.film import LearnSettings
from core.limits import MAX_SEED, MAX_TEXT_CHARS
from core.presets import PRESETS

__all__ = ["DEFAULT_DECK", "Deck", "DeckError", "Names", "Screen", "default_deck", "forget_loaded", "load_deck",
           "parse_deck"]

DEFAULT_DECK = Path(__file__).resolve().parent / "decks" / "default.toml"
MAX_SCREENS = 200
MAX_TITLE_CHARS, MAX_NOTES_CHARS = 120, 4000
MIN_MINUTES, MAX_MINUTES = 0.25, 30  # a screen; a longer stretch is several screens
MAX_DECK_MINUTES = 240
MAX_VIEW_NUMBER = 1_000_000
KINDS_OF_SCREEN = ("page", "scene", "video", "question", "film")
_COMMON = ("kind", "title", "minutes", "notes", "handout")
_FIELDS = {"page": ("page", "preset", "lesson", "view"), "scene": ("scene", "step", "preset", "lesson"),
           "video": ("scene", "preset", "lesson"), "film": ("film", "at")}
_STEP = re.compile(r"[A-Za-z0-9_]+(-[A-Za-z0-9_]+)*")  # a scene's section name, as LessonScene.step writes it
_LINKISH = ("/", "\\", ".", "?", "#", "%", ":", "@")


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
    # Why this machine cannot show the screen ("" = it can): its lesson is on the trained model, which is not
    # installed. Its lesson is then not its own (the default one stands in): nothing may show or ask it.
    unready: str = ""


@dataclass(frozen=True)
class Deck:
    name: str  # the file's name
    title: str
    about: str
    screens: tuple[Screen, ...]

    @property
    def minutes(self) -> float:
        return sum(s.minutes for s in self.screens)


def load_deck(path, names: Names) -> Deck:
    """The deck in the file `path`; DeckError (and nothing else) says why a file is no deck. Read once until the
    file changes, a refusal too (classroom/deck_file.py's load_once)."""
    return load_once(path, names, parse_deck)


def default_deck(names: Names) -> Deck:
    """The deck the lab ships: the article's lecture, about 45 to 50 minutes."""
    return load_deck(DEFAULT_DECK, names)


def parse_deck(text: str | bytes, name: str, names: Names) -> Deck:
    """The deck in `text` (the contents of a file called `name`)."""
    data = parse_toml(text, name)
    top = Reader(data, 0, "", ("title", "about", "screen"))
    title, about = top.text("title", MAX_TITLE_CHARS, required=True), top.text("about", MAX_NOTES_CHARS)
    tables = data.get("screen")
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
        raise fail("a deck lists its screens as [[screen]] tables, at least one.", field="screen")
    if len(tables) > MAX_SCREENS:
        raise fail(f"the deck has {len(tables):,} screens; a deck holds at most {MAX_SCREENS}.", field="screen")
    screens = tuple(_screen(i + 1, table, names) for i, table in enumerate(tables))
    deck = Deck(name, title, about, screens)
    if deck.minutes > MAX_DECK_MINUTES:
        raise fail(f"its screens plan {deck.minutes:g} minutes; a deck plans at most {MAX_DECK_MINUTES}.",
                   field="minutes")
    return deck


def _screen(number: int, table: dict, names: Names) -> Screen:
    title = table.get("title")
    title = title if isinstance(title, str) and not plain_text(title, MAX_TITLE_CHARS) else ""
    kind = table.get("kind")
    if kind not in KINDS_OF_SCREEN:
        got = f"got {shown(kind)}" if kind is not None else "none is given"
        raise fail(f"the kind of screen must be one of {', '.join(KINDS_OF_SCREEN)}; {got}.", number, title, "kind")
    own = _FIELDS.get(kind) or _question_fields(_question_kind(table, number, title))
    r = Reader(table, number, title, _COMMON + own)
    common = {"number": number, "kind": kind, "title": r.text("title", MAX_TITLE_CHARS, required=True),
              "minutes": r.number("minutes", MIN_MINUTES, MAX_MINUTES, whole=False),
              "notes": r.text("notes", MAX_NOTES_CHARS), "handout": r.text("handout", MAX_NOTES_CHARS)}
    try:
        return Screen(**common, **_READ[kind](r, names))
    except ModelMissing as err:  # the deck still loads: this screen says why it cannot be shown here
        return Screen(**common, **_named(r), unready=str(err))


def _named(r: Reader) -> dict:
    """What an unready screen names (its page, scene and step, or kind of question), read as text: what
    depends on its lesson (a head within its heads, a scene that can draw it) is checked once it can be made."""
    return {key: r.text(key, 60) for key in ("page", "scene", "step", "question") if key in r.table}


def _page(r: Reader, names: Names) -> dict:
    page = r.text("page", 60, required=True)
    if page not in names.pages:
        hint = (f"write it without the slash ({quote(page.strip('/'))})." if page.strip("/") in names.pages else
                "a deck names the lab's own pages only, never a link or a file." if any(c in page for c in _LINKISH)
                else "")
        hint = hint or f"the pages are {', '.join(sorted(names.pages))}."
        r.error("page", f"{quote(page)} is not a page of the lab; {hint}")
    view = r.table_of("view")
    v = Reader(view, r.screen, r.title, tuple(sorted(names.views)), "view.")
    return {"page": page, "lesson": _lesson(r), "view": tuple((key, _view_value(v, key)) for key in view)}


def _view_value(v: Reader, key: str) -> str:
    value = v.table[key]
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float)):
        return str(v.number(key, 0, MAX_VIEW_NUMBER, whole=isinstance(value, int)))
    return v.text(key, MAX_TEXT_CHARS)


def _scene(r: Reader, names: Names, step: bool = True) -> dict:
    scene = r.text("scene", 40, required=True)
    if scene not in names.scenes:
        r.error("scene", f"{quote(scene)} is not a scene of the lab; the scenes are {', '.join(sorted(names.scenes))}.")
    lesson = _lesson(r)
    if names.check_scene is not None:
        try:
            names.check_scene(scene, lesson)
        except ConfigError as err:
            r.error("lesson", str(err))
    out = {"scene": scene, "lesson": lesson}
    if step:
        out["step"] = r.text("step", 40, required=True)
        if not _STEP.fullmatch(out["step"]):
            r.error("step", f"a step is named as its scene names it, such as 'softmax', got {quote(out['step'])}.")
    return out


def _question_kind(table: dict, number: int, title: str):
    """The class of a question screen's kind (classroom/kinds.py's registry)."""
    name = table.get("question")
    if not isinstance(name, str) or name not in KINDS:
        raise fail(f"the kind of question must be one of {', '.join(KINDS)}, got "
                   f"{shown(name) if name is not None else 'nothing'}.", number, title, "question")
    return KINDS[name]


def _question_fields(kind) -> tuple:
    """A kind's settings: a lesson's question reads a lesson, a head, a seed and what its kind reads;
    a training run's question reads the run's settings."""
    return ("question", "preset", "lesson", "head", "seed", *kind.reads) if kind.from_lesson else ("question", "film")


def _question(r: Reader, names: Names) -> dict:
    kind = KINDS[r.table["question"]]
    if not kind.from_lesson:
        settings = _film(r)
        if settings.layers != film_question.LAYERS:
            r.error("film.layers", f"this question asks which of {film_question.LAYERS} layers forms an induction "
                    f"head, so its run needs {film_question.LAYERS} layers, not {settings.layers}.")
        return {"question": kind.name, "film": settings}
    lesson = _lesson(r)
    out = {"question": kind.name, "lesson": lesson, "head": r.number("head", 1, lesson.num_heads, True, 1) - 1,
           "seed": r.number("seed", 0, MAX_SEED, True, 0)}
    if "change" in kind.reads and (change := r.text("change", 40)):  # none given: drawn by the seed
        try:
            apply_change(lesson, change)
        except ConfigError as err:
            r.error("change", str(err))
        out["change"] = change
    if "mask" in kind.reads and (mask := r.text("mask", 40)):
        if mask not in MASKS:
            r.error("mask", f"the mask must be one of {', '.join(MASKS)}, got {quote(mask)}.")
        out["mask"] = mask
    return out


def _film_screen(r: Reader, names: Names) -> dict:
    settings = _film(r)
    return {"film": settings, "at": r.number("at", 0, settings.steps, True, settings.steps)}


def _film(r: Reader) -> LearnSettings:
    known = tuple(f.name for f in dataclasses.fields(LearnSettings))
    f = Reader(r.table_of("film"), r.screen, r.title, known, "film.")
    try:
        return LearnSettings.from_dict({key: _setting(f, key) for key in f.table})
    except ConfigError as err:  # core's own words, naming the setting
        raise fail(str(err), r.screen, r.title, f"film.{err.field}" if err.field else "film") from None


def _lesson(r: Reader) -> AttentionConfig:
    """The preset (the default one if none is named) with the lesson's settings, as AttentionConfig checks them."""
    preset = r.text("preset", 40)
    if preset and preset not in PRESETS:
        r.error("preset", f"{quote(preset)} is not a preset of the lab; the presets are {', '.join(PRESETS)}.")
    known = tuple(f.name for f in dataclasses.fields(AttentionConfig) if f.name != "device")  # the machine's
    settings = Reader(r.table_of("lesson"), r.screen, r.title, known, "lesson.")
    base = PRESETS[preset or "default"]
    if not settings.table:
        return base
    try:
        return AttentionConfig.from_dict({**base.to_dict(), **{k: _setting(settings, k) for k in settings.table}})
    except ModelMissing:
        raise  # not the deck's fault: the screen stays, unready (_screen)
    except ConfigError as err:  # core's own words, naming the setting (perhaps the preset's, as "d_model 10 is
        # not divisible by 4 heads" names the heads)
        raise fail(str(err), r.screen, r.title, f"lesson.{err.field}" if err.field else "lesson") from None


def _setting(r: Reader, key: str) -> str:
    """A setting as the address writes it, for core to read and to refuse in its own words: a matrix as
    rows "1,0;0,1" (anything in it but numbers, or 0/1 and true/false for a mask, refused by core)."""
    value = r.table[key]
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return r.text(key, MAX_TEXT_CHARS)
    if isinstance(value, list) and all(isinstance(row, list) for row in value):
        cell = _mask_cell if key == "custom_mask" else _number_cell
        return ";".join(("" if key == "custom_mask" else ",").join(map(cell, row)) for row in value)
    r.error(key, f"this must be a number, a text, true or false, or rows of numbers, got {shown(value)}.")


def _number_cell(x) -> str:
    return str(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else "?"


def _mask_cell(x) -> str:
    return {True: "1", False: "0"}.get(x, "?") if isinstance(x, (bool, int)) else "?"


_READ = {"page": _page, "scene": _scene, "video": lambda r, names: _scene(r, names, step=False),
         "question": _question, "film": _film_screen}
