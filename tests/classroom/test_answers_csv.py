"""What stays after class (issue 41, part 4), run against both registries: the room's answers as CSV
equal what was answered, before and after closing; kept answers outlive the registry (a restart) and
open or go only with the room's PIN."""

import csv
import io

import pytest

from classroom.questions import blocked_question, focus_question
from classroom.rooms import MemoryRooms, NotTeacher, RoomError, RoomLimits, TooManyTries
from classroom.rooms.clients import member_tag
from classroom.rooms.kept import DiskKept, _cell
from core import AttentionConfig

from .conftest import FAST_PIN, LESSON, sid

CFG = AttentionConfig()
Q = focus_question(CFG, 0, 1)
MULTI = blocked_question(CFG, "causal")  # several rows may be ticked
ASKED = 1_764_867_600.0  # 2025-12-04T17:00:00Z
PIN = "123456"


def parsed(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def expected(number, question, picks, revealed, asked=ASKED):
    """The rows for one round, written from what the students sent: {session: [choice indices]}."""
    rows = []
    for i, choice in enumerate(question.choices):
        seats = sorted(member_tag(s) for s, picked in picks.items() if i in picked)
        right = ("yes" if i in question.answer else "no") if revealed else ""
        rows.append([str(number), question.prompt, choice, str(len(seats)),
                     "2025-12-04T17:00:00Z" if asked == ASKED else "", " ".join(seats), right])
    return rows


def a_lesson(rooms):
    """Three students, a round, the same question again, a multiple-choice round; returns the key and rows."""
    key = rooms.open(PIN, LESSON)
    for i in range(3):
        rooms.join(key.code, sid(i), f"127.0.0.{i + 10}")
    first = {sid(0): [0], sid(1): [1], sid(2): [1]}
    n = rooms.ask(key, Q)
    for s, picked in first.items():
        rooms.answer(key.code, s, n, picked)
    again = {sid(0): [1], sid(1): [1]}
    n2 = rooms.ask_again(key)
    for s, picked in again.items():
        rooms.answer(key.code, s, n2, picked)
    rooms.reveal(key)
    multi = {sid(2): [0, 2]}
    n3 = rooms.ask(key, MULTI)
    rooms.answer(key.code, sid(2), n3, [0, 2])
    rows = [list(HEADER), *expected(n, Q, first, True), *expected(n2, Q, again, True),
            *expected(n3, MULTI, multi, False)]
    return key, rows


HEADER = ("round", "question", "choice", "count", "when", "seats", "correct")


def test_the_csv_equals_what_was_answered_before_and_after_closing(make):
    rooms, _ = make(wall=lambda: ASKED)
    key, rows = a_lesson(rooms)
    before = rooms.answers_csv(key)
    assert parsed(before) == rows
    assert not any(sid(i) in before for i in range(3)) and "127.0.0" not in before  # no session, no address
    assert rooms.close(key) == before  # what the teacher's screen offers after closing
    with pytest.raises(NotTeacher):
        rooms.answers_csv(key)
    assert rooms.kept_list() == ()  # not kept unless asked


def test_kept_answers_survive_a_restart_until_the_teacher_deletes_them(make, tmp_path, redis_client):
    def registry():  # a new process: a fresh registry on the same folder (laptop) or Redis prefix (hall)
        if make.kind == "memory":
            return MemoryRooms(clock=lambda: 5.0, pin_cost=FAST_PIN, kept=DiskKept(tmp_path / "kept"),
                               wall=lambda: ASKED)
        return make(wall=lambda: ASKED, prefix="kept-test:")[0]

    rooms = registry()
    key, rows = a_lesson(rooms)
    text = rooms.close(key, keep=True)
    [info] = registry().kept_list()
    assert (info.code, info.rounds, info.answers, len(info.id), info.closed) == (key.code, 3, 6, 16, ASKED)
    later = registry()
    assert parsed(later.kept_csv(info.id, PIN, sid(50), "127.0.0.50")) == rows
    assert later.kept_csv(info.id, PIN, sid(50)) == text
    with pytest.raises(RoomError, match="PIN does not match"):
        later.kept_csv(info.id, "654321", sid(51))
    with pytest.raises(RoomError, match="PIN does not match"):
        later.delete_kept(info.id, "654321", sid(51))
    for bad in ("../../etc/passwd", info.id.upper(), info.id[:15], "", None):
        with pytest.raises(RoomError, match="No kept answers"):
            later.kept_csv(bad, PIN, sid(52))
    later.delete_kept(info.id, PIN, sid(50))
    assert later.kept_list() == () and registry().kept_list() == ()


def test_pin_tries_on_kept_answers_are_limited_per_client(make):
    rooms, _ = make(RoomLimits(pin_tries_per_address=3))
    key, _ = a_lesson(rooms)
    rooms.close(key, keep=True)
    [info] = rooms.kept_list()
    for i in range(3):
        with pytest.raises(RoomError, match="PIN does not match"):
            rooms.kept_csv(info.id, f"wrong{i:03d}", sid(60 + i), "127.0.0.60")
    with pytest.raises(TooManyTries):
        rooms.kept_csv(info.id, PIN, sid(70), "127.0.0.60")
    assert rooms.kept_csv(info.id, PIN, sid(71), "127.0.0.61").startswith("round,")  # another device


def test_kept_sets_are_bounded_and_a_refusal_leaves_the_room_open(make):
    rooms, _ = make(RoomLimits(max_kept=1))
    rooms.close(rooms.open(PIN, LESSON), keep=True)
    key = rooms.open(PIN, LESSON)
    with pytest.raises(RoomError, match="keeps 1 answer sets"):
        rooms.close(key, keep=True)
    assert rooms.teacher_view(key).members == 0  # still open: the teacher can download, then close
    rooms.close(key)


def test_a_cell_that_a_spreadsheet_would_run_is_quoted_and_numbers_are_not():
    assert [_cell(t) for t in ("=1+1", "+A1", "@SUM(A1)", "-x", "-0.25", "0.5", "cat")] == [
        "'=1+1", "'+A1", "'@SUM(A1)", "'-x", "-0.25", "0.5", "cat"]


def test_the_lab_keeps_answers_under_its_media_folder_and_the_hall_in_redis(tmp_path, redis_client):
    from classroom.rooms import make_registry
    from classroom.rooms.kept import RedisKept

    laptop = make_registry({"ATTENTION_LAB_MEDIA": str(tmp_path)})
    assert isinstance(laptop.kept, DiskKept) and laptop.kept.folder == tmp_path.resolve() / "rooms" / "kept"
    kw = redis_client.connection_pool.connection_kwargs
    hall = make_registry({"ATTENTION_LAB_REDIS_URL": f"redis://:{kw['password']}@{kw['host']}:{kw['port']}/0"})
    assert isinstance(hall.kept, RedisKept)


def test_a_damaged_or_foreign_file_in_the_kept_folder_is_not_listed(tmp_path):
    store = DiskKept(tmp_path)
    rooms = MemoryRooms(pin_cost=FAST_PIN, kept=store)
    rooms.close(rooms.open(PIN, LESSON), keep=True)
    [info] = rooms.kept_list()
    (tmp_path / "0123456789abcdef.json").write_text("{not json")
    (tmp_path / "fedcba9876543210.json").write_text('{"id": "fedcba9876543210", "code": "../../x", "closed": 1, '
                                                   '"rounds": 0, "answers": 0, "pin": ""}')
    (tmp_path / "aaaaaaaaaaaaaaaa.json").write_text(" " * 5000)  # over the metadata's size: not read
    (tmp_path / "notes.json").write_text("{}")
    assert rooms.kept_list() == (info,)
    with pytest.raises(RoomError, match="No kept answers"):
        rooms.kept_csv("0123456789abcdef", PIN, sid(1))
