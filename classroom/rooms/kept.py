"""What stays after class: a room's answers as CSV, and the answer sets a teacher keeps on closing.

The CSV has one row per choice of every round kept (a choice nobody picked reads 0), so the file
reads like the teacher's histograms and every row sums up:

    round, question, choice, count, when, seats, correct

`when` is the time the round was asked (UTC), `seats` the anonymous tags (clients.member_tag) of
the seats that picked the choice, space-separated: a tag follows one seat from the "before" round to
the "after" one. No session id, address or device appears. `correct` is empty until the round is
revealed, then "yes" or "no" (a CSV opened on the projector must not give the answer away).

A kept set is that CSV with the room's code, the time it closed and the room's PIN record (scrypt):
the same PIN opens or deletes it, so a student who knows the code cannot. Where it lives:
- `MemoryKept`: this process only (tests, and a registry made without a folder);
- `DiskKept`: `<media>/rooms/kept/` for the single-process lab (`make_registry`); the file names
  are ids the lab draws (16 hex digits), never anything a user typed;
- `RedisKept`: the hall's Redis, under the registry's prefix, with no expiry.
Each store holds at most RoomLimits.max_kept sets; a teacher deletes them (there is no other expiry).
"""

import csv
import io
import json
import os
import re
import secrets
import threading
from datetime import UTC, datetime
from pathlib import Path

from classroom.rooms.clients import member_tag
from classroom.rooms.codes import normalise_code
from classroom.rooms.records import KeptInfo
from classroom.rooms.tally import load_question

HEADER = ("round", "question", "choice", "count", "when", "seats", "correct")
KEPT_ID = re.compile(r"[0-9a-f]{16}")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet runs a cell that starts so (CSV injection)
META_BYTES = 4096  # a kept set's metadata file: a code, times, counts, a scrypt record


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


def answers_rows(rounds) -> list[tuple]:
    """The CSV's rows (without the header) for `rounds` (RawRound, oldest first, every answer)."""
    rows = []
    for r in rounds:
        q = load_question(r.question)
        seats = [[] for _ in q.choices]
        for session, text in r.answers.items():
            for i in json.loads(text):
                seats[i].append(member_tag(session))
        for i, choice in enumerate(q.choices):
            correct = ("yes" if i in q.answer else "no") if r.revealed else ""
            rows.append((r.number, q.prompt, choice, len(seats[i]), when(r.asked), " ".join(sorted(seats[i])), correct))
    return rows


def answers_csv(rounds) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # RFC 4180
    writer.writerow(HEADER)
    for row in answers_rows(rounds):
        writer.writerow([_cell(str(v)) for v in row])
    return out.getvalue()


def new_record(code: str, pin_record: str, rounds, text: str, closed: float) -> dict:
    return {"id": secrets.token_hex(8), "code": code, "closed": closed, "pin": pin_record,
            "rounds": len(rounds), "answers": sum(len(r.answers) for r in rounds), "csv": text}


def _info(meta: dict) -> KeptInfo:
    """What a list shows of a kept set; ValueError unless its id and code are of the lab's making (the
    page puts both in a file name)."""
    info = KeptInfo(str(meta["id"]), str(meta["code"]), float(meta["closed"]), int(meta["rounds"]),
                    int(meta["answers"]))
    if not KEPT_ID.fullmatch(info.id) or normalise_code(info.code) != info.code:
        raise ValueError("not a kept set's id or room code")
    return info


class MemoryKept:
    """Kept sets in this process (gone with it): tests, and registries made without a folder."""

    def __init__(self, max_kept: int = 50):
        self.max_kept, self._sets, self._lock = max_kept, {}, threading.Lock()

    def put(self, record: dict) -> bool:
        with self._lock:
            if len(self._sets) >= self.max_kept:
                return False
            self._sets[record["id"]] = dict(record)
            return True

    def list(self) -> tuple:
        with self._lock:
            return tuple(sorted((_info(r) for r in self._sets.values()), key=lambda k: -k.closed))

    def get(self, kept_id: str) -> dict | None:
        with self._lock:
            return self._sets.get(kept_id)

    def delete(self, kept_id: str) -> None:
        with self._lock:
            self._sets.pop(kept_id, None)


class DiskKept:
    """Kept sets as two files each, `<id>.csv` then `<id>.json` (its metadata, written last: a set whose
    .json is there is whole), both written aside and renamed into place."""

    def __init__(self, folder, max_kept: int = 50, max_chars: int = 1_000_000):
        self.folder, self.max_kept, self.max_chars = Path(folder), max_kept, max_chars
        self._lock = threading.Lock()

    def _path(self, kept_id: str, suffix: str) -> Path | None:
        return self.folder / f"{kept_id}{suffix}" if isinstance(kept_id, str) and KEPT_ID.fullmatch(kept_id) else None

    def _write(self, path: Path, text: str):
        aside = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
        with open(aside, "w", encoding="utf-8", newline="") as f:  # the CSV's \r\n as written
            f.write(text)
        os.replace(aside, path)

    def _meta(self, path: Path) -> dict | None:
        try:
            if path.stat().st_size > META_BYTES:
                return None
            meta = json.loads(path.read_text(encoding="utf-8"))
            _info(meta)  # the fields a list shows are there and of their type
        except (OSError, ValueError, KeyError, TypeError):
            return None  # damaged or half-deleted: not listed
        return meta if meta.get("id") == path.stem else None

    def _ids(self) -> list[str]:
        try:
            return [p.stem for p in self.folder.glob("*.json") if KEPT_ID.fullmatch(p.stem)]
        except OSError:
            return []

    def put(self, record: dict) -> bool:
        with self._lock:
            if len(self._ids()) >= self.max_kept:
                return False
            self.folder.mkdir(parents=True, exist_ok=True)
            meta = {k: v for k, v in record.items() if k != "csv"}
            self._write(self._path(record["id"], ".csv"), record["csv"])
            self._write(self._path(record["id"], ".json"), json.dumps(meta))
            return True

    def list(self) -> tuple:
        metas = (self._meta(self._path(i, ".json")) for i in self._ids())
        return tuple(sorted((_info(m) for m in metas if m), key=lambda k: -k.closed))

    def get(self, kept_id: str) -> dict | None:
        path = self._path(kept_id, ".json")
        meta = self._meta(path) if path else None
        if meta is None:
            return None
        try:
            data = self._path(kept_id, ".csv")
            if data.stat().st_size > 4 * self.max_chars:  # UTF-8: at most 4 bytes a character
                return None
            with open(data, encoding="utf-8", newline="") as f:
                return {**meta, "csv": f.read()}
        except (OSError, ValueError):
            return None

    def delete(self, kept_id: str) -> None:
        with self._lock:
            for suffix in (".json", ".csv"):  # the metadata first: a half-deleted set is not listed
                path = self._path(kept_id, suffix)
                if path is not None:
                    path.unlink(missing_ok=True)


# KEYS 1 index zset, 2 the set's hash; ARGV 1 max sets, 2 id, 3 closed, then field, value pairs
_PUT = """
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV, 4))
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
return 1
"""


class RedisKept:
    """Kept sets in the hall's Redis: P kept (zset id -> closed), P kept:{id} (hash); no TTL."""

    def __init__(self, client, prefix: str, max_kept: int = 50, call=lambda f, *a, **k: f(*a, **k)):
        self._redis, self._prefix, self.max_kept, self._call = client, prefix, max_kept, call
        self._put = client.register_script(_PUT)

    def _key(self, kept_id: str) -> str:
        return f"{self._prefix}kept:{{{kept_id}}}"

    def put(self, record: dict) -> bool:
        fields = [str(x) for kv in record.items() for x in kv]
        return bool(self._call(self._put, keys=[f"{self._prefix}kept", self._key(record["id"])],
                               args=[self.max_kept, record["id"], record["closed"], *fields]))

    def list(self) -> tuple:
        out = []
        for kept_id in self._call(self._redis.zrange, f"{self._prefix}kept", 0, -1):
            values = self._call(self._redis.hmget, self._key(kept_id), "id", "code", "closed", "rounds", "answers")
            try:
                out.append(_info(dict(zip(("id", "code", "closed", "rounds", "answers"), values, strict=True))))
            except (TypeError, ValueError):
                continue  # deleted meanwhile, or not of the lab's making
        return tuple(sorted(out, key=lambda k: -k.closed))

    def get(self, kept_id: str) -> dict | None:
        if not (isinstance(kept_id, str) and KEPT_ID.fullmatch(kept_id)):
            return None
        record = self._call(self._redis.hgetall, self._key(kept_id))
        return record or None

    def delete(self, kept_id: str) -> None:
        if isinstance(kept_id, str) and KEPT_ID.fullmatch(kept_id):
            self._call(self._redis.zrem, f"{self._prefix}kept", kept_id)
            self._call(self._redis.delete, self._key(kept_id))
