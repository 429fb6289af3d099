"""The default deck's three new room questions (issue 41): two about the trained model, answered by its
measured attention and checked here on transformers' BertModel; one about what a second layer buys,
answered by two training runs' measurements, checked on films whose scores are chosen by hand."""

import json

import numpy as np
import pytest

from classroom import kinds
from classroom.deck_questions import films_needed, screen_question
from classroom.decks import default_deck
from classroom.layers_question import CHOICES, runs, second_layer_question
from classroom.question import Question, QuestionError
from core import PRESETS, AttentionConfig
from core.film import Film, LearnSettings
from tests.classroom.conftest import sid
from tests.core.conftest import load_reference, needs_model, reference_run


def new_screens(deck_names):
    deck = default_deck(deck_names)
    return [s for s in deck.screens if s.kind == "question" and s.question in ("trained", "layers")]


def test_the_default_deck_asks_two_trained_questions_and_one_about_a_second_layer(deck_names):
    assert [s.question for s in new_screens(deck_names)] == ["trained", "trained", "layers"]
    asked = [s for s in default_deck(deck_names).screens if s.kind == "question"]
    assert len(asked) >= 6


@needs_model
def test_the_trained_questions_answer_is_the_models_own_largest_weight(deck_names):
    """The row of the asked head and layer, from transformers' BertModel run on the same sentence."""
    for screen in new_screens(deck_names)[:2]:
        q = screen_question(screen, lambda s: None)
        cfg = q.config
        tokens, weights, _ = reference_run(load_reference(), [cfg.text])[cfg.text]
        row = weights[cfg.layer - 1, q.head, q.query]  # (T,)
        assert q.kind == "trained" and q.answer == (int(np.argmax(row)),)
        assert len(q.choices) == len(tokens) and q.choices[q.query].endswith(tokens[q.query])
        np.testing.assert_allclose(q.numbers, row, atol=1e-4)
        assert f"layer {cfg.layer}, head {q.head + 1}" in q.prompt and "all-MiniLM-L6-v2" in q.prompt


@needs_model
def test_the_deck_asks_where_it_looks_and_the_model_says_cat(deck_names):
    """Layer 4, head 2 on the example sentence: "it" gives its largest weight to "cat" (transformers' numbers)."""
    q = screen_question(new_screens(deck_names)[1], lambda s: None)
    tokens, weights, _ = reference_run(load_reference(), [q.config.text])[q.config.text]
    assert tokens[q.query] == "it" and tokens[int(np.argmax(weights[3, 1, q.query]))] == "cat"
    assert q.right_choices[0].endswith("cat")


@needs_model
def test_the_trained_question_quotes_its_sentence_with_one_full_stop(deck_names):
    """Screens 19 and 22 read 'reads “… tired.”. In layer': the sentence's own full stop ends the prompt's."""
    q = screen_question(new_screens(deck_names)[1], lambda s: None)
    assert q.config.text.endswith(".") and f"reads “{q.config.text}” In layer" in q.prompt
    assert "”." not in q.prompt


def test_a_quoted_sentence_without_its_own_stop_gets_one_after_the_quote():
    from classroom.trained_question import said

    assert said("the cat sat") == "“the cat sat”." and said("Did it? ") == "“Did it?”"


def test_a_trained_question_of_a_random_lesson_says_where_to_ask_it():
    with pytest.raises(QuestionError, match="Trained heads page"):
        kinds.suggest(PRESETS["default"], "trained")


CLASS_RUN = LearnSettings()


def film_with(layers: int, best: float, loss: float, settings=CLASS_RUN) -> Film:
    """A run whose last snapshot's highest induction score is `best` and whose loss ends at `loss`."""
    scores = np.zeros((2, layers, 4), np.float32)
    scores[-1, -1, 2] = best
    T = 4
    return Film(settings=settings.replace(layers=layers), loss=np.full(20, loss, np.float32),
                accuracy=np.zeros(20, np.float32), baseline=np.full(20, 3.0, np.float32),
                held_out=np.zeros(1, np.float32), probe=np.zeros(T, np.int64), snapshots=np.array([0, 20]),
                weights=np.zeros((2, layers, 4, T, T), np.float32), previous_token=scores.copy(), induction=scores)


@pytest.mark.parametrize("one, two, answer", [
    (0.06, 0.73, 1),  # what the class's runs measure: only the two-layer model
    (0.6, 0.73, 2),  # both
    (0.6, 0.2, 0),  # only the one-layer model
    (0.1, 0.49, 3),  # neither reaches 0.5
])
def test_the_second_layer_answer_is_which_run_reached_an_induction_score_of_a_half(one, two, answer):
    q = second_layer_question(film_with(1, one, 3.0), film_with(2, two, 0.8))
    assert q.kind == "layers" and q.choices == CHOICES and q.answer == (answer,)
    np.testing.assert_allclose(q.numbers, (one, two, 3.0, 0.8), rtol=1e-6)
    assert f"(its highest at the end of the run: {one:.2f})" in q.reason and f"(its highest at the end: {two:.2f})" \
        in q.reason and "3.47" in q.reason and "an induction score of 0.5 or more" in q.reason
    assert Question.from_json(q.to_json()) == q and q.kind_class is kinds.Layers
    assert json.loads(q.lesson) == LearnSettings().to_dict()  # the two-layer run's settings


def test_the_second_layer_question_compares_runs_of_the_same_settings():
    with pytest.raises(ValueError):
        second_layer_question(film_with(1, 0.1, 3.0), film_with(2, 0.7, 0.8, LearnSettings(seed=1)))
    with pytest.raises(ValueError):
        second_layer_question(film_with(2, 0.1, 3.0), film_with(1, 0.7, 0.8))
    assert runs(LearnSettings(heads=2)) == (LearnSettings(heads=2, layers=1), LearnSettings(heads=2))


def test_the_second_layer_screen_needs_both_runs_and_says_which_is_missing(deck_names):
    screen = new_screens(deck_names)[2]
    assert films_needed(screen) == runs(LearnSettings())
    with pytest.raises(QuestionError, match="1-layer training run"):
        screen_question(screen, lambda s: None)
    made = {1: film_with(1, 0.06, 3.0), 2: film_with(2, 0.73, 0.84)}
    q = screen_question(screen, lambda s: made[s.layers])
    assert q.right_choices == ("Only the two-layer model",)


@pytest.mark.slow
def test_the_class_runs_one_layer_forms_no_induction_head_and_two_layers_do():
    """The two real runs the deck asks about (core.learn trains them: about 10 s each on 2 cores)."""
    from core.learn import train

    q = second_layer_question(*(train(s) for s in runs(LearnSettings())))
    assert q.right_choices == ("Only the two-layer model",)
    assert q.numbers[0] < 0.5 <= q.numbers[1] and q.numbers[3] < q.numbers[2]


def test_a_room_asks_tallies_and_reveals_the_second_layer_question(rooms):
    key = rooms.open("123456", AttentionConfig().to_json())
    for i in range(3):
        rooms.join(key.code, sid(i))
    q = second_layer_question(film_with(1, 0.06, 3.0), film_with(2, 0.73, 0.84))
    n = rooms.ask(key, q)
    seen = rooms.student_view(key.code, sid(0))
    assert seen.kind == "layers" and seen.choices == CHOICES and not seen.revealed
    for i, pick in enumerate((1, 1, 0)):
        rooms.answer(key.code, sid(i), n, pick)
    assert rooms.teacher_view(key).current.counts == (1, 2, 0, 0)
    rooms.reveal(key)
    mine = rooms.student_view(key.code, sid(2))
    assert mine.revealed and mine.correct is False and mine.explanation == q.explain(0)
    assert rooms.teacher_view(key).current.correct == 2
