"""Rooms in this process's memory: the laptop default (one Streamlit process, sessions in threads).

One lock guards everything; every primitive is a few dict operations under it (the slow
PIN hash runs before, in `RoomRegistry`). Bounded everywhere: rooms, members, rounds (a room at
its bound asks no more: none is dropped), answers per round and rate-limit counters each have a
cap, and idle rooms are dropped on the next call that looks at them.
"""

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from classroom.rooms.base import RoomRegistry
from classroom.rooms.records import RawRoom, RawRound


@dataclass
class _Round:
    question: str
    again_of: int
    asked: float = 0.0  # seconds since the epoch
    screen: int = 0  # the deck's screen that asked it; 0: none
    revealed: bool = False
    answers: dict = field(default_factory=dict)  # session -> answer JSON; ≤ max_members
    devices: dict = field(default_factory=dict)  # session -> its device, for every answer: stays when the seat goes
    times: dict = field(default_factory=dict)  # session -> when it last answered (epoch seconds)


@dataclass
class _Room:
    secret: str  # SHA-256 of the teacher's key
    pin: str  # scrypt record
    lesson: str
    active: float
    version: int = 1
    members: dict = field(default_factory=dict)  # session -> last seen; ≤ max_members
    devices: dict = field(default_factory=dict)  # session -> device (clients.device), for members
    removed: set = field(default_factory=set)  # sessions the teacher took out; grows only by the teacher's clicks
    barred: set = field(default_factory=set)  # devices the teacher took out: no new seats; the same
    seats: int = 2  # seats per device; the teacher's to change
    locked: bool = False
    rounds: dict = field(default_factory=dict)  # number -> _Round, oldest first; ≤ max_rounds, none dropped
    last_round: int = 0
    answered: dict = field(default_factory=dict)  # session -> device, of every seat with an answer in any round
    show: str = ""  # the presentation's JSON (presentation.py)
    refused: dict = field(default_factory=dict)  # bound per device -> {(device, session)} refused at it; ≤ max_members


class MemoryRooms(RoomRegistry):
    def __init__(self, limits=None, clock=time.monotonic, **kwargs):
        super().__init__(limits, clock, **kwargs)
        self._lock = threading.Lock()
        self._rooms: dict[str, _Room] = {}  # ≤ max_rooms
        self._counters: OrderedDict = OrderedDict()  # (scope, window index) -> count; ≤ max_limit_counters

    def _live(self, code: str, now: float) -> _Room | None:
        """The room, or None if there is none or it has been idle too long (then it is dropped). Under the lock."""
        room = self._rooms.get(code)
        if room is not None and now - room.active > self.limits.idle_seconds:
            del self._rooms[code]
            return None
        return room

    def _teacher(self, code, digest, now) -> _Room | None:
        room = self._live(code, now)
        return room if room is not None and room.secret == digest else None

    # -- primitives --------------------------------------------------------------------------
    def _create(self, code, secret_digest, pin_record, lesson, now):
        with self._lock:
            for other in list(self._rooms):
                self._live(other, now)
            if code in self._rooms:
                return "taken"
            if len(self._rooms) >= self.limits.max_rooms:
                return "full"
            self._rooms[code] = _Room(secret_digest, pin_record, lesson, active=now, seats=self.limits.seats_per_device)
            return "ok"

    def _join(self, code, session, device, now):
        with self._lock:
            room = self._live(code, now)
            if room is None:
                return "gone"
            if session in room.removed:
                return "removed"
            if session in room.members:  # a reload: the same seat, from the device it joined on only
                if room.devices[session] != device:
                    return "elsewhere"
                room.members[session] = room.active = now
                return "ok"
            if device in room.barred:
                return "removed"
            if room.locked:
                return "locked"
            L = self.limits
            same = [s for s, d in room.devices.items() if d == device]
            if len(same) >= room.seats:
                for s in same:  # who stopped polling (a reload that lost its cookie, a closed tab) makes space
                    if now - room.members[s] > L.present_seconds:
                        self._drop_member(room, s)
                if len(same) - sum(s not in room.members for s in same) >= room.seats:
                    return f"crowded:{room.seats}"
            if len(room.members) >= L.max_members:
                for s in [s for s, seen in room.members.items() if now - seen > L.member_idle_seconds]:
                    self._drop_member(room, s)
                if len(room.members) >= L.max_members:
                    return "full"
            room.members[session] = room.active = now
            room.devices[session] = device
            return "ok"

    @staticmethod
    def _drop_member(room, session):
        room.members.pop(session, None)
        room.devices.pop(session, None)

    def _leave(self, code, session):
        with self._lock:
            room = self._rooms.get(code)
            if room is not None:
                self._drop_member(room, session)

    def _remove(self, code, digest, session, block):
        with self._lock:
            room = self._teacher(code, digest, self._clock())
            if room is None:
                return "denied", None
            device = room.devices.get(session) or next(  # a seat that left: its device is in its answers
                (r.devices[session] for r in room.rounds.values() if session in r.devices), None)
            out = {session}
            if block:  # every seat of the device, in the room or gone with answers that count
                out |= {s for s, d in room.devices.items() if d == device}
                out |= {s for r in room.rounds.values() for s, d in r.devices.items() if d == device}
            for s in out:
                self._drop_member(room, s)
                room.removed.add(s)
                room.answered.pop(s, None)
                for r in room.rounds.values():
                    r.answers.pop(s, None)
                    r.devices.pop(s, None)
                    r.times.pop(s, None)
            if device is not None:
                room.barred.add(device)
            return "ok", None

    def _setting(self, code, digest, name, value):
        with self._lock:
            room = self._teacher(code, digest, self._clock())
            if room is None:
                return "denied", None
            if name == "locked":
                room.locked = bool(value)
            elif name == "seats":
                room.seats = int(value)
            elif name == "unblock":
                room.barred.clear()
            elif name == "show":
                room.show = value
            room.active = self._clock()
            return "ok", None

    def _read(self, code, session, now):
        with self._lock:
            room = self._live(code, now)
            if room is None or session not in room.members:
                return None
            room.members[session] = room.active = now
            rounds = ()
            if room.rounds:
                r = room.rounds[room.last_round]
                mine = {session: r.answers[session]} if session in r.answers else {}
                rounds = (RawRound(room.last_round, r.question, r.revealed, r.again_of, mine),)
            return RawRoom(room.version, room.lesson, rounds, show=room.show)

    def _view(self, code, session, device, now):
        with self._lock:
            room = self._live(code, now)
            if room is None:
                return "gone", None
            if session in room.removed or device in room.barred:
                return "removed", None
            if session in room.members:  # a seat that reads as a viewer is still a seat: its heartbeat
                room.members[session] = room.active = now
            rounds = ()
            if room.rounds:
                r = room.rounds[room.last_round]
                everyone = dict(r.answers) if r.revealed else {}  # how the class answered, once revealed
                rounds = (RawRound(room.last_round, r.question, r.revealed, r.again_of, everyone),)
            return "ok", RawRoom(room.version, room.lesson, rounds, show=room.show)

    def _answer(self, code, session, number, answer_json, now, at):
        with self._lock:
            room = self._live(code, now)
            if room is None or session not in room.members:
                return "gone"
            if number != room.last_round:
                return "stale"
            r = room.rounds[number]
            if r.revealed:
                return "revealed"
            if session not in r.answers:
                device = room.devices[session]
                if sum(d == device for d in r.devices.values()) >= room.seats:
                    return f"device:{room.seats}"
                if len(r.answers) >= self.limits.max_members:
                    return "full"
            r.answers[session] = answer_json
            r.devices[session] = room.devices[session]
            r.times[session] = at
            room.answered[session] = room.devices[session]
            room.members[session] = room.active = now
            return "ok"

    def _read_teacher(self, code, digest, now, live=False):
        with self._lock:
            room = self._teacher(code, digest, now)
            if room is None:
                return None
            room.active = now
            last = room.rounds.get(room.last_round)
            wanted = room.rounds if not live else (last.again_of, room.last_round) if last else ()
            rounds = tuple(RawRound(n, r.question, r.revealed, r.again_of, dict(r.answers), r.asked, dict(r.devices),
                                    r.screen, dict(r.times)) for n in wanted if (r := room.rounds.get(n)))
            return RawRoom(room.version, room.lesson, rounds, dict(room.members), dict(room.devices), room.seats,
                           room.locked, len(room.barred), room.last_round, dict(room.answered), room.show)

    def _set_lesson(self, code, digest, lesson, now):
        with self._lock:
            room = self._teacher(code, digest, now)
            if room is None:
                return "denied", None
            if lesson != room.lesson:
                room.lesson, room.version = lesson, room.version + 1
            room.active = now
            return "ok", room.version

    def _ask(self, code, digest, question_json, now, asked, screen):
        with self._lock:
            room = self._teacher(code, digest, now)
            if room is None:
                return "denied", None
            again = 0
            if not question_json:  # ask the current question again
                if not room.rounds:
                    return "none", None
                last = room.rounds[room.last_round]
                again, question_json, screen = room.last_round, last.question, last.screen
            if len(room.rounds) >= self.limits.max_rounds:
                return "rounds", None
            room.last_round += 1
            room.rounds[room.last_round] = _Round(question_json, again, asked, screen)
            room.active = now
            return "ok", room.last_round

    def _reveal(self, code, digest, now):
        with self._lock:
            room = self._teacher(code, digest, now)
            if room is None:
                return "denied", None
            if not room.rounds:
                return "none", None
            question = room.rounds[room.last_round].question
            for r in room.rounds.values():
                r.revealed = r.revealed or r.question == question
            room.active = now
            return "ok", None

    def _close(self, code, digest):
        with self._lock:
            if self._teacher(code, digest, self._clock()) is None:
                return "denied", None
            del self._rooms[code]
            return "ok", None

    def _pin_record(self, code, now):
        with self._lock:
            room = self._live(code, now)
            return None if room is None else room.pin

    def _reclaim(self, code, pin_record, digest, now):
        with self._lock:
            room = self._live(code, now)
            if room is None or room.pin != pin_record:
                return "gone"
            room.secret, room.active = digest, now
            return "ok"

    def _rooms_now(self, now):
        with self._lock:
            rooms = [room for code in list(self._rooms) if (room := self._live(code, now)) is not None]
            return [(r.question if (r := room.rounds.get(room.last_round)) and not r.revealed else "", room.show)
                    for room in rooms]

    def _refuse(self, code, device, session, seats, now):
        with self._lock:
            room = self._live(code, now)
            if room is not None:
                got = room.refused.setdefault(seats, set())
                if len(got) < self.limits.max_members:
                    got.add((device, session))

    def _refused(self, code, seats, now):
        with self._lock:
            room = self._live(code, now)
            out: dict = {}
            for device, _ in room.refused.get(seats, ()) if room is not None else ():
                out[device] = out.get(device, 0) + 1
            return out

    # -- rate limits: counts per fixed window, the oldest forgotten first --------------------
    def _count(self, scope, window, now):
        with self._lock:
            return self._counters.get((scope, int(now // window)), 0)

    def _hit(self, scope, window, now):
        key = (scope, int(now // window))
        with self._lock:
            self._counters[key] = self._counters.pop(key, 0) + 1
            while len(self._counters) > self.limits.max_limit_counters:
                self._counters.popitem(last=False)
            return self._counters[key]
