"""Rooms in Redis: several lab processes behind HAProxy share them (`make hall`).

Every primitive is one Lua script (redis_lua.py), atomic in Redis, so concurrent students
and a teacher in different processes cannot corrupt a room; no WATCH retries are needed.
The clock defaults to wall time (time.time), which every process on the hall's machines shares.
When Redis does not answer (restarting, unreachable, hung), every call raises RoomsUnavailable,
a RoomError with a plain message: at once, or within about 4 s if it hangs (jobs/redis_client.py).
"""

import time

import redis

from classroom.rooms import redis_lua as lua
from classroom.rooms import redis_refusals_lua as refusals_lua
from classroom.rooms import redis_rounds_lua as rounds_lua
from classroom.rooms.base import RoomRegistry
from classroom.rooms.kept import RedisKept
from classroom.rooms.records import RawRoom, RawRound, RoomsUnavailable
from jobs.redis_client import UNAVAILABLE, connect

TTL_MARGIN_S = 3600  # room keys outlive the idle limit by this, then Redis drops them itself
UNAVAILABLE_MESSAGE = ("Rooms are briefly unavailable: the lab's shared store does not answer (it may be "
                       "restarting). Try again in a minute; the lessons work meanwhile.")


class RedisRooms(RoomRegistry):
    def __init__(self, client: redis.Redis, prefix: str = "attention-lab:", limits=None, clock=time.time, **kwargs):
        """`client` must decode responses (redis.Redis(..., decode_responses=True))."""
        super().__init__(limits, clock, **kwargs)
        self._redis, self._prefix = client, prefix
        if kwargs.get("kept") is None:  # answer sets kept after closing: in the hall's Redis, like the rooms
            self.kept = RedisKept(client, prefix, self.limits.max_kept, self._call)
        self._scripts = {name: client.register_script(getattr(lua, name)) for name in
                         ("CREATE", "JOIN", "LEAVE", "REMOVE", "SETTING", "READ", "VIEW", "ANSWER", "SET_LESSON",
                          "CLOSE", "PIN_RECORD", "RECLAIM", "HIT")}
        self._scripts |= {name: client.register_script(getattr(rounds_lua, name))
                          for name in ("READ_TEACHER", "ASK", "REVEAL", "ROOMS_NOW")}
        self._scripts |= {name: client.register_script(getattr(refusals_lua, name)) for name in ("REFUSE", "REFUSED")}

    @classmethod
    def from_url(cls, url: str, **kwargs) -> "RedisRooms":
        """redis://:password@host:port/db, as the hall's settings give it."""
        return cls(connect(url, decode_responses=True), **kwargs)

    def _call(self, command, *args, **kwargs):
        """One Redis call; Redis down or hung becomes RoomsUnavailable (a room message, not a traceback)."""
        try:
            return command(*args, **kwargs)
        except UNAVAILABLE:
            raise RoomsUnavailable(UNAVAILABLE_MESSAGE) from None

    def _run(self, script: str, code: str, now: float, *args):
        ttl_ms = int((self.limits.idle_seconds + TTL_MARGIN_S) * 1000)
        return self._call(self._scripts[script], args=[self._prefix, code, repr(float(now)), self.limits.idle_seconds,
                                                       ttl_ms, *args])

    # -- primitives --------------------------------------------------------------------------
    def _create(self, code, secret_digest, pin_record, lesson, now):
        return self._run("CREATE", code, now, secret_digest, pin_record, lesson, self.limits.max_rooms,
                         self.limits.seats_per_device)

    def _join(self, code, session, device, now):
        L = self.limits
        return self._run("JOIN", code, now, session, L.max_members, L.member_idle_seconds, device, L.present_seconds)

    def _remove(self, code, digest, session, block):
        return self._run("REMOVE", code, self._clock(), digest, session, "1" if block else "0")[0], None

    def _setting(self, code, digest, name, value):
        return self._run("SETTING", code, self._clock(), digest, name, value)[0], None

    def _leave(self, code, session):
        self._run("LEAVE", code, self._clock(), session)

    def _read(self, code, session, now):
        out = self._run("READ", code, now, session)
        if not out:
            return None
        version, lesson, show, number = int(out[0]), out[1], out[2], int(out[3])
        if number == 0:
            return RawRoom(version, lesson, (), show=show)
        question, revealed, again, mine = out[4:8]
        answers = {} if mine is None else {session: mine}
        return RawRoom(version, lesson, (RawRound(number, question, revealed == "1", int(again), answers),), show=show)

    def _view(self, code, session, device, now):
        out = self._run("VIEW", code, now, session, device)
        if out[0] != "ok":
            return out[0], None
        version, lesson, show, number = int(out[1]), out[2], out[3], int(out[4])
        if number == 0:
            return "ok", RawRoom(version, lesson, (), show=show)
        question, revealed, again, everyone = out[5:9]
        last = RawRound(number, question, revealed == "1", int(again), _pairs(everyone))
        return "ok", RawRoom(version, lesson, (last,), show=show)

    def _answer(self, code, session, number, answer_json, now, at):
        return self._run("ANSWER", code, now, session, number, answer_json, self.limits.max_members, repr(float(at)))

    def _read_teacher(self, code, digest, now, live=False):
        out = self._run("READ_TEACHER", code, now, digest, "1" if live else "0")
        if not out:
            return None
        members = _pairs(out[2])
        rounds = tuple(RawRound(int(n), q, rev == "1", int(again), _pairs(answers), float(asked), _pairs(by),
                                int(screen), {s: float(t) for s, t in _pairs(at).items()})
                       for n, q, rev, again, asked, answers, by, screen, at in out[10:])
        return RawRoom(int(out[0]), out[1], rounds, {s: float(seen) for s, seen in members.items()}, _pairs(out[3]),
                       int(out[4]), out[5] == "1", int(out[6]), int(out[7]), _pairs(out[8]), out[9])

    def _set_lesson(self, code, digest, lesson, now):
        out = self._run("SET_LESSON", code, now, digest, lesson)
        return out[0], int(out[1]) if len(out) > 1 else None

    def _ask(self, code, digest, question_json, now, asked, screen):
        out = self._run("ASK", code, now, digest, question_json, self.limits.max_rounds, repr(float(asked)), screen)
        return out[0], int(out[1]) if len(out) > 1 else None

    def _reveal(self, code, digest, now):
        return self._run("REVEAL", code, now, digest)[0], None

    def _close(self, code, digest):
        return self._run("CLOSE", code, self._clock(), digest)[0], None

    def _pin_record(self, code, now):
        return self._run("PIN_RECORD", code, now) or None

    def _reclaim(self, code, pin_record, digest, now):
        return self._run("RECLAIM", code, now, pin_record, digest)

    def _rooms_now(self, now):
        return [tuple(pair) for pair in self._run("ROOMS_NOW", "", now)]

    def _refuse(self, code, device, session, seats, now):
        self._run("REFUSE", code, now, seats, device, session, self.limits.max_members)

    def _refused(self, code, seats, now):
        out: dict = {}
        for entry in self._run("REFUSED", code, now, seats):  # "device session": neither holds a space
            device = entry.partition(" ")[0]
            out[device] = out.get(device, 0) + 1
        return out

    # -- rate limits: one counter per fixed window, expiring after two windows ---------------
    def _counter(self, scope, window, now) -> str:
        return f"{self._prefix}limit:{scope}:{int(now // window)}"

    def _count(self, scope, window, now):
        return int(self._call(self._redis.get, self._counter(scope, window, now)) or 0)

    def _hit(self, scope, window, now):
        return int(self._call(self._scripts["HIT"], keys=[self._counter(scope, window, now)],
                              args=[int(2 * window) + 1]))


def _pairs(flat: list) -> dict:
    """Redis's flat [field, value, field, value, ...] as a dict."""
    return dict(zip(flat[0::2], flat[1::2], strict=True))
