"""A viewer of a room (the projector's window of a presented deck), run against both registries: it reads
what a student reads, holds no seat, is not counted and cannot answer; a student gains nothing by viewing."""

import pytest

from classroom.questions import focus_question
from classroom.rooms import NotInRoom, RoomError, RoomLimits
from classroom.rooms.clients import member_tag
from core import AttentionConfig

from .conftest import LESSON, sid

Q = focus_question(AttentionConfig(), 0, 1)
RIGHT = Q.answer[0]
PROJECTOR, PHONE = "127.0.0.10", "127.0.0.11"


def test_a_viewer_reads_the_question_and_its_reveal_without_a_seat(rooms):
    key = rooms.open("123456", LESSON)
    assert rooms.view(key.code, sid(9), PROJECTOR).round == 0
    n = rooms.ask(key, Q)
    seen = rooms.view(key.code, sid(9), PROJECTOR)
    assert (seen.round, seen.prompt, seen.choices) == (n, Q.prompt, Q.choices)
    assert (seen.revealed, seen.question) == (False, None)  # the answer, as a student's, only once revealed
    rooms.join(key.code, sid(1), PHONE)
    rooms.answer(key.code, sid(1), n, RIGHT)
    teacher = rooms.teacher_view(key)
    assert (teacher.present, teacher.members, len(teacher.roster)) == (1, 1, 1)  # the phone; no projector
    assert rooms.view(key.code, sid(9), PROJECTOR).my_answer is None  # nobody's answer reaches a viewer
    rooms.reveal(key)
    seen = rooms.view(key.code, sid(9), PROJECTOR)
    assert seen.revealed and seen.question == Q


def test_a_viewer_cannot_answer(rooms):
    key = rooms.open("123456", LESSON)
    n = rooms.ask(key, Q)
    rooms.view(key.code, sid(9), PROJECTOR)
    with pytest.raises(NotInRoom):
        rooms.answer(key.code, sid(9), n, RIGHT)
    assert rooms.teacher_view(key).current.answered == 0


def test_a_viewer_takes_no_seat_of_a_locked_or_crowded_room(make):
    rooms, _ = make(RoomLimits(max_members=1))
    key = rooms.open("123456", LESSON)
    rooms.join(key.code, sid(1), PHONE)  # the room is full
    rooms.lock(key, True)
    assert rooms.view(key.code, sid(9), PROJECTOR).round == 0
    assert rooms.teacher_view(key).members == 1


def test_a_student_who_also_views_stays_counted_and_their_vote_is_one(make):
    """Viewing is no way out of the count: the seat stays, its reads as a viewer are its heartbeat."""
    rooms, clock = make(RoomLimits(present_seconds=10))
    key = rooms.open("123456", LESSON)
    n = rooms.ask(key, Q)
    rooms.join(key.code, sid(1), PHONE)
    for _ in range(3):
        clock.advance(6)
        rooms.view(key.code, sid(1), PHONE)
    rooms.answer(key.code, sid(1), n, RIGHT)
    rooms.answer(key.code, sid(1), n, RIGHT)
    teacher = rooms.teacher_view(key)
    assert (teacher.present, teacher.current.answered) == (1, 1)
    rooms.leave(key.code, sid(1))  # a student who leaves to view has left: no vote
    rooms.view(key.code, sid(1), PHONE)
    with pytest.raises(NotInRoom):
        rooms.answer(key.code, sid(1), n, RIGHT)


def test_a_seat_or_device_the_teacher_took_out_views_nothing(rooms):
    key = rooms.open("123456", LESSON)
    rooms.join(key.code, sid(1), PHONE)
    rooms.remove(key, member_tag(sid(1)))
    for seat in (sid(1), sid(2)):  # the seat, and a fresh one of the same device
        with pytest.raises(RoomError, match="taken this browser out"):
            rooms.view(key.code, seat, PHONE)
    assert rooms.view(key.code, sid(3), PROJECTOR).round == 0


def test_a_viewer_s_wrong_codes_are_limited_as_a_join_s(make):
    rooms, _ = make(RoomLimits(wrong_codes_per_session=3))
    rooms.open("123456", LESSON)
    for _ in range(3):
        with pytest.raises(NotInRoom):
            rooms.view("AAAA-AAAA", sid(9), PROJECTOR)
    with pytest.raises(RoomError, match="wrong room codes"):
        rooms.view("AAAA-AAAA", sid(9), PROJECTOR)
