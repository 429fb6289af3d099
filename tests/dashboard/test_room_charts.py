"""The room's charts as Vega lays them out (vl-convert's scenegraph, as in test_phone_charts): the reveal's
count axis in whole numbers at the projector's type size, and the teacher's answers chart with every choice's
label whole, in lines, inside the chart."""

import json
import re

import pytest
import vl_convert as vlc

from classroom.decks import default_deck
from classroom.film_question import LAYER_CHOICES
from classroom.question import Question, QuestionError
from classroom.rooms.records import Tally
from dashboard import data
from dashboard.charts import questions, sizing
from dashboard.charts.draw import set_look
from dashboard.present import deck as decks

from .test_phone_charts import texts

DECK = default_deck(decks.names())


def deck_questions() -> list:
    """The default deck's questions that can be asked on this machine (a film's needs its run trained)."""
    out = []
    for screen in DECK.screens:
        if screen.kind == "question":
            try:
                out.append(decks.question_of(screen))
            except QuestionError:
                pass
    return out


def blocked_reveal():
    question = next(q for q in deck_questions() if q.kind == "blocked")
    return questions.reveal(question, [data.trace(cfg) for cfg in question.kind_class.reveal_lessons(question)])


def laid_out(chart, width: int, look: sizing.Look) -> dict:
    spec = chart.to_dict()
    spec["width"] = width
    set_look(spec, look)
    return vlc.vegalite_to_scenegraph(json.dumps(spec))


def axis_labels(node) -> list[dict]:
    """Every axis label of a laid-out chart (the text items of its "axis-label" marks)."""
    if node.get("role") == "axis-label":
        return list(node.get("items", []))
    return [label for item in node.get("items", []) for child in item.get("items", [])
            for label in axis_labels(child)]


def count_labels(chart, width: int, look: sizing.Look) -> list[dict]:
    """The labels of the axis along x (the counts): the ones that read as numbers."""
    labels = axis_labels(laid_out(chart, width, look)["scenegraph"])
    return [t for t in labels if re.fullmatch(r"[−\-]?[\d.,]+", str(t.get("text", "")))]


@pytest.mark.parametrize("width", [358, 900, 1800])
def test_the_blocked_reveal_counts_keys_in_whole_numbers(width):
    """It showed 0.0, 0.2, 0.4 … between whole counts of keys."""
    ticks = [t["text"] for t in count_labels(blocked_reveal(), width, sizing.PROJECTOR)]
    assert ticks and all(re.fullmatch(r"\d+", t) for t in ticks), ticks
    assert ticks[0] == "0" and len(set(ticks)) == len(ticks)


def test_the_reveal_s_axis_type_is_at_least_24_px_on_a_1080p_projector():
    """The projector's look multiplies the type by 1.5, and never gives less than 24 px at 1080p (issue 48 item 4;
    vl-convert's window counts as 1080 px high or more)."""
    ordinary = {t["fontSize"] for t in count_labels(blocked_reveal(), 900, sizing.ORDINARY)}
    projected = {t["fontSize"] for t in count_labels(blocked_reveal(), 900, sizing.PROJECTOR)}
    assert ordinary == {13} and projected == {max(13 * 1.5, sizing.PROJECTED_MIN_PX)} == {24}


@pytest.mark.parametrize("width", [250, 600, 1800])
@pytest.mark.parametrize("top", [1, 2, 3, 7, 13, 40])
def test_the_answers_chart_counts_students_in_whole_numbers(top, width):
    """With 2 students present its axis read 0, 1, 1, 2, 2 (ticks at 0.5, printed as whole numbers)."""
    q = deck_questions()[0]
    tally = Tally(1, q, (1,) + (0,) * (len(q.choices) - 1), 1, 1, False, None, 0)
    ticks = [t["text"] for t in count_labels(questions.answers_histogram(tally, "Round 1, answers", top), width,
                                             sizing.ORDINARY)]
    assert ticks and all(re.fullmatch(r"\d+", t) for t in ticks), ticks
    assert ticks[0] == "0" and len(set(ticks)) == len(ticks) and int(ticks[-1]) <= top, ticks


def longest_choice_question() -> Question:
    """A question with the longest choice of the default deck's questions (a film question's choices are
    fixed; its run need not be trained here) among its choices."""
    asked = deck_questions()
    longest = max([c for q in asked for c in q.choices] + list(LAYER_CHOICES), key=len)
    if longest in LAYER_CHOICES:
        return Question("film", "{}", "", 0, -1, "Which layer's head?", LAYER_CHOICES, (0,), False, "as measured")
    return next(q for q in asked if longest in q.choices)


@pytest.mark.parametrize("width", [320, 450, 700, 1100])
@pytest.mark.parametrize("revealed", [False, True])
def test_the_teacher_s_answers_chart_shows_every_choice_whole_inside_the_chart(width, revealed):
    """"stays (changes by les…": a long choice was cut at 160 px. Now in lines, whole, within the chart's box,
    at the widths a teacher's page gives it (one round alone, or two side by side)."""
    q = longest_choice_question()
    counts = tuple(range(len(q.choices)))
    tally = Tally(1, q, counts, sum(counts), sum(counts), revealed, 1 if revealed else None, 0)
    laid = texts(questions.answers_histogram(tally, "Round 1, answers", 6, lettered=True), width)  # the teacher's
    outside = [(t, round(a), round(b)) for t, a, b in laid if a < 0 or b > width]
    assert not outside, f"past the chart's edges (0..{width} px) or cut short: {outside}"
    assert not [t for t, *_ in laid if "…" in t]
    drawn = {" ".join(t.split(" / ")) for t, *_ in laid}
    for i, choice in enumerate(q.choices):  # by the letters the projector and the phones give them
        assert f"{questions.letter(i)}. {choice}" in drawn, f"{choice!r} is not drawn whole: {sorted(drawn)}"
    assert any(" / " in t for t, *_ in laid), "the longest choice is drawn in lines"
