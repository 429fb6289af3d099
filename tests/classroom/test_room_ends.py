"""A class's ends, against both registries (issue 48, 9): a room that closed or expired is told apart from a
seat taken out of a room still open (`is_open`, which the Room page asks of a code it was in); a join refused
for its device's bound of seats is kept for the teacher, counted per device."""

import pytest

from classroom.rooms import NotInRoom, RoomError, RoomLimits

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


def refuse(rooms, code: str, session: str, address: str):
    with pytest.raises(RoomError, match="This device already has"):
        rooms.join(code, session, address)


def test_joins_refused_for_their_device_reach_the_teacher_counted_per_device(make):
    """A phone refused for its address (the third from one address) reaches the teacher: how many browsers, and
    the most from one device, at the room's bound; the raise the panel offers (the bound + that most) seats them."""
    rooms, _ = make()
    key = rooms.open("123456", LESSON)
    for i, address in ((1, "10.0.0.1"), (2, "10.0.0.1"), (4, "10.0.0.2"), (5, "10.0.0.2")):
        rooms.join(key.code, sid(i), address)
    assert (rooms.teacher_view(key).refused, rooms.teacher_view(key).refused_most) == (0, 0)
    refuse(rooms, key.code, sid(3), "10.0.0.1")
    refuse(rooms, key.code, sid(3), "10.0.0.1")  # the same browser trying again: one refused
    view = rooms.teacher_view(key)
    assert (view.refused, view.refused_most, view.seats_per_device) == (1, 1, 2)
    refuse(rooms, key.code, sid(6), "10.0.0.2")
    refuse(rooms, key.code, sid(7), "10.0.0.2")
    view = rooms.teacher_view(key)
    assert (view.refused, view.refused_most) == (3, 2)
    rooms.set_seats(key, view.seats_per_device + view.refused_most)
    assert (rooms.teacher_view(key).refused, rooms.teacher_view(key).refused_most) == (0, 0), "none at the new bound"
    for i, address in ((3, "10.0.0.1"), (6, "10.0.0.2"), (7, "10.0.0.2")):
        rooms.join(key.code, sid(i), address)
    assert rooms.teacher_view(key).members == 7


def test_a_device_with_endless_sessions_is_counted_up_to_the_room_s_size(make):
    rooms, _ = make(RoomLimits(max_members=3, seats_per_device=1))
    key = rooms.open("123456", LESSON)
    rooms.join(key.code, sid(0), "10.0.0.66")
    for i in range(1, 11):
        refuse(rooms, key.code, sid(i), "10.0.0.66")
    assert (rooms.teacher_view(key).refused, rooms.teacher_view(key).refused_most) == (3, 3)
