"""The kinds of question, one class each (classroom/kinds.py): a stored question finds its class by the
name it was stored with, so what rooms stored before the registry reads back the same and is explained
and revealed as before."""

import json

import pytest

from classroom import kinds
from classroom.kinds import KINDS, LESSON_KINDS, kind_of, suggest
from classroom.question import Question, QuestionError
from core import AttentionConfig
from core.lesson import with_mask

LESSON = AttentionConfig(text="The cat sat.", d_model=4, num_heads=1)
# Two questions as a room stored them before the kinds had classes (made by the code of bb5b932).
_STORED_LESSON = json.dumps(LESSON.to_json())
STORED_FOCUS = (
    '{"answer": [3], "change": "", "choices": ["1 The", "2 cat", "3 sat", "4 ⟨.⟩"], "head": 0, "kind": "focus", '
    f'"lesson": {_STORED_LESSON}, "multiple": false, "numbers": [0.13914082944393158, 0.28258591890335083, '
    '0.17092207074165344, 0.40735122561454773], "prompt": "In head 1, which key does query “2 cat” attend to most?", '
    '"query": 1, "reason": "in head 1, query “2 cat” gives its largest weight, 0.407, to key “4 ⟨.⟩”; the next '
    'largest, 0.283, goes to “2 cat”"}')
STORED_BLOCKED = (
    '{"answer": [4], "change": "causal", "choices": ["1 The", "2 cat", "3 sat", "4 ⟨.⟩", "no row is fully blocked"], '
    f'"head": 0, "kind": "blocked", "lesson": {_STORED_LESSON}, "multiple": true, "numbers": [1.0, 2.0, 3.0, 4.0], '
    '"prompt": "If the causal mask (each query may attend only to itself and earlier tokens) is switched on, which '
    'query rows are fully blocked (may attend to no key at all)? Tick each one, or “no row is fully blocked”.", '
    '"query": -1, "reason": "if the causal mask (each query may attend only to itself and earlier tokens) is switched '
    'on, every row may attend to at least one key (the fewest, 1 key, for row “1 The”), so no row is fully blocked"}')


def test_the_stored_lesson_is_the_one_these_questions_were_made_from():
    """The literals above carry LESSON as this code writes it; it wrote the same then (a changed
    AttentionConfig.to_json would make them another lesson's questions)."""
    assert json.loads(json.loads(STORED_FOCUS)["lesson"]) == {
        "custom_mask": "", "d_model": "4", "device": "auto", "k": "", "mask": "none", "num_heads": "1",
        "pad_length": "4", "positional": "none", "q": "", "scale": "true", "seed": "0", "seq_len": "6",
        "source": "text", "temperature": "1.0", "text": "The cat sat.", "v": "", "window": "3"}


@pytest.mark.parametrize("stored", [STORED_FOCUS, STORED_BLOCKED], ids=["focus", "blocked"])
def test_a_question_stored_before_the_registry_reads_back_as_it_was_stored(stored):
    q = Question.from_json(stored)
    assert q.to_json() == stored and q.kind_class is KINDS[json.loads(stored)["kind"]]


def test_a_stored_focus_question_quotes_the_chosen_keys_weight_and_reveals_its_own_lesson():
    q = Question.from_json(STORED_FOCUS)
    assert q.explain(0) == f"You chose “1 The” (0.139), but {q.reason}."
    assert q.kind_class.reveal_lessons(q) == (LESSON,)


def test_a_stored_blocked_question_quotes_the_row_alone_and_reveals_the_lesson_under_its_mask():
    q = Question.from_json(STORED_BLOCKED)
    assert q.explain([0]) == f"You ticked “1 The”, but {q.reason}."
    assert q.kind_class.reveal_lessons(q) == (with_mask(LESSON, "causal"),)


def test_a_change_question_reveals_the_lesson_before_and_after_the_change():
    q = suggest(LESSON, "change", change="heads*2")
    assert q.kind_class.reveal_lessons(q) == (LESSON, LESSON.replace(num_heads=2))


def test_each_kind_is_one_class_named_as_it_is_stored_with_a_label():
    assert list(KINDS) == ["focus", "change", "blocked", "film", "trained", "layers"]
    for name, kind in KINDS.items():
        assert issubclass(kind, kinds.Kind) and kind.name == name and kind.label.endswith("?")
    assert LESSON_KINDS == ("focus", "change", "blocked", "trained")


def test_an_unknown_kind_is_refused_in_words():
    for name in ("essay", "", ["focus"], None):
        with pytest.raises(QuestionError, match="Unknown kind of question"):
            kind_of(name)


def test_a_film_question_is_not_made_from_a_lesson_and_has_no_lesson_to_reveal():
    with pytest.raises(QuestionError, match="training run"):
        suggest(LESSON, "film")
    assert kinds.Film.reveal_lessons(None) == ()
