"""The kinds of deck screen, one class each, in one registry (`SCREENS`): the settings a deck file gives a
screen of the kind (read and checked here, in the deck's words), what the screen is in words, what the
students' handout prints of it, the training runs it needs, and whether the room is asked its question.

A `Screen` keeps its kind's name (`Screen.kind`) and finds its class with `screen_kind`. What a front end
draws of each kind is keyed by these classes where it is drawn (the projector's `DRAW`, `make lecture`'s
`READY`), and a test checks that every class has its entry there: a new kind is one class here and one
entry in each.
"""

import dataclasses
import re

from classroom import film_question, layers_question
from classroom.catalogue import BY_URL, EVERY_KIND, FILM_KINDS, LESSON_STEPS, NO_TOPIC, PAGES
from classroom.changes import apply_change
from classroom.deck_file import Reader, fail, shown
from classroom.deck_image import Picture, PictureError
from classroom.kinds import KINDS
from core.config import MASKS, AttentionConfig
from core.errors import ConfigError, ModelMissing, quote
from core.film import LearnSettings
from core.limits import MAX_SEED, MAX_TEXT_CHARS
from core.presets import PRESETS

MAX_VIEW_NUMBER = 1_000_000
MAX_BODY_CHARS, MAX_ALT_CHARS = 4000, 300  # a text slide's text (a deck's notes' bound); a picture's words
_STEP = re.compile(r"[A-Za-z0-9_]+(-[A-Za-z0-9_]+)*")  # a scene's section name, as LessonScene.step writes it
_LINKISH = ("/", "\\", ".", "?", "#", "%", ":", "@")

# What the handout prints of a screen, by the scene or question kind it names (a page's is its catalogue
# record's `handout`): (its formulas, the tables of its lesson), as classroom/catalogue.py describes them.
SCENE_TOPICS = {
    "scores": LESSON_STEPS, "masking": (("mask", "causal"), ("masked", "weights")),
    "multihead": (("heads",), ("weights",)),
    "scaling": (("scale",), ("saturation",)), "trained": (("attention",), ()), "induction": ((), ()),
}
# A step that shows more than its scene's other steps (the trained video's one step on what a head passes on),
# and a whole video that does
STEP_TOPICS = {("trained", "passed-on"): (("norm",), ())}
VIDEO_TOPICS = {"trained": (("attention", "norm"), ())}
FILM_TOPIC = ((), ("film",))  # a film screen: the run's loss and its heads' scores up to the step shown
QUESTION_TOPICS = {"focus": (("softmax",), ("weights",)), "change": ((), ("weights",)),
                   "blocked": (("mask",), ("masked",)), "film": ((), ()), "trained": (("attention",), ()),
                   "layers": ((), ())}


class ScreenKind:
    """A kind of screen. A subclass names it and says what a deck gives it and what it is."""

    name = ""  # the Screen's `kind`, as the deck file writes it
    fields = ()  # the settings of its own a deck file may give (besides kind, title, minutes, notes, handout)
    asks = False  # the room is asked the screen's question as the deck reaches it
    decides = EVERY_KIND  # the question kinds the projector's screen can decide (classroom/hiding.py)

    @classmethod
    def fields_of(cls, table: dict, number: int, title: str) -> tuple:
        """The settings a screen of this kind may give, as its deck table says (a question's depend on its kind)."""
        return cls.fields

    @staticmethod
    def read(r: Reader, names) -> dict:
        """The screen's own settings from its table, checked against what the lab has (`names`)."""
        raise NotImplementedError

    @staticmethod
    def where(s) -> str:
        """What the screen is in the lab, in words (plain text)."""
        raise NotImplementedError

    @staticmethod
    def topic(s) -> tuple:
        """(formulas, tables) the handout prints of the screen."""
        return NO_TOPIC

    @staticmethod
    def films(s) -> tuple:
        """The training runs the screen shows or asks about."""
        return ()


class PageScreen(ScreenKind):
    """A page of the lab at a lesson and view."""

    name, fields = "page", ("page", "preset", "lesson", "view")
    decides = frozenset().union(*(page.decides for page in PAGES))  # at most: a page screen hides as its page

    @staticmethod
    def read(r, names):
        return _page(r, names)

    @staticmethod
    def where(s):
        return f"The lab's page {s.page}"

    @staticmethod
    def topic(s):
        return BY_URL[s.page].topic(dict(s.view)) if s.page in BY_URL else NO_TOPIC


class SceneScreen(ScreenKind):
    """One step of a lecture video (its section), held still or played."""

    name, fields = "scene", ("scene", "step", "preset", "lesson")
    decides = EVERY_KIND  # a step of any scene: a lesson's, the trained model's, the induction film's

    @staticmethod
    def read(r, names):
        return _scene(r, names)

    @staticmethod
    def where(s):
        return f"Lecture video {s.scene}, step {s.step}"

    @staticmethod
    def topic(s):
        return STEP_TOPICS.get((s.scene, s.step), SCENE_TOPICS.get(s.scene, NO_TOPIC))


class VideoScreen(SceneScreen):
    """A whole lecture video."""

    name, fields = "video", ("scene", "preset", "lesson")

    @staticmethod
    def read(r, names):
        return _scene(r, names, step=False)

    @staticmethod
    def where(s):
        return f"Lecture video {s.scene}"

    @staticmethod
    def topic(s):
        return VIDEO_TOPICS.get(s.scene, SCENE_TOPICS.get(s.scene, NO_TOPIC))


class QuestionScreen(ScreenKind):
    """A room question: of a lesson (its kind draws a fair row), or of training runs."""

    name, asks = "question", True
    decides = frozenset()  # its own question and choices; the truth only once its own round is revealed

    @classmethod
    def fields_of(cls, table, number, title):
        """A lesson's question reads a lesson, a head, a seed and what its kind reads; a training run's
        question reads the run's settings."""
        kind = question_kind(table, number, title)
        if not kind.from_lesson:
            return ("question", "film")
        return ("question", "preset", "lesson", "head", "seed", *kind.reads)

    @staticmethod
    def read(r, names):
        return _question(r, names)

    @staticmethod
    def where(s):
        return f"Room question ({s.question})"

    @staticmethod
    def topic(s):
        return QUESTION_TOPICS.get(s.question, NO_TOPIC)

    @staticmethod
    def films(s):
        if s.question == KINDS["layers"].name:
            return layers_question.runs(s.film)
        return () if KINDS[s.question].from_lesson else (s.film,)


class FilmScreen(ScreenKind):
    """A moment of a training film."""

    name, fields = "film", ("film", "at")
    decides = FILM_KINDS  # a run's loss and heads' scores up to the step shown

    @staticmethod
    def read(r, names):
        return _film_screen(r, names)

    @staticmethod
    def where(s):
        film = s.film
        data = {"induction": "sequences whose stretches repeat", "text": "English text"}.get(film.task, film.task)
        return (f"Watch it learn: step {s.at:,} of {film.steps:,} of a {film.layers}-layer model with {film.heads} "
                f"heads a layer, trained on {data}; the lab's Watch it learn page shows the run")

    @staticmethod
    def topic(s):
        return FILM_TOPIC

    @staticmethod
    def films(s):
        return (s.film,)


class TextScreen(ScreenKind):
    """A text slide: its title and a text in the decks' declared Markdown (classroom/deck_text.py)."""

    name, fields = "text", ("body",)
    decides = frozenset()  # the teacher's words alone: no lesson, no run, no measured number

    @staticmethod
    def read(r, names):
        return {"body": r.text("body", MAX_BODY_CHARS, required=True)}

    @staticmethod
    def where(s):
        return "A text slide"


class ImageScreen(ScreenKind):
    """An image slide: a PNG, JPEG or SVG file beside the deck (classroom/deck_image.py), with words for it."""

    name, fields = "image", ("image", "alt")
    decides = frozenset()  # a teacher's picture: nothing the lab measured

    @staticmethod
    def read(r, names):
        name, alt = r.text("image", 100, required=True), r.text("alt", MAX_ALT_CHARS, required=True)
        if not alt.strip():
            r.error("alt", "say in words what the picture shows: a screen reader reads it, and the handout too.")
        if r.beside is None:
            r.error("image", "a deck read from a text, not a file, has no folder to find its picture in.")
        try:
            mime, data = r.beside.read(name)
        except PictureError as err:
            r.error("image", str(err))
        return {"picture": Picture(name, mime, data, alt)}

    @staticmethod
    def where(s):
        return f"A picture: {s.picture.alt}" if s.picture is not None else "A picture"


SCREENS = {kind.name: kind for kind in (PageScreen, SceneScreen, VideoScreen, QuestionScreen, FilmScreen, TextScreen,
                                        ImageScreen)}


def screen_kind(name: str) -> type[ScreenKind]:
    """The class of the screen kind named `name` (KeyError for none: a Screen's kind was checked when read)."""
    return SCREENS[name]


# -- reading a screen's own settings ------------------------------------------------------------
def _page(r: Reader, names) -> dict:
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


def _scene(r: Reader, names, step: bool = True) -> dict:
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


def question_kind(table: dict, number: int, title: str):
    """The class of a question screen's kind (classroom/kinds.py's registry)."""
    name = table.get("question")
    if not isinstance(name, str) or name not in KINDS:
        raise fail(f"the kind of question must be one of {', '.join(KINDS)}, got "
                   f"{shown(name) if name is not None else 'nothing'}.", number, title, "question")
    return KINDS[name]


def _question(r: Reader, names) -> dict:
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


def _film_screen(r: Reader, names) -> dict:
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
