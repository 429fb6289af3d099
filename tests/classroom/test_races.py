"""Many students at once, against both registries: nothing is lost, nothing slips past a
reveal or a bound, whatever order the threads run in."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from classroom.questions import focus_question
from classroom.rooms import RoomError, RoomLimits
from classroom.rooms.base import REVEALED
from core import AttentionConfig

from .conftest import LESSON, sid

Q = focus_question(AttentionConfig(), 0, 1)


def together(n: int, work):
    """Run work(i) on n threads released at the same moment; returns (results, errors) by i."""
    start = threading.Barrier(n)

    def run(i):
        start.wait()
        try:
            return work(i), None
        except Exception as err:  # noqa: BLE001 - the test inspects each one
            return None, err

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(run, range(n)))


def test_fifty_students_answer_while_the_teacher_reveals(rooms):
    """Each student keeps changing their answer until refused; the teacher reveals once 50
    answers are in. No answer may be taken after a refusal, and the tally must hold each
    student's last accepted answer."""
    key = rooms.open("123456", LESSON)
    for i in range(50):
        rooms.join(key.code, sid(i))
    n = rooms.ask(key, Q)
    taken = [[] for _ in range(50)]

    def student(i):
        for attempt in range(10_000):
            choice = (i + attempt) % len(Q.choices)
            try:
                rooms.answer(key.code, sid(i), n, choice)
            except RoomError as err:
                return str(err)
            taken[i].append(choice)
        return "never refused"

    def teacher():
        while sum(map(len, taken)) < 50:
            time.sleep(0.001)
        rooms.reveal(key)

    outcomes = together(51, lambda i: teacher() if i == 50 else student(i))
    assert all(err is None for _, err in outcomes) and {r for r, _ in outcomes[:50]} == {REVEALED}
    tally = rooms.teacher_view(key).current
    last = [t[-1] for t in taken if t]
    assert tally.revealed and tally.answered == len(last) and sum(map(len, taken)) >= 50
    assert tally.counts == tuple(last.count(c) for c in range(len(Q.choices)))
    for i in range(50):
        assert rooms.student_view(key.code, sid(i)).my_answer == ((taken[i][-1],) if taken[i] else None)


def test_answers_from_many_threads_are_all_counted(rooms):
    key = rooms.open("123456", LESSON)
    for i in range(40):
        rooms.join(key.code, sid(i))
    n = rooms.ask(key, Q)
    outcomes = together(40, lambda i: rooms.answer(key.code, sid(i), n, i % 3))
    assert all(err is None for _, err in outcomes)
    tally = rooms.teacher_view(key).current
    assert tally.answered == 40 and tally.counts[:3] == (14, 13, 13)


def test_joins_racing_for_the_last_seats(make):
    rooms, _ = make(RoomLimits(max_members=10))
    key = rooms.open("123456", LESSON)
    outcomes = together(30, lambda i: rooms.join(key.code, sid(i)))
    joined = [i for i, (_, err) in enumerate(outcomes) if err is None]
    assert len(joined) == 10 and rooms.teacher_view(key).members == 10
    assert all("full" in str(err) for _, err in outcomes if err is not None)


def test_opens_racing_for_the_last_rooms(make):
    rooms, _ = make(RoomLimits(max_rooms=5))
    outcomes = together(12, lambda i: rooms.open("123456", LESSON))
    keys = [key for key, err in outcomes if err is None]
    assert len(keys) == 5 and len({k.code for k in keys}) == 5
    assert all("5 open rooms" in str(err) for _, err in outcomes if err is not None)


def test_a_reclaim_racing_the_old_screen(rooms):
    key = rooms.open("123456", LESSON)
    rooms.join(key.code, sid(0))

    def work(i):
        if i == 0:
            return rooms.reclaim(key.code, "123456", sid(1))
        return rooms.ask(key, Q)

    outcomes = together(8, work)
    new = outcomes[0][0]
    assert new is not None
    with pytest.raises(RoomError):
        rooms.ask(key, Q)  # whatever the old screen did during the race, it is out now
    before = rooms.teacher_view(new).asked
    assert before == sum(err is None for _, err in outcomes[1:])


def test_pin_tries_racing_from_one_machine_get_no_more_than_its_limit(make):
    rooms, _ = make()
    key = rooms.open("correct horse", LESSON)
    outcomes = together(30, lambda i: rooms.reclaim(key.code, "wrong pin", sid(i), "10.0.0.66"))
    checked = sum("does not match" in str(err) for _, err in outcomes)
    assert checked == rooms.limits.pin_tries_per_address == 10


def test_one_device_racing_twenty_seats_gets_two_seats_and_two_answers(make):
    """A device's seats and answers are bounded atomically: twenty sessions from one address racing to
    join, then (with the bound raised so all are seated) to answer, get 2 of each (the bound at the time)."""
    rooms, _ = make(RoomLimits(present_seconds=600))
    key = rooms.open("123456", LESSON)
    joined = together(20, lambda i: rooms.join(key.code, sid(i), "127.0.0.66"))
    assert sum(err is None for _, err in joined) == 2
    assert all("already has 2 seats" in str(err) for _, err in joined if err is not None)
    rooms.set_seats(key, 20)
    for i in range(20):
        rooms.join(key.code, sid(i), "127.0.0.66")
    n = rooms.ask(key, Q)
    rooms.set_seats(key, 2)
    answered = together(20, lambda i: rooms.answer(key.code, sid(i), n, 0))
    assert sum(err is None for _, err in answered) == 2 and rooms.teacher_view(key).current.answered == 2
