"""`Question`: one predict-then-reveal question about a lesson, with its answer key and the
sentence that explains the answer from the lesson's numbers.

A frozen record that round-trips through JSON (a classroom room stores it, in memory or in
Redis). `classroom.questions` makes them from `run_trace`; this module only holds and checks them.
What differs between kinds of question (how they are explained and revealed) is each kind's class
in classroom/kinds.py, found by the stored name (`kind_class`).
"""

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from numbers import Integral

from core.config import AttentionConfig
from core.limits import MAX_TOKENS

NO_ROW = "no row is fully blocked"  # the last choice of a "blocked" question
# A question as JSON (its lesson, labels, numbers): a room stores none longer (RoomLimits may say
# less, never more) and none longer is read back, so what a room stored can always be read.
MAX_QUESTION_CHARS = 40_000
# What a question asks, and so what identifies it (Question.key): inputs only. The lesson is its settings
# as JSON (AttentionConfig.to_json, or a training run's settings), written by a teacher, never computed.
ASKED = ("kind", "lesson", "change", "head", "query", "choices")


class QuestionError(ValueError):
    """A question that cannot be asked, or an answer that is not one, explained."""


@dataclass(frozen=True)
class Question:
    kind: str  # the name of its kind (classroom/kinds.py): "focus" | "change" | "blocked" | "film"
    lesson: str  # the lesson asked about, as AttentionConfig.to_json()
    change: str  # "change": the named change (classroom.changes); "blocked": the mask kind; else ""
    head: int  # 0-based head ("focus", "change"); 0 for "blocked"
    query: int  # 0-based query row ("focus", "change"); -1 for "blocked"
    prompt: str  # what the student reads
    choices: tuple  # labels of the choices, in order (str)
    answer: tuple  # indices of the right choices: "focus", any one of them (ties);
    #                "change", the one range; "blocked", exactly this set
    multiple: bool  # True: tick every choice that applies ("blocked")
    reason: str  # the truth from the numbers, as a clause ("in head 1, query “2 cat” gives ...")
    numbers: tuple = ()  # per choice, what `explain` quotes: "focus", each key's weight;
    #                      "blocked", how many keys each row may attend to; "change", (before, after)

    # -- answers ---------------------------------------------------------------------------
    def check(self, answer) -> tuple:
        """The answer as sorted choice indices; QuestionError if it is not a valid answer."""
        try:
            picked = (answer,) if isinstance(answer, Integral) else tuple(answer)
        except TypeError:
            raise QuestionError("That answer is not one of the choices.") from None
        if not all(isinstance(i, Integral) and not isinstance(i, bool) and 0 <= i < len(self.choices) for i in picked):
            raise QuestionError("That answer is not one of the choices.")
        picked = tuple(sorted({int(i) for i in picked}))  # numpy ints from a chart click become plain ints
        if not self.multiple and len(picked) != 1:
            raise QuestionError("Pick exactly one answer.")
        if self.multiple and not picked:
            raise QuestionError(f"Tick at least one row, or “{NO_ROW}”.")
        if self.multiple and len(picked) > 1 and len(self.choices) - 1 in picked:
            raise QuestionError(f"“{NO_ROW}” cannot be ticked together with a row.")
        return picked

    def is_correct(self, answer) -> bool:
        picked = self.check(answer)
        return picked == self.answer if self.multiple else picked[0] in self.answer

    @property
    def truth(self) -> str:
        """The answer in one sentence, with its numbers."""
        return self.reason[:1].upper() + self.reason[1:] + "."

    def explain(self, answer=None) -> str:
        """One sentence: the student's answer (if any) beside the truth and its numbers."""
        if answer is None:
            return self.truth
        picked = self.check(answer)
        if self.is_correct(picked):
            return f"Right: {self.reason}."
        verb = "ticked" if self.multiple else "chose"
        return f"You {verb} {self._quote(picked)}, but {self.reason}."

    def _quote(self, picked: tuple) -> str:
        return join_words([self.kind_class.quote(self, i) for i in picked])

    @property
    def right_choices(self) -> tuple:
        """The labels of the right choices."""
        return tuple(self.choices[i] for i in self.answer)

    def right_answer(self, shown=None) -> str:
        """The right choices as a sentence reads them: all of them for a question that ticks every choice that
        applies ("2 cat, 3 sat and 4 on"), any one of them for one that takes a single choice (a tie: "2 cat or
        4 on"). `shown(i, choice)` writes each choice (its letter before it, say); else its label alone."""
        parts = [shown(i, self.choices[i]) if shown else self.choices[i] for i in sorted(self.answer)]
        if len(parts) == 1:
            return parts[0]
        return ", ".join(parts[:-1]) + (" and " if self.multiple else " or ") + parts[-1]

    # -- its kind and its lessons -----------------------------------------------------------
    @property
    def kind_class(self):
        """The class of its kind (classroom/kinds.py)."""
        return _kinds().kind_of(self.kind)

    @property
    def config(self) -> AttentionConfig:
        """The lesson the question is about (not for "film", whose lesson is a training run's settings)."""
        return AttentionConfig.from_json(self.lesson)

    @property
    def reveal_config(self) -> AttentionConfig:
        """The lesson whose chart shows the answer: e.g. after the change, or under the mask."""
        return self.kind_class.reveal_config(self)

    # -- storage ---------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {f.name: list(v) if isinstance(v := getattr(self, f.name), tuple) else v
                for f in dataclasses.fields(self)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False)

    def key(self) -> str:
        """The question's identity: a hash of what it asks (ASKED: its kind, lesson, change, head, query and
        choices), never of what was computed to answer it. Its numbers, answer key and reason come from the
        lesson through the CPU's kernels, whose last bits may differ between two computations (another
        process, another machine, another kernel path): the same question asked twice has one key."""
        asked = json.dumps([getattr(self, name) for name in ASKED], ensure_ascii=False)
        return hashlib.sha256(asked.encode("utf-8")).hexdigest()[:16]

    @classmethod
    def from_dict(cls, values: dict) -> "Question":
        try:
            q = cls(**{f.name: _field(f.name, values[f.name]) for f in dataclasses.fields(cls)
                       if f.name in values or f.default is dataclasses.MISSING})
        except (KeyError, TypeError, ValueError) as err:
            raise QuestionError(f"The question could not be read ({err}).") from None
        q._validate()
        return q

    @classmethod
    def from_json(cls, text: str) -> "Question":
        if len(text) > MAX_QUESTION_CHARS:
            raise QuestionError("The question is too large to read.")
        try:
            values = json.loads(text)
        except json.JSONDecodeError as err:
            raise QuestionError(f"The question could not be read ({err.msg}).") from None
        if not isinstance(values, dict):
            raise QuestionError("The question could not be read (not an object).")
        return cls.from_dict(values)

    def _validate(self):
        n = len(self.choices)
        ok = (self.kind in _kinds().KINDS and 1 <= n <= MAX_TOKENS + 1 and all(isinstance(c, str) for c in self.choices)
              and self.answer and all(isinstance(i, int) and 0 <= i < n for i in self.answer))
        if not ok:
            raise QuestionError("The question could not be read (its choices or answer key are invalid).")


_TUPLES = ("choices", "answer", "numbers")
_TYPES = {"kind": str, "lesson": str, "change": str, "head": int, "query": int, "prompt": str,
          "multiple": bool, "reason": str}


def _field(name: str, value):
    if name in _TUPLES:
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"{name} must be a list")
        return tuple(float(v) if name == "numbers" else v for v in value)
    kind = _TYPES[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"{name} must be {kind.__name__}")
    return value


def _kinds():
    """classroom/kinds.py, imported when first used, not above: it makes Questions."""
    from classroom import kinds

    return kinds


def join_words(items: list) -> str:
    """"a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
