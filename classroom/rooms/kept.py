"""What stays after class: the answer sets a teacher keeps on closing (the CSVs: answer_files.py).

A kept set is a closed room's two CSVs with the room's code, the time it closed and the room's PIN record
(scrypt): the same PIN opens or deletes it, so a student who knows the code cannot. Where it lives:
- `MemoryKept`: this process only (tests, and a registry made without a folder);
- `DiskKept`: `<media>/rooms/kept/` for the single-process lab (`make_registry`); the file names
  are ids the lab draws (16 hex digits), never anything a user typed;
- `RedisKept`: the hall's Redis, under the registry's prefix, with no expiry.
Each store holds at most RoomLimits.max_kept sets; a teacher deletes them (there is no other expiry).
"""

import json
import os
import re
import secrets
import threading
from pathlib import Path

from classroom.rooms.codes import normalise_code
from classroom.rooms.records import KeptInfo

KEPT_ID = re.compile(r"[0-9a-f]{16}")
META_BYTES = 4096  # a kept set's metadata file: a code, times, counts, a scrypt record
FILES = {"csv": ".csv", "students": ".students.csv"}  # a record's texts, and the suffixes DiskKept stores them under


def new_record(code: str, pin_record: str, rounds, files, closed: float) -> dict:
    """`files`: answer_files.AnswerFiles, stored as "csv" (a row per answer) and "students" (a row per seat)."""
    return {"id": secrets.token_hex(8), "code": code, "closed": closed, "pin": pin_record,
            "rounds": len(rounds), "answers": sum(len(r.answers) for r in rounds), "csv": files.answers,
            "students": files.students}


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
    """Kept sets as files: `<id>.csv` and `<id>.students.csv` (the two CSVs), then `<id>.json` (its metadata,
    written last: a set whose .json is there is whole), each written aside and renamed into place. A set kept
    before the second CSV existed has none (its record's "students" is None)."""

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
            meta = {k: v for k, v in record.items() if k not in FILES}
            for name, suffix in FILES.items():
                if record.get(name) is not None:
                    self._write(self._path(record["id"], suffix), record[name])
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
        record = dict(meta)
        for name, suffix in FILES.items():
            try:
                data = self._path(kept_id, suffix)
                if data.stat().st_size > 4 * self.max_chars:  # UTF-8: at most 4 bytes a character
                    return None
                with open(data, encoding="utf-8", newline="") as f:
                    record[name] = f.read()
            except FileNotFoundError:
                record[name] = None  # a set kept before its second CSV existed
            except (OSError, ValueError):
                return None
        return record if record["csv"] is not None else None

    def delete(self, kept_id: str) -> None:
        with self._lock:
            for suffix in (".json", *FILES.values()):  # the metadata first: a half-deleted set is not listed
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
        fields = [str(x) for kv in record.items() if kv[1] is not None for x in kv]
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
