"""The Watch it learn question as a room stores it: its answer key is the film's measured layer,
computed here by hand on films whose final induction scores are chosen."""

import numpy as np
import pytest

from classroom.film_question import LAYER_CHOICES, which_layer_question
from classroom.question import Question
from core.film import Film, LearnSettings


def film_with(final_induction, layers=2) -> Film:
    scores = np.zeros((2, *np.shape(final_induction)), dtype=np.float32)
    scores[-1] = final_induction
    T = 4
    return Film(settings=LearnSettings(layers=layers), loss=np.zeros(3, np.float32), accuracy=np.zeros(3, np.float32),
                baseline=np.zeros(3, np.float32), held_out=np.zeros(1, np.float32), probe=np.zeros(T, np.int64),
                snapshots=np.array([0, 3]),
                weights=np.zeros((2, *np.shape(final_induction), T, T), np.float32), previous_token=scores.copy(),
                induction=scores)


@pytest.mark.parametrize("final, answer, best", [
    ([[0.1, 0.2, 0.05, 0.0], [0.7, 0.3, 0.6, 0.1]], 1, (0.2, 0.7)),  # layer 2 holds the induction heads
    ([[0.55, 0.2, 0.0, 0.0], [0.1, 0.3, 0.2, 0.1]], 0, (0.55, 0.3)),  # a run where layer 1's head won
    ([[0.1, 0.2, 0.0, 0.0], [0.45, 0.3, 0.2, 0.1]], 2, (0.2, 0.45)),  # no head reached 0.5
])
def test_the_answer_is_the_layer_of_the_measured_induction_head(final, answer, best):
    q = which_layer_question(film_with(final))
    assert q.kind == "film" and q.choices == LAYER_CHOICES and q.answer == (answer,)
    np.testing.assert_allclose(q.numbers, (*best, 0.0), rtol=1e-6)
    assert f"{max(best):.2f}" in q.truth


def test_the_reason_names_every_head_that_passed_as_a_sentence_does():
    q = which_layer_question(film_with([[0.1, 0.2, 0.0, 0.0], [0.7, 0.3, 0.6, 0.5]]))
    assert "in layer 2, heads 1, 3 and 4 reached an induction score of 0.5 or more" in q.reason
    one = which_layer_question(film_with([[0.1, 0.2, 0.0, 0.0], [0.1, 0.3, 0.6, 0.1]]))
    assert "in layer 2, head 3 reached an induction score of 0.5 or more" in one.reason


def test_the_reason_says_its_highest_scores_are_the_final_ones():
    """The numbers are the last snapshot's: a head that scored 0.9 mid-run and 0.3 at the end is not "highest 0.9"."""
    film = film_with([[0.1, 0.2, 0.0, 0.0], [0.7, 0.3, 0.6, 0.5]])
    film.induction[0] = 0.9  # an earlier snapshot, higher than any final score
    q = which_layer_question(film)
    assert "(the highest at the end of the run: 0.70); the highest in layer 1 at the end: 0.20" in q.reason
    none = which_layer_question(film_with([[0.1, 0.2, 0.0, 0.0], [0.45, 0.3, 0.2, 0.1]]))
    assert "no head reached an induction score of 0.5 or more in this run (highest at the end of the run: " \
           "layer 1 0.20, layer 2 0.45)" in none.reason


def test_it_round_trips_through_json_as_a_room_stores_it():
    q = which_layer_question(film_with([[0.1, 0.2, 0.0, 0.0], [0.7, 0.3, 0.6, 0.1]]))
    again = Question.from_json(q.to_json())
    assert again == q and again.is_correct(1) and not again.is_correct(2)


def test_a_one_layer_run_is_not_asked_about():
    with pytest.raises(ValueError):
        which_layer_question(film_with([[0.1, 0.2, 0.0, 0.0]], layers=1))


@pytest.mark.parametrize("task, trained_on", [("induction", "trained on sequences of random symbols in which a "
                                                              "stretch repeats. In which layer"),
                                               ("text", "trained to predict the next symbol (a letter, the space or a "
                                                        "mark) of an English text; its heads are then measured on "
                                                        "sequences of random symbols")])
def test_the_prompt_says_what_the_run_was_trained_on(task, trained_on):
    film = film_with([[0.1, 0.2, 0.0, 0.0], [0.7, 0.3, 0.6, 0.1]])
    film = Film(**{**film.__dict__, "settings": LearnSettings(task=task)})
    q = which_layer_question(film)
    assert trained_on in q.prompt and ("English" in q.prompt) == (task == "text")
    assert q.choices[2] == "No head reaches an induction score of 0.5 or more in this run"
    # one word for what the sequences are written in: symbols, not letters
    assert "looks at the symbol that came just after the earlier copy of the current symbol?" in q.prompt
    assert "letter" not in q.prompt.replace("(a letter,", "")
