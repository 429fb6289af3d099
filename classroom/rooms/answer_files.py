"""A room's answers as two CSV files a spreadsheet or a gradebook opens as they are (docs/classroom.md,
What stays after class). Both are UTF-8 with a byte-order mark (Excel reads a token such as "⟨.⟩" right
only with one) and RFC 4180 line ends.

`room-<CODE>-<YYYY-MM-DD>-answers.csv`, one row per answer of every round:

    round, screen, asked, question, answer, right, right answer, seconds, seat

`screen` is the deck's screen that asked it (empty outside a deck), `asked` the time it was asked (UTC),
`answer` the choice (ticked choices joined by " + "), `seconds` from the ask to the seat's last answer,
`seat` the seat's anonymous tag (clients.member_tag): a tag follows one seat from round to round.

`room-<CODE>-<YYYY-MM-DD>-by-student.csv`, what a gradebook imports: one row per seat that answered, a
column per round with 1 (right) or 0 (wrong), empty where the seat did not answer, then its totals:

    seat, round 1, round 2 (screen 5), round 3 (round 2 again), ..., right, answered

`right`, `right answer` and the 1/0 cells stay empty for a round not yet revealed while the room is open (a
file opened on the projector must not give the answer away); after closing every round's key is in. No
session id, address or device appears. A cell a spreadsheet would run (a token typed as "=1+1") starts with
a "'".
"""

import csv
import io
import json
from dataclasses import dataclass
from datetime import UTC, datetime

from classroom.rooms.clients import member_tag
from classroom.rooms.tally import load_question

BOM = "\ufeff"  # UTF-8's byte-order mark, as a text's first character
ANSWERS_HEADER = ("round", "screen", "asked", "question", "answer", "right", "right answer", "seconds", "seat")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet runs a cell that starts so (CSV injection)


@dataclass(frozen=True)
class AnswerFiles:
    """A room's answers as the two CSVs, named by its code and the lab machine's date at `at`."""

    code: str  # the room's code, as the lab normalised it (letters and digits only)
    at: float  # when they were read (or the room closed), epoch seconds
    answers: str  # one row per answer
    students: str | None  # one row per seat; None for a set kept before this file existed

    def name(self, what: str) -> str:
        return file_name(self.code, self.at, what)


def file_name(code: str, at: float, what: str) -> str:
    """`what`: "answers" or "by-student"; the date is the lab machine's (local) date at `at`."""
    return f"room-{code}-{datetime.fromtimestamp(at).strftime('%Y-%m-%d')}-{what}.csv"


def _cell(text: str) -> str:
    """A cell a spreadsheet shows as text: a leading formula character (a teacher's token "=1+1") is quoted,
    numbers such as -0.25 are left as they are."""
    if text.startswith(_FORMULA):
        try:
            float(text)
        except ValueError:
            return "'" + text
    return text


def when(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if seconds else ""


def _csv(header, rows) -> str:
    out = io.StringIO()
    out.write(BOM)
    writer = csv.writer(out, lineterminator="\r\n")  # RFC 4180
    for row in (header, *rows):
        writer.writerow([_cell(str(v)) for v in row])
    return out.getvalue()


def _right_answer(q) -> str:
    return (" + " if q.multiple else " or ").join(q.right_choices)  # ticked together, or any one of a tie


def answers_rows(rounds, closed: bool = False) -> list[tuple]:
    """One row per answer of `rounds` (RawRound, oldest first, every answer), seats in tag order."""
    rows = []
    for r in rounds:
        q = load_question(r.question)
        shown = r.revealed or closed
        for tag, session in sorted((member_tag(s), s) for s in r.answers):
            picked = tuple(json.loads(r.answers[session]))
            at = r.times.get(session, 0.0)
            seconds = f"{max(0.0, at - r.asked):.1f}" if at and r.asked else ""
            rows.append((r.number, r.screen or "", when(r.asked), q.prompt, " + ".join(q.choices[i] for i in picked),
                         ("yes" if q.is_correct(picked) else "no") if shown else "",
                         _right_answer(q) if shown else "", seconds, tag))
    return rows


def _column(r) -> str:
    notes = [f"screen {r.screen}"] if r.screen else []
    notes += [f"round {r.again_of} again"] if r.again_of else []
    return f"round {r.number}" + (f" ({', '.join(notes)})" if notes else "")


def students_rows(rounds, closed: bool = False) -> tuple[tuple, list[tuple]]:
    """(header, rows): a row per seat that answered, a column per round (1 right, 0 wrong, empty: no answer,
    or the key not shown yet), then how many it got right and how many rounds it answered."""
    marks: dict = {}  # tag -> {round number: "1" | "0" | ""}
    for r in rounds:
        q = load_question(r.question)
        for session, text in r.answers.items():
            right = q.is_correct(tuple(json.loads(text)))
            marks.setdefault(member_tag(session), {})[r.number] = str(int(right)) if r.revealed or closed else ""
    header = ("seat", *(_column(r) for r in rounds), "right", "answered")
    rows = [(tag, *(got.get(r.number, "") for r in rounds), sum(v == "1" for v in got.values()), len(got))
            for tag, got in sorted(marks.items())]
    return header, rows


def answer_files(code: str, rounds, at: float, closed: bool = False) -> AnswerFiles:
    """Both CSVs of `rounds`; `closed`: the class is over, every round's answer key is in."""
    return AnswerFiles(code, at, _csv(ANSWERS_HEADER, answers_rows(rounds, closed)),
                       _csv(*students_rows(rounds, closed)))
