"""The room registry: the one interface pages call, whatever stores the rooms.

A backend (memory.py in one process, redis_rooms.py for several behind HAProxy) implements
the `_` primitives of backend.py, each one atomic; this class holds every rule that does not depend on
storage: validation, rate limits, messages, tallies. So both backends behave alike, and
one suite of tests runs against both.

Limits count per client (clients.py): a browser session and, where known, its network address.
Seats count per device (clients.device): the network address where known. A device holds at most
its room's bound of seats, and its answers count at most that many times in a round, whichever
seats sent them and whether or not those seats are still here (docs/classroom.md, Seats).
"""

import json

from classroom.decks import MAX_SCREENS
from classroom.question import Question, QuestionError
from classroom.rooms import clients
from classroom.rooms.after_class import AfterClass
from classroom.rooms.backend import NO_QUESTION, NOT_IN_ROOM, NOT_TEACHER  # noqa: F401 (pages and tests import it here)
from classroom.rooms.clients import member_tag
from classroom.rooms.codes import (
    hash_pin,
    new_code,
    new_secret,
    normalise_code,
    pin_problem,
    secret_hash,
    valid_session,
    verify_pin,
)
from classroom.rooms.presentation import MAX_PRESENTATION_CHARS, Presentation
from classroom.rooms.records import (
    Member,
    NotInRoom,
    RawRoom,
    RoomError,
    StudentView,
    TeacherKey,
    TeacherView,
)
from classroom.rooms.tally import gone_seats, load_question, presentation_of, student_view_of, tally

STALE = "The teacher has moved on to another question."
REVEALED = "The answer has been revealed: this question takes no more answers."


class SeatElsewhere(RoomError):
    """This seat joined from another network address: a copied seat cookie is no seat (docs/classroom.md)."""


class RoomRegistry(AfterClass):
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

    def ask(self, key: TeacherKey, question: Question, screen: int = 0) -> int:
        """A new round with `question`, answer hidden; returns the round's number. `screen`: the deck's screen
        that asks it (1, 2, ...; the CSV's "screen"), 0 outside a deck. A room asks at most
        RoomLimits.max_rounds rounds: beyond, a clear refusal (no earlier round is ever dropped)."""
        if not isinstance(question, Question):
            raise RoomError("Only a question made by the lab can be asked.")
        if isinstance(screen, bool) or not isinstance(screen, int) or not 0 <= screen <= MAX_SCREENS:
            raise RoomError(f"A deck's screen is a whole number from 1 to {MAX_SCREENS}.")
        text = question.to_json()
        if len(question.lesson) > self.limits.max_lesson_chars or len(text) > self.limits.max_question_chars:
            raise RoomError("This question's lesson is too large to share with a room.")
        return self._asked(self._ask(*self._auth(key), text, self._clock(), self._wall(), screen))

    def ask_again(self, key: TeacherKey) -> int:
        """The current question once more, in a new round; the old round stays for the before/after view."""
        return self._asked(self._ask(*self._auth(key), "", self._clock(), self._wall(), 0))

    def _asked(self, result) -> int:
        if result[0] == "rounds":
            raise RoomError(f"This room has asked {self.limits.max_rounds} questions, its limit; every answer is "
                            "kept. Download the answers (CSV), then close this room and open a new one to ask more.")
        return self._teacher_result(result)

    def reveal(self, key: TeacherKey) -> None:
        """Show the answer to everyone: this round, and earlier rounds of the same question, close."""
        self._teacher_result(self._reveal(*self._auth(key), self._clock()))

    def teacher_view(self, key: TeacherKey) -> TeacherView:
        now = self._clock()
        code, _, raw = self._teacher_raw(key, now, live=True)
        refused = self._refused(code, raw.seats, now)  # device -> sessions: counts only (the screen is projected)
        here = frozenset(s for s, seen in raw.members.items() if now - seen <= self.limits.present_seconds)
        answered = raw.rounds[-1].answers if raw.rounds else {}
        gone = gone_seats(raw)
        numbers: dict = {}  # device -> 1, 2, ... in the order first seen: which seats share one, no address shown
        roster = tuple(Member(member_tag(s), max(0.0, now - seen), s in here, s in answered,
                              numbers.setdefault(raw.devices.get(s, s), len(numbers) + 1))
                       for s, seen in raw.members.items())
        roster += tuple(Member(member_tag(s), None, False, s in answered, numbers.setdefault(d, len(numbers) + 1),
                               in_room=False) for s, d in gone.items())
        return TeacherView(code=key.code, lesson_version=raw.version, lesson_json=raw.lesson, present=len(here),
                           members=len(raw.members), rounds=tuple(tally(r, here) for r in raw.rounds), roster=roster,
                           seats_per_device=raw.seats, locked=raw.locked, blocked=raw.blocked,
                           max_rounds=self.limits.max_rounds, asked=raw.asked, presentation=presentation_of(raw.show),
                           refused=sum(refused.values()), refused_most=max(refused.values(), default=0))

    def present(self, key: TeacherKey, presentation: Presentation) -> None:
        """Where the room's presented deck stands (its screen, the blank, the clock, the handout shared): kept
        with the room, so a reload, another tab and the projector's window all read it (presentation.py)."""
        if not isinstance(presentation, Presentation):
            raise RoomError("Only a presentation made by the lab can be kept.")
        if problem := presentation.problem():
            raise RoomError(problem)
        text = presentation.to_json()
        if len(text) > MAX_PRESENTATION_CHARS:
            raise RoomError("This presentation's record is too large to keep.")
        self._teacher_result(self._setting(*self._auth(key), "show", text))

    def remove(self, key: TeacherKey, tag: str, block: bool = False) -> str:
        """Take a student out of the room (a script, a prank): their answers go; that seat cannot rejoin, and
        its device takes no new seat here (a cleared cookie buys nothing). `block`: every seat of that device
        goes too, with their answers. `tag` is the whole tag the screen lists (no prefix of it)."""
        code, digest, raw = self._teacher_raw(key)
        tag = tag.strip().upper() if isinstance(tag, str) else ""
        listed = [*raw.members, *gone_seats(raw)]  # seats that left are listed too: their answers still count
        sessions = [s for s in listed if member_tag(s) == tag] if len(tag) == clients.TAG_HEX else []
        if len(sessions) != 1:  # two seats with one tag would be a 2^-64 event: remove neither
            raise RoomError("No student in the room has that tag: type all 16 digits of it, as listed.")
        self._teacher_result(self._remove(code, digest, sessions[0], bool(block)))
        return tag

    def lock(self, key: TeacherKey, locked: bool) -> None:
        """Locked: no new seat joins (the students in the room stay, and a reload keeps its seat)."""
        self._teacher_result(self._setting(*self._auth(key), "locked", int(bool(locked))))

    def set_seats(self, key: TeacherKey, seats: int) -> None:
        """The room's seats per device: 1 up to the room's size (a shared tablet, a class behind one NAT)."""
        if isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= self.limits.max_members:
            raise RoomError(f"Seats per device: a whole number from 1 to {self.limits.max_members}.")
        self._teacher_result(self._setting(*self._auth(key), "seats", seats))

    def unblock(self, key: TeacherKey) -> None:
        """Every device the teacher took out may take new seats again (removed seats stay out)."""
        self._teacher_result(self._setting(*self._auth(key), "unblock", 1))

    # -- a student ---------------------------------------------------------------------------
    def join(self, code: str, session: str, address: str | None = None) -> str:
        """Join with a typed or scanned code; returns the code as stored. A client's wrong codes are
        rate-limited (its own, never anyone else's), and so are its seats in one room."""
        session, address, now = self._session(session), clients.clean_address(address), self._clock()
        self._guard_codes(session, address, now)
        norm = normalise_code(code)
        L = self.limits
        status = self._join(norm, session, clients.device(session, address), now) if norm else "gone"
        if status == "full":
            raise RoomError(f"This room is full ({L.max_members} students).")
        if status.startswith("crowded"):
            seats = status.partition(":")[2]
            self._refuse(norm, clients.device(session, address), session, int(seats), now)  # for the teacher
            raise RoomError(f"This device already has {seats} seats in this room, its limit: "
                            "leave the room in a tab you no longer use (or wait a few seconds after closing it), "
                            "or ask the teacher.")
        if status == "removed":
            raise RoomError("The teacher has taken this browser out of the room.")
        if status == "locked":
            raise RoomError("The teacher has locked this room: it takes no new students now.")
        if status == "elsewhere":
            raise SeatElsewhere("This seat was taken on another network address: join again for a seat here.")
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
        return student_view_of(norm, raw, session)

    def view(self, code: str, session: str, address: str | None = None) -> StudentView:
        """What a viewer sees (a projector's window): what a student sees, less their own answer. A viewer
        holds no seat, so it is not counted and cannot answer; a seat that reads here stays a seat (this is its
        heartbeat). A seat or device the teacher took out views nothing; wrong codes count as a join's do."""
        session, address, now = self._session(session), clients.clean_address(address), self._clock()
        self._guard_codes(session, address, now)
        norm = normalise_code(code)
        status, raw = self._view(norm, session, clients.device(session, address), now) if norm else ("gone", None)
        if status == "removed":
            raise RoomError("The teacher has taken this browser out of the room.")
        if status != "ok":
            self._wrong_code(session, address, now)
        return student_view_of(norm, raw, None)

    def is_open(self, code: str) -> bool:
        """Whether the room `code` is open. For a page that was in it, whose seat a read no longer finds: a class
        that ended (closed, or expired) is told apart from a seat taken out. It counts nothing and touches nothing;
        a page asks it only of a code it joined (what a guesser would learn by joining)."""
        norm = normalise_code(code)
        return bool(norm) and self._pin_record(norm, self._clock()) is not None

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
        status = self._answer(norm, session, current.number, json.dumps(list(picked)), self._clock(), self._wall())
        messages = {"stale": STALE, "revealed": REVEALED,
                    "full": f"This question already has {self.limits.max_members} answers, its limit."}
        if status in messages:
            raise RoomError(messages[status])
        if status.startswith("device"):
            raise RoomError(f"This device's answers already count {status.partition(':')[2]} times in this round, "
                            "its limit (answers of its seats that left still count).")
        if status != "ok":
            raise NotInRoom(NOT_IN_ROOM)

    # -- everyone ----------------------------------------------------------------------------
    def open_kinds(self) -> frozenset:
        """The kinds of the questions open now (asked, not revealed) in every open room of this registry: what
        a device that is not a teacher's may not see decided, whether or not it holds a seat (a second tab, a
        seat left and taken again, a room joined only after looking: dashboard/lesson/rerun.py, `hides`). It
        touches no room and counts nothing."""
        return frozenset(load_question(q).kind for q, _ in self._rooms_now(self._clock()) if q)

    def presented(self) -> dict:
        """Every deck an open room presents -> the furthest screen any of them stands on: a device that is not a
        teacher's sees no screen of that deck past it (dashboard/present/projector.py), as later screens may
        answer the class's next question. It touches no room and counts nothing."""
        out: dict = {}
        for _, show in self._rooms_now(self._clock()):
            shown = presentation_of(show)
            if shown.deck and shown.screen >= 1:
                out[shown.deck] = max(out.get(shown.deck, 0), shown.screen)
        return out

    # -- shared rules ------------------------------------------------------------------------
    def _read_student(self, code, session) -> tuple[str, RawRoom]:
        norm = normalise_code(code)
        raw = self._read(norm, session, self._clock()) if norm and valid_session(session) else None
        if raw is None:  # no room, or not a member: the same answer, so it tells a guesser nothing
            raise NotInRoom(NOT_IN_ROOM)
        return norm, raw

