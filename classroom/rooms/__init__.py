"""Classroom rooms: a teacher asks the class a question about the lesson, students answer on
their phones, everyone sees the reveal (peer instruction: Crouch et al., Am. J. Phys. 72:835,
2004). Plain Python, no Streamlit: pages hold one registry per process (`make_registry()`, held by
dashboard/process.py, not in a Streamlit cache) and call only `RoomRegistry`'s public methods.

- `make_registry()`: rooms in this process, or in Redis when ATTENTION_LAB_REDIS_URL is set
  (the hall: several lab processes behind HAProxy).
- `address.py`: the room's address on the local network and its QR code (SVG, no network).
- `answer_files.py`: a room's answers as two CSVs (a row per answer; a row per student);
  `kept.py`: the answer sets kept after closing (on disk under the media folder for one process,
  in Redis for the hall).
"""

import os

from classroom.rooms.base import RoomRegistry, SeatElsewhere
from classroom.rooms.codes import format_code, normalise_code
from classroom.rooms.kept import DiskKept
from classroom.rooms.memory import MemoryRooms
from classroom.rooms.records import (
    KeptInfo,
    NotInRoom,
    NotTeacher,
    RoomError,
    RoomLimits,
    RoomsUnavailable,
    StudentView,
    Tally,
    TeacherKey,
    TeacherView,
    TooManyTries,
)
from jobs import media_dir
from jobs.redis_client import REDIS_URL_ENV

KEPT_FOLDER = ("rooms", "kept")  # under the lab's media folder (ATTENTION_LAB_MEDIA): fixed, never from a request


def make_registry(environ=None) -> RoomRegistry:
    """The registry this server uses: Redis if ATTENTION_LAB_REDIS_URL names one, else this process's memory,
    with the answers kept after closing on disk (they outlive a restart)."""
    env = os.environ if environ is None else environ
    url = env.get(REDIS_URL_ENV, "")
    if url:
        from classroom.rooms.redis_rooms import RedisRooms

        return RedisRooms.from_url(url)
    limits = RoomLimits()
    return MemoryRooms(limits, kept=DiskKept(media_dir(env).joinpath(*KEPT_FOLDER), limits.max_kept,
                                             limits.max_kept_chars))


__all__ = ["KeptInfo", "MemoryRooms", "SeatElsewhere",
           "NotInRoom", "NotTeacher", "REDIS_URL_ENV", "RoomError", "RoomLimits", "RoomRegistry",
           "RoomsUnavailable", "StudentView", "Tally", "TeacherKey", "TeacherView", "TooManyTries", "format_code",
           "make_registry", "normalise_code"]
