"""A class's ends, against both registries (issue 48, 9): a room that closed or expired is told apart from a
seat taken out of a room still open (`is_open`, which the Room page asks of a code it was in)."""

import pytest

from classroom.rooms import NotInRoom, RoomLimits

from .conftest import LESSON, sid


def test_is_open_tells_a_closed_or_expired_room_from_a_seat_taken_out(make):
    rooms, clock = make(RoomLimits(idle_seconds=60))
    key = rooms.open("123456", LESSON)
    rooms.join(key.code, sid(1), "10.0.0.1")
    rooms.join(key.code, sid(2), "10.0.0.2")
    rooms.remove(key, rooms.teacher_view(key).roster[0].tag)
    with pytest.raises(NotInRoom):
        rooms.student_view(key.code, sid(1))  # a seat taken out reads nothing
    assert rooms.is_open(key.code) and rooms.is_open(key.code.lower())  # taken out: the room is still open
    rooms.close(key)
    assert not rooms.is_open(key.code) and not rooms.is_open("not a code")
    other = rooms.open("123456", LESSON)
    clock.advance(61)
    assert not rooms.is_open(other.code), "an expired room has closed too"
