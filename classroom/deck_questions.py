"""The room question of a deck's question screen: made from its lesson by its kind's `suggest`, or from
the training films its kind is about (which the caller finds: a film store, or training them).

`films_needed(screen)` names the runs a screen needs trained (film screens, and questions about runs), so
that preparing a class (`make lecture`) trains them before the class and a question is never keyed late.
"""

from collections.abc import Callable

from classroom import film_question, kinds, layers_question
from classroom.decks import Screen
from classroom.question import Question, QuestionError
from classroom.screens import screen_kind
from core.film import Film, LearnSettings


def films_needed(screen: Screen) -> tuple[LearnSettings, ...]:
    """The training runs `screen` shows or asks about (none for a page, scene, video or lesson question)."""
    return screen_kind(screen.kind).films(screen)


def screen_question(screen: Screen, film_of: Callable[[LearnSettings], Film | None]) -> Question:
    """The question of a question screen; QuestionError says why there is none (such as a run not trained yet)."""
    if not screen_kind(screen.kind).asks:
        raise QuestionError(f"Screen {screen.number} is a {screen.kind}, not a question.")
    if screen.unready:  # its lesson is a stand-in (decks.Screen): never asked
        raise QuestionError(screen.unready)
    if kinds.kind_of(screen.question).from_lesson:
        return kinds.suggest(screen.lesson, screen.question, head=screen.head, seed=screen.seed, change=screen.change,
                             mask=screen.mask)
    films = []
    for settings in films_needed(screen):
        film = film_of(settings)
        if film is None:
            raise QuestionError(f"The {settings.layers}-layer training run this question is about is not trained yet "
                                "(`make lecture` trains it).")
        films.append(film)
    if screen.question == kinds.Layers.name:
        return layers_question.second_layer_question(*films)
    return film_question.which_layer_question(films[0])
