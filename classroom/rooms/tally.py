"""What a backend stored, read for a screen: a round's answers counted for the teacher's histogram, the seats
that left with answers that count, and what a student (or a viewer) sees."""

import json
from functools import lru_cache

from classroom.question import Question
from classroom.rooms.presentation import Presentation
from classroom.rooms.records import RawRoom, RawRound, StudentView, Tally


@lru_cache(maxsize=64)
def load_question(text: str) -> Question:
    """A stored question (immutable once asked, so parsed once per process)."""
    return Question.from_json(text)


def tally(raw: RawRound, present: frozenset = frozenset()) -> Tally:
    """One round's histogram: each choice's count, who answered (and how many of them are `present`
    sessions), and (once revealed) who was right. A removed student's answers are gone from storage."""
    q = load_question(raw.question)
    counts, correct = [0] * len(q.choices), 0
    for text in raw.answers.values():
        picked = tuple(json.loads(text))
        for i in picked:
            counts[i] += 1
        correct += q.is_correct(picked)
    return Tally(number=raw.number, question=q, counts=tuple(counts), answered=len(raw.answers),
                 answered_present=sum(s in present for s in raw.answers),
                 revealed=raw.revealed, correct=correct if raw.revealed else None, again_of=raw.again_of,
                 screen=raw.screen)


def gone_seats(raw: RawRoom) -> dict:
    """Seats that left the room but whose answers still count in a round: session -> device."""
    return {s: d for s, d in raw.answered.items() if s not in raw.members}


@lru_cache(maxsize=64)
def presentation_of(show: str) -> Presentation:
    return Presentation.from_json(show) if show else Presentation()


def student_view_of(code: str, raw: RawRoom, session: str | None) -> StudentView:
    """The room's last round as a student sees it: the question's answer only once revealed; `session`'s
    own answer (None: a viewer's, which has none, and which gets the class's answers once revealed: the
    backend reads them for a viewer only then)."""
    shown = presentation_of(raw.show)
    view = StudentView(code=code, lesson_version=raw.version, lesson_json=raw.lesson, round=0, presentation=shown)
    if not raw.rounds:
        return view
    r = raw.rounds[-1]
    q = load_question(r.question)
    mine = r.answers.get(session) if session is not None else None
    return StudentView(code=code, lesson_version=raw.version, lesson_json=raw.lesson, round=r.number,
                       kind=q.kind, prompt=q.prompt, choices=q.choices, multiple=q.multiple,
                       my_answer=None if mine is None else tuple(json.loads(mine)), revealed=r.revealed,
                       question=q if r.revealed else None, presentation=shown,
                       tally=tally(r) if session is None and r.revealed else None)
