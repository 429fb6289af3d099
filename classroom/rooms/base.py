"""The room registry: the one interface pages call, whatever stores the rooms.

A backend (memory.py in one process, redis_rooms.py for several behind HAProxy) implements
the `_` primitives, each one atomic; this class holds every rule that does not depend on
storage: validation, rate limits, messages, tallies. So both backends behave alike, and
one suite of tests runs against both.

Limits count per client (clients.py): a browser session and, where known, its network address.
"""

import json
import time
from abc import ABC, abstractmethod

from classroom.question import Question, QuestionError
from classroom.rooms import clients
from classroom.rooms.clients import member_tag
from classroom.rooms.codes import (
    SCRYPT_N,
    hash_pin,
    new_code,
    new_secret,
    normalise_code,
    pin_problem,
    secret_hash,
    valid_session,
    verify_pin,
)
from classroom.rooms.records import (
    Member,
    NotInRoom,
    NotTeacher,
    RawRoom,
    RoomError,
    RoomLimits,
    StudentView,
    TeacherKey,
    TeacherView,
)
from classroom.rooms.tally import load_question, tally
from core import AttentionConfig, ConfigError

NOT_IN_ROOM = ("No open room has that code, or you are not in it (it may have closed): check the code on the "
               "teacher's screen, 8 letters and digits like 7K3M-Q9TX, and join again.")
NOT_TEACHER = ("This screen is not the teacher of that room: the room has closed or expired, or another screen "
               "took it back with the PIN.")
STALE = "The teacher has moved on to another question."
REVEALED = "The answer has been revealed: this question takes no more answers."
NO_QUESTION = "There is no question in this room yet."


class RoomRegistry(ABC):
    def __init__(self, limits: RoomLimits | None = None, clock=time.monotonic, pin_cost: int = SCRYPT_N):
        self.limits = limits or RoomLimits()
        self._clock = clock  # seconds; injectable for tests
        self._pin_cost = pin_cost

    # -- the teacher -------------------------------------------------------------------------
    def open(self, pin: str, lesson_json: str, session: str | None = None, address: str | None = None) -> TeacherKey:
        """A new room with the teacher's lesson; keep the key in st.session_state only. `session` and
        `address` name the client (clients.py): its allowance of rooms is its own."""
        if problem := pin_problem(pin):
            raise RoomError(problem)
        self._check_lesson(lesson_json)
        now, L = self._clock(), self.limits
        who = clients.scopes("open", session if valid_session(session) else None, clients.clean_address(address),
                             L.opens_per_session, L.opens_per_address)
        clients.take(self, who, L.open_window, now, "rooms opened")
        record, secret = hash_pin(pin, self._pin_cost), new_secret()  # slow hash: before any lock
        for _ in range(5):  # a taken code is a 1-in-10^10 event; five in a row means a broken RNG
            code = new_code()
            status = self._create(code, secret_hash(secret), record, lesson_json, now)
            if status == "ok":
                return TeacherKey(code, secret)
            if status == "full":
                raise RoomError(f"The lab already has {self.limits.max_rooms} open rooms, its limit: close one, "
                                "or wait for an unused one to expire.")
        raise RoomError("No free room code was found: try again.")

    def reclaim(self, code: str, pin: str, session: str, address: str | None = None) -> TeacherKey:
        """The room back on a new screen (or after a reload): a new key; the old one stops working.
        PIN tries count per client and room: others' wrong PINs never refuse the teacher's right one."""
        session, address, now = self._session(session), clients.clean_address(address), self._clock()
        self._guard_codes(session, address, now)
        norm = normalise_code(code)
        record = self._pin_record(norm, now) if norm else None
        if record is None:
            self._wrong_code(session, address, now)
        L = self.limits
        who = clients.scopes(f"pin:{norm}", session, address, L.pin_tries_per_session, L.pin_tries_per_address)
        clients.take(self, who, L.pin_window, now, "PIN tries for this room")  # before the check: exact under races
        if not verify_pin(pin, record):
            raise RoomError("That PIN does not match this room's.")
        secret = new_secret()
        if self._reclaim(norm, record, secret_hash(secret), now) != "ok":
            raise NotInRoom(NOT_IN_ROOM)
        return TeacherKey(norm, secret)

    def set_lesson(self, key: TeacherKey, lesson_json: str) -> int:
        """The teacher's lesson, shown to followers; returns its version (it grows on every change)."""
        self._check_lesson(lesson_json)
        return self._teacher_result(self._set_lesson(*self._auth(key), lesson_json, self._clock()))

    def ask(self, key: TeacherKey, question: Question) -> int:
        """A new round with `question`, answer hidden; returns the round's number."""
        if not isinstance(question, Question):
            raise RoomError("Only a question made by the lab can be asked.")
        text = question.to_json()
        if len(question.lesson) > self.limits.max_lesson_chars or len(text) > self.limits.max_question_chars:
            raise RoomError("This question's lesson is too large to share with a room.")
        return self._teacher_result(self._ask(*self._auth(key), text, self._clock()))

    def ask_again(self, key: TeacherKey) -> int:
        """The current question once more, in a new round; the old round stays for the before/after view."""
        return self._teacher_result(self._ask(*self._auth(key), "", self._clock()))

    def reveal(self, key: TeacherKey) -> None:
        """Show the answer to everyone: this round, and earlier rounds of the same question, close."""
        self._teacher_result(self._reveal(*self._auth(key), self._clock()))

    def close(self, key: TeacherKey) -> None:
        self._teacher_result(self._close(*self._auth(key)))

    def teacher_view(self, key: TeacherKey) -> TeacherView:
        now = self._clock()
        raw = self._read_teacher(*self._auth(key), now)
        if raw is None:
            raise NotTeacher(NOT_TEACHER)
        here = frozenset(s for s, seen in raw.members.items() if now - seen <= self.limits.present_seconds)
        answered = raw.rounds[-1].answers if raw.rounds else {}
        roster = tuple(Member(member_tag(s), max(0.0, now - seen), s in here, s in answered)
                       for s, seen in raw.members.items())
        return TeacherView(code=key.code, lesson_version=raw.version, lesson_json=raw.lesson, present=len(here),
                           members=len(raw.members), rounds=tuple(tally(r, here) for r in raw.rounds), roster=roster)

    def remove(self, key: TeacherKey, tag: str) -> str:
        """Take a student out of the room (a script, a prank): their answers go, and that session cannot rejoin."""
        code, digest = self._auth(key)
        raw = self._read_teacher(code, digest, self._clock())
        if raw is None:
            raise NotTeacher(NOT_TEACHER)
        session = next((s for s in raw.members if member_tag(s) == tag), None)
        if session is None:
            raise RoomError("That student is no longer in the room.")
        self._teacher_result(self._remove(code, digest, session))
        return tag

    # -- a student ---------------------------------------------------------------------------
    def join(self, code: str, session: str, address: str | None = None) -> str:
        """Join with a typed or scanned code; returns the code as stored. A client's wrong codes are
        rate-limited (its own, never anyone else's), and so are its seats in one room."""
        session, address, now = self._session(session), clients.clean_address(address), self._clock()
        self._guard_codes(session, address, now)
        norm = normalise_code(code)
        L = self.limits
        status = self._join(norm, session, address, now) if norm else "gone"
        if status == "full":
            raise RoomError(f"This room is full ({L.max_members} students).")
        if status == "crowded":
            raise RoomError(f"This network address already has {L.members_per_address} students present in this "
                            "room, its limit: leave the room on a device you no longer use, or ask the teacher.")
        if status == "removed":
            raise RoomError("The teacher has taken this browser out of the room.")
        if status != "ok":
            self._wrong_code(session, address, now)
        return norm

    def leave(self, code: str, session: str) -> None:
        norm = normalise_code(code)
        if norm and valid_session(session):
            self._leave(norm, session)

    def student_view(self, code: str, session: str) -> StudentView:
        """What this student sees now; also their heartbeat ("present"). Poll it every 1-2 s."""
        norm, raw = self._read_student(code, session)
        view = StudentView(code=norm, lesson_version=raw.version, lesson_json=raw.lesson, round=0)
        if not raw.rounds:
            return view
        r = raw.rounds[-1]
        q = load_question(r.question)
        mine = r.answers.get(session)
        return StudentView(code=norm, lesson_version=raw.version, lesson_json=raw.lesson, round=r.number,
                           kind=q.kind, prompt=q.prompt, choices=q.choices, multiple=q.multiple,
                           my_answer=None if mine is None else tuple(json.loads(mine)), revealed=r.revealed,
                           question=q if r.revealed else None)

    def answer(self, code: str, session: str, round_no: int, choice) -> None:
        """This student's answer to round `round_no`; answering again replaces it, until the reveal."""
        norm, raw = self._read_student(code, session)
        if not raw.rounds:
            raise RoomError(NO_QUESTION)
        current = raw.rounds[-1]
        if round_no != current.number:
            raise RoomError(STALE)
        try:
            picked = load_question(current.question).check(choice)
        except QuestionError as err:
            raise RoomError(str(err)) from None
        status = self._answer(norm, session, current.number, json.dumps(list(picked)), self._clock())
        messages = {"stale": STALE, "revealed": REVEALED,
                    "full": f"This question already has {self.limits.max_members} answers, its limit."}
        if status in messages:
            raise RoomError(messages[status])
        if status != "ok":
            raise NotInRoom(NOT_IN_ROOM)

    # -- shared rules ------------------------------------------------------------------------
    def _read_student(self, code, session) -> tuple[str, RawRoom]:
        norm = normalise_code(code)
        raw = self._read(norm, session, self._clock()) if norm and valid_session(session) else None
        if raw is None:  # no room, or not a member: the same answer, so it tells a guesser nothing
            raise NotInRoom(NOT_IN_ROOM)
        return norm, raw

    def _session(self, session) -> str:
        if not valid_session(session):
            raise RoomError("This browser session has no valid id: reload the page.")
        return session

    def _check_lesson(self, lesson_json):
        if not isinstance(lesson_json, str) or len(lesson_json) > self.limits.max_lesson_chars:
            raise RoomError(f"This lesson is too large to share with a room (at most "
                            f"{self.limits.max_lesson_chars:,} characters as JSON): use fewer hand-entered numbers.")
        try:
            AttentionConfig.from_json(lesson_json)
        except ConfigError as err:
            raise RoomError(str(err)) from None

    def _auth(self, key) -> tuple[str, str]:
        code = normalise_code(getattr(key, "code", None))
        digest = secret_hash(getattr(key, "secret", None))
        if not (isinstance(key, TeacherKey) and code and digest):
            raise NotTeacher(NOT_TEACHER)
        return code, digest

    def _teacher_result(self, result):
        status, value = result
        if status == "denied":
            raise NotTeacher(NOT_TEACHER)
        if status == "none":
            raise RoomError(NO_QUESTION)
        return value

    def _code_scopes(self, session, address):
        L = self.limits
        return clients.scopes("code", session, address, L.wrong_codes_per_session, L.wrong_codes_per_address)

    def _guard_codes(self, session: str, address: str | None, now: float):
        """A client at its limit is refused before its code is looked at: else the limit would not slow a guesser."""
        clients.check(self, self._code_scopes(session, address), self.limits.code_window, now, "wrong room codes")

    def _wrong_code(self, session: str, address: str | None, now: float):
        clients.count(self, self._code_scopes(session, address), self.limits.code_window, now)
        raise NotInRoom(NOT_IN_ROOM)

    # -- what a backend implements, each call atomic -----------------------------------------
    @abstractmethod
    def _create(self, code, secret_digest, pin_record, lesson, now) -> str: ...  # "ok" | "full" | "taken"

    @abstractmethod
    def _join(self, code, session, address, now) -> str: ...  # "ok" | "full" | "crowded" | "removed" | "gone"

    @abstractmethod
    def _remove(self, code, digest, session) -> tuple: ...  # (status, None); the session cannot join again

    @abstractmethod
    def _leave(self, code, session) -> None: ...

    @abstractmethod
    def _read(self, code, session, now) -> RawRoom | None: ...  # None: no room, or not a member; heartbeat

    @abstractmethod
    def _answer(self, code, session, number, answer_json, now) -> str: ...

    @abstractmethod
    def _read_teacher(self, code, digest, now) -> RawRoom | None: ...

    @abstractmethod
    def _set_lesson(self, code, digest, lesson, now) -> tuple: ...  # (status, version)

    @abstractmethod
    def _ask(self, code, digest, question_json, now) -> tuple: ...  # (status, number); "" asks again

    @abstractmethod
    def _reveal(self, code, digest, now) -> tuple: ...

    @abstractmethod
    def _close(self, code, digest) -> tuple: ...

    @abstractmethod
    def _pin_record(self, code, now) -> str | None: ...

    @abstractmethod
    def _reclaim(self, code, pin_record, digest, now) -> str: ...

    @abstractmethod
    def _count(self, scope, window, now) -> int: ...

    @abstractmethod
    def _hit(self, scope, window, now) -> int: ...  # the count after this hit
