"""Classroom rooms: a teacher asks the class a question about the lesson, students answer on
their phones, everyone sees the reveal (peer instruction: Crouch et al., Am. J. Phys. 72:835,
2004). Plain Python, no Streamlit: pages hold one registry per process (`make_registry()`, held by
dashboard/process.py, not in a Streamlit cache) and call only `RoomRegistry`'s public methods.

- `make_registry()`: rooms in this process, or in Redis when ATTENTION_LAB_REDIS_URL is set
  (the hall: several lab processes behind HAProxy).
- `address.py`: the room's address on the local network and its QR code (SVG, no network).
"""

import os

from classroom.rooms.base import RoomRegistry
from classroom.rooms.codes import format_code, normalise_code
from classroom.rooms.memory import MemoryRooms
from classroom.rooms.records import (
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
from jobs.redis_client import REDIS_URL_ENV


def make_registry(environ=None) -> RoomRegistry:
    """The registry this server uses: Redis if ATTENTION_LAB_REDIS_URL names one, else this process's memory."""
    url = (os.environ if environ is None else environ).get(REDIS_URL_ENV, "")
    if url:
        from classroom.rooms.redis_rooms import RedisRooms

        return RedisRooms.from_url(url)
    return MemoryRooms()


__all__ = ["MemoryRooms", "NotInRoom", "NotTeacher", "REDIS_URL_ENV", "RoomError", "RoomLimits", "RoomRegistry",
           "RoomsUnavailable", "StudentView", "Tally", "TeacherKey", "TeacherView", "TooManyTries", "format_code",
           "make_registry", "normalise_code"]
