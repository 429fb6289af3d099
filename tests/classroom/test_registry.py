"""One room's life, run against both registries: open, join, follow, ask, answer, reveal,
ask again, close; and every teacher action refused without the current teacher key."""

import json

import pytest

from classroom.question import MAX_QUESTION_CHARS, Question, QuestionError
from classroom.questions import blocked_question, focus_question
from classroom.rooms import NotInRoom, NotTeacher, RoomError, RoomLimits, TeacherKey, format_code
from classroom.rooms.base import NOT_IN_ROOM, NOT_TEACHER, REVEALED, STALE
from classroom.rooms.clients import member_tag
from core import AttentionConfig

from .conftest import LESSON, sid

CFG = AttentionConfig()
Q = focus_question(CFG, 0, 1)  # one right choice
RIGHT = Q.answer[0]
WRONG = next(i for i in range(len(Q.choices)) if i not in Q.answer)


def opened(rooms, students=3):
    key = rooms.open("123456", LESSON)
    for i in range(students):
        rooms.join(format_code(key.code).lower(), sid(i))
    return key


def test_the_teacher_key_never_prints_its_secret(rooms):
    key = rooms.open("123456", LESSON)
    assert key.secret not in repr(key) and key.secret not in str(key)
    assert len(key.code) == 8 and format_code(key.code)[4] == "-"
    view = rooms.teacher_view(key)
    assert key.secret not in repr(view) and view.present == 0 and view.rounds == ()


def test_a_question_round_from_ask_to_reveal(rooms, make):
    key = opened(rooms)
    assert rooms.student_view(key.code, sid(0)).round == 0
    n = rooms.ask(key, Q)
    seen = rooms.student_view(key.code, sid(0))
    assert (seen.round, seen.kind, seen.prompt, seen.choices, seen.revealed) == (n, "focus", Q.prompt, Q.choices, False)
    assert seen.question is None and seen.correct is None  # the answer key stays on the server
    rooms.answer(key.code, sid(0), n, WRONG)
    rooms.answer(key.code, sid(0), n, [RIGHT])  # a changed mind replaces the first answer
    rooms.answer(key.code, sid(1), n, WRONG)
    tally = rooms.teacher_view(key).current
    assert tally.counts[RIGHT] == 1 and tally.counts[WRONG] == 1 and sum(tally.counts) == 2
    assert tally.answered == 2 and rooms.teacher_view(key).present == 3
    assert tally.correct is None  # not before the reveal: the teacher's screen is projected
    rooms.reveal(key)
    mine = rooms.student_view(key.code, sid(0))
    assert mine.revealed and mine.question == Q and mine.correct is True and mine.my_answer == (RIGHT,)
    assert mine.explanation == Q.explain(RIGHT)
    theirs = rooms.student_view(key.code, sid(1))
    assert theirs.correct is False and theirs.explanation.startswith("You chose")
    assert rooms.student_view(key.code, sid(2)).explanation == Q.truth
    assert rooms.teacher_view(key).current.correct == 1
    with pytest.raises(RoomError, match=REVEALED):
        rooms.answer(key.code, sid(2), n, RIGHT)


def test_ask_again_keeps_the_before_round_and_reveal_closes_both(rooms):
    key = opened(rooms)
    first = rooms.ask(key, Q)
    rooms.answer(key.code, sid(0), first, WRONG)
    again = rooms.ask_again(key)
    assert again == first + 1 and rooms.student_view(key.code, sid(0)).my_answer is None
    with pytest.raises(RoomError, match=STALE):
        rooms.answer(key.code, sid(1), first, WRONG)
    rooms.answer(key.code, sid(0), again, RIGHT)
    view = rooms.teacher_view(key)
    assert view.before.number == first and view.before.counts[WRONG] == 1
    assert view.current.again_of == first and view.current.counts[RIGHT] == 1
    rooms.reveal(key)
    view = rooms.teacher_view(key)
    assert view.before.revealed and view.current.revealed and (view.before.correct, view.current.correct) == (0, 1)


def test_a_multiple_choice_question_counts_each_ticked_row(rooms):
    key = opened(rooms)
    b = blocked_question(CFG, "custom")
    n = rooms.ask(key, b)
    rooms.answer(key.code, sid(0), n, [0])
    rooms.answer(key.code, sid(1), n, [0, 1])
    with pytest.raises(RoomError, match="together"):
        rooms.answer(key.code, sid(2), n, [0, len(b.choices) - 1])
    rooms.reveal(key)
    tally = rooms.teacher_view(key).current
    assert tally.counts[:2] == (2, 1) and tally.correct == 1


def test_followers_see_the_teachers_lesson_and_its_version(rooms, make):
    key = opened(rooms)
    before = rooms.student_view(key.code, sid(0))
    assert before.lesson_json == LESSON
    changed = CFG.replace(temperature=0.5).to_json()
    version = rooms.set_lesson(key, changed)
    assert version == before.lesson_version + 1 == rooms.set_lesson(key, changed)  # unchanged: same version
    after = rooms.student_view(key.code, sid(1))
    assert after.lesson_version == version and AttentionConfig.from_json(after.lesson_json).temperature == 0.5
    with pytest.raises(RoomError, match="too large"):
        rooms.set_lesson(key, json.dumps({"text": "x" * 30_000}))
    with pytest.raises(RoomError, match="d_model"):
        rooms.set_lesson(key, json.dumps({"d_model": "0"}))
    long = CFG.replace(text=" ".join(["supercalifragilistic"] * 60))  # 60 long labels, 60 numbers
    small, _ = make(RoomLimits(max_question_chars=4000))
    small_key = small.open("123456", LESSON)
    with pytest.raises(RoomError, match="too large"):
        small.ask(small_key, focus_question(long, 0, 0))


def test_a_room_stores_no_question_longer_than_it_reads_back():
    # One bound on both sides: what `ask` lets into storage, `Question.from_json` reads back out.
    assert RoomLimits().max_question_chars == MAX_QUESTION_CHARS
    with pytest.raises(ValueError, match="could not be read back"):
        RoomLimits(max_question_chars=MAX_QUESTION_CHARS + 1)
    text = Q.to_json()
    padded = text + " " * (MAX_QUESTION_CHARS - len(text))  # JSON allows trailing whitespace
    assert Question.from_json(padded) == Q
    with pytest.raises(QuestionError, match="too large"):
        Question.from_json(padded + " ")


def test_every_teacher_action_needs_the_current_key(rooms):
    key = opened(rooms)
    rooms.ask(key, Q)
    fakes = [TeacherKey(key.code, "guess"), TeacherKey(key.code, ""), TeacherKey("ABCD2345", key.secret),
             (key.code, key.secret), None]
    for fake in fakes:
        for action in (lambda k: rooms.set_lesson(k, LESSON), lambda k: rooms.ask(k, Q), rooms.ask_again,
                       rooms.reveal, rooms.close, rooms.teacher_view):
            with pytest.raises(NotTeacher, match=NOT_TEACHER):
                action(fake)
    new = rooms.reclaim(format_code(key.code), "123456", sid(9))
    assert new.code == key.code and new.secret != key.secret
    with pytest.raises(NotTeacher):
        rooms.reveal(key)  # the old key stopped working
    rooms.reveal(new)
    assert rooms.student_view(key.code, sid(0)).revealed
    rooms.close(new)
    for action in (lambda: rooms.student_view(key.code, sid(0)), lambda: rooms.join(key.code, sid(5)),
                   lambda: rooms.teacher_view(new)):
        with pytest.raises((NotInRoom, NotTeacher)):
            action()


def test_a_wrong_code_and_a_non_member_get_one_plain_message(rooms):
    key = opened(rooms)
    for code in ("ZZZZ-ZZZZ", "not a code", "<b>x</b>", "", None, "x" * 10_000):
        with pytest.raises(NotInRoom) as err:
            rooms.join(code, sid(50))
        assert str(err.value) == NOT_IN_ROOM
    with pytest.raises(NotInRoom) as err:
        rooms.student_view(key.code, sid(51))  # a real room, but this session never joined
    assert str(err.value) == NOT_IN_ROOM
    with pytest.raises(RoomError, match="session"):
        rooms.join(key.code, "x; rm -rf /")


def test_rooms_members_and_rounds_are_bounded(make):
    rooms, clock = make(RoomLimits(max_rooms=2, max_members=2, max_rounds=3, member_idle_seconds=100))
    a, b = rooms.open("123456", LESSON), rooms.open("123456", LESSON)
    with pytest.raises(RoomError, match="2 open rooms"):
        rooms.open("123456", LESSON)
    rooms.close(b)
    rooms.open("123456", LESSON)
    rooms.join(a.code, sid(1))
    rooms.join(a.code, sid(2))
    with pytest.raises(RoomError, match="full"):
        rooms.join(a.code, sid(3))
    clock.advance(101)
    rooms.student_view(a.code, sid(1))  # sid(2) has been silent past member_idle_seconds
    rooms.join(a.code, sid(3))
    for _ in range(3):
        rooms.ask(a, Q)
    with pytest.raises(RoomError, match="asked 3 questions, its limit"):  # refused: no round is dropped
        rooms.ask(a, Q)
    with pytest.raises(RoomError, match="asked 3 questions, its limit"):
        rooms.ask_again(a)
    assert rooms.teacher_view(a).asked == 3 and [t.number for t in rooms.teacher_view(a).rounds] == [3]


def test_idle_rooms_expire_and_used_ones_do_not(make):
    rooms, clock = make(RoomLimits(idle_seconds=1000, max_rooms=1))
    key = opened(rooms, students=1)
    for _ in range(5):  # 4000 s in all, but a student's page polls every 900 s
        clock.advance(900)
        rooms.student_view(key.code, sid(0))
    clock.advance(1001)
    with pytest.raises(NotInRoom):
        rooms.student_view(key.code, sid(0))
    with pytest.raises(NotTeacher):
        rooms.teacher_view(key)
    rooms.open("123456", LESSON)  # its place is free again


def test_answers_of_students_who_left_are_counted_apart_from_those_present(make):
    """Issue 28: "26 answered of 17 present": answers of students who left counted as if they were here."""
    rooms, clock = make(RoomLimits(present_seconds=10))
    key = opened(rooms, students=3)
    n = rooms.ask(key, Q)
    rooms.answer(key.code, sid(0), n, RIGHT)
    rooms.answer(key.code, sid(2), n, RIGHT)
    rooms.leave(key.code, sid(0))
    clock.advance(11)
    rooms.student_view(key.code, sid(1))
    view = rooms.teacher_view(key)
    assert (view.present, view.members) == (1, 2)
    assert (view.current.answered, view.current.answered_present) == (2, 0)  # sid(2) is quiet, sid(0) left
    assert [(m.present, m.in_room) for m in view.roster] == [(True, True), (False, True), (False, False)]
    assert view.roster[2].tag == member_tag(sid(0)) and view.roster[2].seen_ago is None  # left; its answer counts


def test_the_real_pin_hash_round_trips():
    from classroom.rooms import MemoryRooms

    rooms = MemoryRooms()  # production scrypt cost
    key = rooms.open("246810", LESSON)
    record = rooms._rooms[key.code].pin
    assert record.startswith("scrypt$16384$") and "246810" not in record
    assert rooms.reclaim(key.code, "246810", sid(1)).code == key.code
