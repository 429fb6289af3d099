"""A round's answers counted for the teacher's histogram, from what a backend stored."""

import json
from functools import lru_cache

from classroom.question import Question
from classroom.rooms.records import RawRound, Tally


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
                 revealed=raw.revealed, correct=correct if raw.revealed else None, again_of=raw.again_of)

