"""A question screen in the students' handout: the prompt, the choices lettered as the projector and the phones
letter them (A, B, …), and the right answer with its reason, the numbers that decide it (`Question.truth`).

The class's split is not printed: the handout is made once per deck file and lab version (handout_service.py)
and shared with every room that presents the deck, so it holds no room's answers; the presenter view shows the
split of each round, and the room's answers download as spreadsheet files (dashboard/room/answers.py).
A handout is shared only by the teacher, never while a question is open, so printing the answers is its point.
"""

import html
from collections.abc import Callable

from classroom.deck_questions import screen_question
from classroom.decks import Screen
from classroom.question import QuestionError
from core.film import Film, LearnSettings

e = html.escape
NO_SPLIT = ("How the class answered is not printed here: this handout is made once for the deck, before any room "
            "answers; the presenter view shows each round's split, and the room's answers download as a spreadsheet.")


def letter(i: int) -> str:
    """The letter of choice `i` (0 = A), as the projector and the phones label a question's choices
    (dashboard/charts/questions.py's `letter`: a test holds them equal)."""
    return chr(65 + i) if i < 26 else letter(i // 26 - 1) + chr(65 + i % 26)


def question_html(s: Screen, film_of: Callable[[LearnSettings], Film | None]) -> str:
    """The screen's question, its lettered choices and its answer with the reason; or why it has none here."""
    try:
        q = screen_question(s, film_of)
    except QuestionError:  # why (its run not trained here) is the teacher's business, said by `make handout`
        return '<p class="meta">The question is not printed here: it could not be made when this handout was.</p>'
    choices = "".join(f'<li><span class="letter">{letter(i)}.</span> {e(str(c))}</li>' for i, c in enumerate(q.choices))
    right = ", ".join(f"{letter(i)} ({e(str(q.choices[i]))})" for i in q.answer)
    which = ("The right answer" if len(q.answer) == 1 else
             "The right answer ticks" if q.multiple else "Any of these is right")
    how = " Tick every choice that applies." if q.multiple else ""
    return (f'<div class="question" data-lab="question" data-screen="{s.number}">'
            f'<p class="prompt"><strong>{e(q.prompt)}</strong>{how}</p><ol class="choices">{choices}</ol>'
            f'<p class="answer">{which}: {right}. {e(q.truth)}</p><p class="meta">{NO_SPLIT}</p></div>')
