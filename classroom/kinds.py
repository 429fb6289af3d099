"""The kinds of question, one class each, in one registry (`KINDS`): how a page offers the kind, how
a lesson makes a fair question of it, how its explanation quotes a choice, which lessons its reveal
shows. A `Question` keeps its kind's name (`Question.kind`: rooms store questions as JSON) and finds
its class with `Question.kind_class`.

The chart that decides each kind is the dashboard's (dashboard/charts/questions.py, `REVEALS`: a
chart for every class here), since classroom draws nothing.
"""

import random

from classroom.changes import apply_change
from classroom.question import Question, QuestionError
from classroom.questions import blocked_question, fair_change_question, fair_focus_question
from classroom.trained_question import trained_head_question
from core.config import MASKS, AttentionConfig
from core.errors import quote


class Kind:
    """A kind of question. A subclass names it, labels it and says how a lesson makes one."""

    name = ""  # the Question's `kind`, as stored
    label = ""  # what a page's choice of question reads
    ranges = False  # the choices are ordered ranges: they read as a list, not as pills
    picks_a_key = False  # the choices are the keys of the asked row: a click on its cells may pick one
    from_lesson = True  # `suggest` makes one from any lesson
    reads = ()  # what `suggest` reads besides the lesson, the head and the seed: "change", "mask" (a deck asks no more)

    @classmethod
    def suggest(cls, cfg: AttentionConfig, rng: random.Random, head: int, change: str, mask: str) -> Question:
        """A fair question of this kind about head `head` of `cfg`, what is not given drawn by `rng`."""
        raise NotImplementedError

    @staticmethod
    def quote(question: Question, i: int) -> str:
        """Choice `i` as the explanation quotes a student's answer."""
        return f"“{question.choices[i]}”"

    @staticmethod
    def reveal_config(question: Question) -> AttentionConfig:
        """The lesson whose chart shows the answer."""
        return question.config

    @classmethod
    def reveal_lessons(cls, question: Question) -> tuple:
        """The lessons whose traces the reveal chart draws, in the order it takes them."""
        return (cls.reveal_config(question),)


class Focus(Kind):
    """In head h, which key does query q attend to most?"""

    name, label, picks_a_key = "focus", "Which key gets the most weight?", True

    @classmethod
    def suggest(cls, cfg, rng, head, change, mask):
        return fair_focus_question(cfg, head, rng)

    @staticmethod
    def quote(question, i):
        return f"“{question.choices[i]}” ({question.numbers[i]:.3f})"  # with the key's weight


class Trained(Focus):
    """In layer L, head h of a trained model reading a sentence, which piece does one piece attend to most?
    A focus question whose answer the model learned (classroom/trained_question.py): trained lessons only."""

    name, label = "trained", "Which piece does a trained head attend to most?"

    @classmethod
    def suggest(cls, cfg, rng, head, change, mask):
        return trained_head_question(cfg, head, rng, cls.name)


class Change(Kind):
    """If <a named change>, what happens to the largest weight in query q's row? Revealed after the change."""

    name, label, ranges, reads = "change", "What happens after a change?", True, ("change",)

    @classmethod
    def suggest(cls, cfg, rng, head, change, mask):
        return fair_change_question(cfg, head, rng, change)

    @staticmethod
    def reveal_config(question):
        return apply_change(question.config, question.change)

    @classmethod
    def reveal_lessons(cls, question):
        return question.config, cls.reveal_config(question)  # the row before and after


class Blocked(Kind):
    """Under a mask, which query rows may attend to no key? Revealed under that mask."""

    name, label, reads = "blocked", "Which rows are fully blocked?", ("mask",)

    @classmethod
    def suggest(cls, cfg, rng, head, change, mask):
        return blocked_question(cfg, mask or rng.choice(MASKS))

    @staticmethod
    def reveal_config(question):
        cfg = question.config
        return cfg if question.change == cfg.mask else apply_change(cfg, f"mask:{question.change}")


class Film(Kind):
    """In which layer does an induction head form? Made from a training run (classroom/film_question.py),
    whose own measurements are its reveal: it has no lesson."""

    name, label, from_lesson = "film", "Which layer forms an induction head?", False

    @classmethod
    def suggest(cls, cfg, rng, head, change, mask):
        raise QuestionError("A question about a training run is made from its film (Watch it learn), not a lesson.")

    @staticmethod
    def reveal_config(question):
        raise QuestionError("A question about a training run has no lesson: its reveal is the run's measurements.")

    @classmethod
    def reveal_lessons(cls, question):
        return ()


class Layers(Film):
    """What a second layer buys: of a one-layer and a two-layer run, which forms an induction head? Made
    from the two films (classroom/layers_question.py), whose measurements are its reveal: it has no lesson."""

    name, label = "layers", "What does a second layer buy?"


KINDS = {kind.name: kind for kind in (Focus, Change, Blocked, Film, Trained, Layers)}
LESSON_KINDS = tuple(name for name, kind in KINDS.items() if kind.from_lesson)  # what a lesson can be asked


def kind_of(name: str) -> type[Kind]:
    """The class of the kind named `name`; QuestionError for a name that is none."""
    kind = KINDS.get(name) if isinstance(name, str) else None
    if kind is None:
        raise QuestionError(f"Unknown kind of question {quote(name, 20)}: the kinds are {', '.join(KINDS)}.")
    return kind


def suggest(cfg: AttentionConfig, kind: str, head: int = 0, seed: int = 0, change: str = "",
            mask: str = "") -> Question:
    """A fair question of `kind` about head `head`, the row (and change or mask, unless given) drawn
    from `seed`: focus rows with a clear winner, changes not at a range edge. QuestionError says why
    when the lesson offers nothing to ask."""
    return kind_of(kind).suggest(cfg, random.Random(seed), head, change, mask)
