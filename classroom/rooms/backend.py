"""What a room backend implements: the `_` primitives, each one atomic (memory.py: under one lock;
redis_rooms.py: one Lua script each), and the few steps every rule in base.py starts with. The
registry's rules (base.py) call nothing else, so both backends behave alike.
"""

import time
from abc import ABC, abstractmethod

from classroom.rooms import clients
from classroom.rooms.codes import SCRYPT_N, normalise_code, secret_hash, valid_session
from classroom.rooms.kept import MemoryKept
from classroom.rooms.records import NotInRoom, NotTeacher, RawRoom, RoomError, RoomLimits, TeacherKey
from core import AttentionConfig, ConfigError

NOT_IN_ROOM = ("No open room has that code, or you are not in it (it may have closed): check the code on the "
               "teacher's screen, 8 letters and digits like 7K3M-Q9TX, and join again.")
NOT_TEACHER = ("This screen is not the teacher of that room: the room has closed or expired, or another screen "
               "took it back with the PIN.")
NO_QUESTION = "There is no question in this room yet."


class RoomBackend(ABC):
    def __init__(self, limits: RoomLimits | None = None, clock=time.monotonic, pin_cost: int = SCRYPT_N,
                 kept=None, wall=time.time):
        self.limits = limits or RoomLimits()
        self._clock = clock  # seconds; injectable for tests
        self._wall = wall  # seconds since the epoch: when a round was asked, for the CSV
        self._pin_cost = pin_cost
        self.kept = kept if kept is not None else MemoryKept(self.limits.max_kept)  # kept.py

    def _session(self, session) -> str:
        if not valid_session(session):
            raise RoomError("This browser session has no valid id: reload the page.")
        return session

    def _auth(self, key) -> tuple[str, str]:
        code = normalise_code(getattr(key, "code", None))
        digest = secret_hash(getattr(key, "secret", None))
        if not (isinstance(key, TeacherKey) and code and digest):
            raise NotTeacher(NOT_TEACHER)
        return code, digest

    def _teacher_raw(self, key, now: float | None = None, live: bool = False) -> tuple[str, str, RawRoom]:
        """(code, digest, the room as its teacher reads it), or NotTeacher. `live`: the rounds the panel draws
        only (the current one and the one it asks again), not every round of the lecture."""
        code, digest = self._auth(key)
        raw = self._read_teacher(code, digest, self._clock() if now is None else now, live)
        if raw is None:
            raise NotTeacher(NOT_TEACHER)
        return code, digest, raw

    def _teacher_result(self, result):
        status, value = result
        if status == "denied":
            raise NotTeacher(NOT_TEACHER)
        if status == "none":
            raise RoomError(NO_QUESTION)
        return value

    def _check_lesson(self, lesson_json):
        if not isinstance(lesson_json, str) or len(lesson_json) > self.limits.max_lesson_chars:
            raise RoomError(f"This lesson is too large to share with a room (at most "
                            f"{self.limits.max_lesson_chars:,} characters as JSON): use fewer hand-entered numbers.")
        try:
            AttentionConfig.from_json(lesson_json)
        except ConfigError as err:
            raise RoomError(str(err)) from None

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
    def _join(self, code, session, device, now) -> str: ...
    # "ok" | "full" | "crowded:<seats>" | "removed" | "locked" | "elsewhere" | "gone"

    @abstractmethod
    def _remove(self, code, digest, session, block) -> tuple: ...
    # (status, None): the session cannot join again, nor its device take a new seat; `block`: all its seats go

    @abstractmethod
    def _setting(self, code, digest, name, value) -> tuple: ...
    # (status, None); "locked" | "seats" | "unblock" | "show" (the presentation's JSON)

    @abstractmethod
    def _leave(self, code, session) -> None: ...

    @abstractmethod
    def _read(self, code, session, now) -> RawRoom | None: ...  # None: no room, or not a member; heartbeat

    @abstractmethod
    def _view(self, code, session, device, now) -> tuple: ...
    # ("ok", RawRoom: its last round, no answers) | ("removed", None) | ("gone", None); no seat taken

    @abstractmethod
    def _answer(self, code, session, number, answer_json, now, at) -> str: ...  # ... | "device:<seats>"
    # `at`: when, in epoch seconds (the CSV's seconds to answer)

    @abstractmethod
    def _read_teacher(self, code, digest, now, live=False) -> RawRoom | None: ...

    @abstractmethod
    def _set_lesson(self, code, digest, lesson, now) -> tuple: ...  # (status, version)

    @abstractmethod
    def _ask(self, code, digest, question_json, now, asked, screen) -> tuple: ...
    # (status, number); "" asks again (on the screen of the round it asks again); "rounds": at max_rounds

    @abstractmethod
    def _reveal(self, code, digest, now) -> tuple: ...

    @abstractmethod
    def _close(self, code, digest) -> tuple: ...

    @abstractmethod
    def _pin_record(self, code, now) -> str | None: ...

    @abstractmethod
    def _reclaim(self, code, pin_record, digest, now) -> str: ...

    @abstractmethod
    def _rooms_now(self, now) -> list: ...  # every live room's (open round's question JSON or "", presentation JSON)

    @abstractmethod
    def _refuse(self, code, device, session, seats, now) -> None: ...
    # a join refused at the bound `seats` per device, kept for the teacher if the room is open (≤ max_members a bound)

    @abstractmethod
    def _refused(self, code, seats, now) -> dict: ...  # device -> how many sessions were refused at `seats`

    @abstractmethod
    def _count(self, scope, window, now) -> int: ...

    @abstractmethod
    def _hit(self, scope, window, now) -> int: ...  # the count after this hit
