"""What stays after class (issue 41, part 4; issue 48, items 1 and 2), run against both registries: a room
keeps every round of a lecture; its answers as two CSVs a spreadsheet opens as they are (UTF-8 with a BOM),
one row per answer and one row per student, equal what was answered, before and after closing; kept answers
outlive the registry (a restart) and open or go only with the room's PIN."""

import codecs
import csv
import io

import pytest

from classroom.questions import blocked_question, focus_question
from classroom.rooms import MemoryRooms, NotTeacher, RoomError, RoomLimits, TooManyTries
from classroom.rooms.answer_files import _cell
from classroom.rooms.clients import member_tag
from classroom.rooms.kept import DiskKept
from core import AttentionConfig

from .conftest import FAST_PIN, LESSON, sid

CFG = AttentionConfig()
Q = focus_question(CFG, 0, 1)  # "which key does query 2 cat attend to most?": the answer is choice 3, "4 on"
MULTI = blocked_question(CFG, "causal")  # several rows may be ticked; the answer: "no row is fully blocked"
ASKED = 1_764_867_600.0  # 2025-12-04T17:00:00Z
PIN = "123456"
HEADER = ["round", "screen", "asked", "question", "answer", "right", "right answer", "seconds", "seat"]


class Wall:
    """The epoch clock, moved by hand: when a round is asked and an answer sent."""

    def __init__(self, now: float = ASKED):
        self.now = now

    def __call__(self) -> float:
        return self.now


def parsed(text: str) -> list[list[str]]:
    """The rows, read as a spreadsheet reads the downloaded bytes: UTF-8, after its byte-order mark."""
    data = text.encode("utf-8")
    assert data.startswith(codecs.BOM_UTF8)
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))


def row(number, question, picked, seconds, session, shown, screen="", asked="2025-12-04T17:00:00Z"):
    """One answer's row, written from what the student sent; `shown`: the answer key may be in the file."""
    right = (sorted(picked) == sorted(question.answer)) if question.multiple else picked[0] in question.answer
    key = (" + " if question.multiple else " or ").join(question.choices[i] for i in question.answer)
    return [str(number), screen, asked, question.prompt, " + ".join(question.choices[i] for i in picked),
            ("yes" if right else "no") if shown else "", key if shown else "", seconds, member_tag(session)]


def by_tag(rows):
    return sorted(rows, key=lambda r: r[-1])


def a_lesson(rooms, wall):
    """Three students, a round (one changes their answer), the same question again, a multiple-choice round
    asked from a deck's screen 7; returns the key and the answers' rows before closing, and after."""
    key = rooms.open(PIN, LESSON)
    for i in range(3):
        rooms.join(key.code, sid(i), f"127.0.0.{i + 10}")
    wall.now = ASKED
    n = rooms.ask(key, Q)
    for s, picked, after in ((sid(0), [1], 3), (sid(0), [3], 5), (sid(1), [1], 7.5), (sid(2), [1], 12)):
        wall.now = ASKED + after
        rooms.answer(key.code, s, n, picked)
    wall.now = ASKED + 60
    n2 = rooms.ask_again(key)
    for s, picked, after in ((sid(0), [3], 70), (sid(1), [3], 64.25)):
        wall.now = ASKED + after
        rooms.answer(key.code, s, n2, picked)
    rooms.reveal(key)
    wall.now = ASKED + 120
    n3 = rooms.ask(key, MULTI, screen=7)
    wall.now = ASKED + 123.4
    rooms.answer(key.code, sid(2), n3, [0, 2])
    revealed = [*by_tag([row(n, Q, [3], "5.0", sid(0), True), row(n, Q, [1], "7.5", sid(1), True),
                         row(n, Q, [1], "12.0", sid(2), True)]),
                *by_tag([row(n2, Q, [3], "10.0", sid(0), True, asked="2025-12-04T17:01:00Z"),
                         row(n2, Q, [3], "4.2", sid(1), True, asked="2025-12-04T17:01:00Z")])]
    last = dict(screen="7", asked="2025-12-04T17:02:00Z")
    return key, [HEADER, *revealed, row(n3, MULTI, [0, 2], "3.4", sid(2), False, **last)], [
        HEADER, *revealed, row(n3, MULTI, [0, 2], "3.4", sid(2), True, **last)]


def test_one_row_per_answer_equals_what_was_answered_before_and_after_closing(make):
    wall = Wall()
    rooms, _ = make(wall=wall)
    key, before, after = a_lesson(rooms, wall)
    files = rooms.answer_files(key)
    assert parsed(files.answers) == before  # the last round is not revealed: no key while the room is open
    assert not any(sid(i) in files.answers + files.students for i in range(3))  # tags only: no session,
    assert "127.0.0" not in files.answers + files.students  # no address
    closed = rooms.close(key)
    assert parsed(closed.answers) == after  # the class is over: every round's key is in
    with pytest.raises(NotTeacher):
        rooms.answer_files(key)
    assert rooms.kept_list() == ()  # not kept unless asked


def test_the_by_student_file_has_a_row_per_seat_and_a_column_per_round(make):
    wall = Wall()
    rooms, _ = make(wall=wall)
    key, _, _ = a_lesson(rooms, wall)
    header = ["seat", "round 1", "round 2 (round 1 again)", "round 3 (screen 7)", "right", "answered"]
    # round 1: sid(0) right (choice 3), the others wrong; round 2: both right; round 3 not yet revealed
    open_rows = {member_tag(sid(0)): ["1", "1", "", "2", "2"], member_tag(sid(1)): ["0", "1", "", "1", "2"],
                 member_tag(sid(2)): ["0", "", "", "0", "2"]}
    assert parsed(rooms.answer_files(key).students) == [header, *([t, *v] for t, v in sorted(open_rows.items()))]
    open_rows[member_tag(sid(2))] = ["0", "", "0", "0", "2"]  # ticked rows 1 and 3: wrong, now said
    assert parsed(rooms.close(key).students) == [header, *([t, *v] for t, v in sorted(open_rows.items()))]


def test_every_answer_of_ten_rounds_is_in_both_files(make):
    """Issue 48: a room kept its last 8 rounds and the deck asks 10, so the first two vanished from the CSV."""
    wall = Wall()
    rooms, _ = make(wall=wall)  # the lab's own limits
    key = rooms.open(PIN, LESSON)
    for i in range(3):
        rooms.join(key.code, sid(i), f"127.0.0.{i + 10}")
    sent = {}  # (round, session) -> the choice
    for r in range(1, 11):
        wall.now = ASKED + 60 * r
        assert rooms.ask(key, Q, screen=r + 2) == r
        for i in range(3):
            sent[r, sid(i)] = (r + i) % len(Q.choices)
            rooms.answer(key.code, sid(i), r, sent[r, sid(i)])
        rooms.reveal(key)
    files = rooms.close(key)
    header, *rows = parsed(files.answers)
    assert header == HEADER and len(rows) == 30
    assert {(int(r[0]), r[1], r[4], r[8]) for r in rows} == {
        (n, str(n + 2), Q.choices[c], member_tag(s)) for (n, s), c in sent.items()}
    header, *students = parsed(files.students)
    assert header == ["seat", *(f"round {n} (screen {n + 2})" for n in range(1, 11)), "right", "answered"]
    assert len(students) == 3 and all(len(r) == 13 for r in students)
    for s in map(sid, range(3)):
        [mine] = [r for r in students if r[0] == member_tag(s)]
        assert mine[1:11] == [str(int(sent[n, s] == 3)) for n in range(1, 11)]  # choice 3 is right
        assert mine[11:] == [str(sum(sent[n, s] == 3 for n in range(1, 11))), "10"]


def test_the_files_are_named_by_the_room_s_code_and_date_and_a_token_reads_right_in_a_spreadsheet(make):
    wall = Wall(ASKED)
    rooms, _ = make(wall=wall)
    key = rooms.open(PIN, LESSON)
    files = rooms.answer_files(key)
    assert files.name("answers") == f"room-{key.code}-2025-12-04-answers.csv"
    assert files.name("by-student") == f"room-{key.code}-2025-12-04-by-student.csv"
    rooms.join(key.code, sid(1), "127.0.0.1")
    rooms.answer(key.code, sid(1), rooms.ask(key, Q), 6)
    data = rooms.answer_files(key).answers.encode("utf-8")
    assert data.startswith(codecs.BOM_UTF8) and "7 ⟨.⟩".encode() in data  # Excel reads UTF-8 only after a BOM


def test_a_room_keeps_every_round_to_its_bound_says_how_many_are_left_and_then_refuses(make):
    rooms, _ = make(RoomLimits(max_rounds=12))
    key = rooms.open(PIN, LESSON)
    rooms.join(key.code, sid(1), "127.0.0.1")
    for n in range(1, 13):
        rooms.ask(key, Q)
        rooms.answer(key.code, sid(1), n, 0)
        assert rooms.teacher_view(key).rounds_left == 12 - n
    with pytest.raises(RoomError, match="asked 12 questions, its limit; every answer is kept"):
        rooms.ask(key, Q)
    assert rooms.teacher_view(key).asked == 12
    assert [int(r[0]) for r in parsed(rooms.answer_files(key).answers)[1:]] == list(range(1, 13))


def test_kept_answers_survive_a_restart_until_the_teacher_deletes_them(make, tmp_path, redis_client):
    def registry():  # a new process: a fresh registry on the same folder (laptop) or Redis prefix (hall)
        if make.kind == "memory":
            return MemoryRooms(clock=lambda: 5.0, pin_cost=FAST_PIN, kept=DiskKept(tmp_path / "kept"), wall=wall)
        return make(wall=wall, prefix="kept-test:")[0]

    wall = Wall()
    rooms = registry()
    key, _, after = a_lesson(rooms, wall)
    wall.now = closed = ASKED + 3600
    files = rooms.close(key, keep=True)
    [info] = registry().kept_list()
    assert (info.code, info.rounds, info.answers, len(info.id), info.closed) == (key.code, 3, 6, 16, closed)
    later = registry()
    kept = later.kept_files(info.id, PIN, sid(50), "127.0.0.50")
    assert parsed(kept.answers) == after and kept == files
    assert kept.name("by-student") == f"room-{key.code}-2025-12-04-by-student.csv"
    with pytest.raises(RoomError, match="PIN does not match"):
        later.kept_files(info.id, "654321", sid(51))
    with pytest.raises(RoomError, match="PIN does not match"):
        later.delete_kept(info.id, "654321", sid(51))
    for bad in ("../../etc/passwd", info.id.upper(), info.id[:15], "", None):
        with pytest.raises(RoomError, match="No kept answers"):
            later.kept_files(bad, PIN, sid(52))
    later.delete_kept(info.id, PIN, sid(50))
    assert later.kept_list() == () and registry().kept_list() == ()


def test_a_set_kept_before_the_by_student_file_existed_opens_with_its_one_file(tmp_path):
    store = DiskKept(tmp_path)
    rooms = MemoryRooms(pin_cost=FAST_PIN, kept=store)
    rooms.close(rooms.open(PIN, LESSON), keep=True)
    [info] = rooms.kept_list()
    (tmp_path / f"{info.id}.students.csv").unlink()  # as an older lab kept it: <id>.csv and <id>.json
    files = rooms.kept_files(info.id, PIN, sid(1))
    assert files.students is None and parsed(files.answers) == [HEADER]


def test_pin_tries_on_kept_answers_are_limited_per_client(make):
    rooms, _ = make(RoomLimits(pin_tries_per_address=3))
    key = rooms.open(PIN, LESSON)
    rooms.close(key, keep=True)
    [info] = rooms.kept_list()
    for i in range(3):
        with pytest.raises(RoomError, match="PIN does not match"):
            rooms.kept_files(info.id, f"wrong{i:03d}", sid(60 + i), "127.0.0.60")
    with pytest.raises(TooManyTries):
        rooms.kept_files(info.id, PIN, sid(70), "127.0.0.60")
    assert parsed(rooms.kept_files(info.id, PIN, sid(71), "127.0.0.61").answers) == [HEADER]  # another device


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
        rooms.kept_files("0123456789abcdef", PIN, sid(1))


def test_the_teacher_s_poll_reads_the_rounds_it_draws_and_still_lists_a_seat_that_left(make):
    """With every round of a lecture kept, the panel's poll (every second) reads the current round and the one
    it asks again, not all of them; a seat that left with an answer in an older round is still listed."""
    rooms, _ = make()
    key = rooms.open(PIN, LESSON)
    for i in range(2):
        rooms.join(key.code, sid(i), f"127.0.0.{i + 10}")
    rooms.answer(key.code, sid(1), rooms.ask(key, Q), 0)
    rooms.leave(key.code, sid(1))
    rooms.ask(key, MULTI)
    rooms.answer(key.code, sid(0), rooms.ask_again(key), [1])
    view = rooms.teacher_view(key)
    assert [t.number for t in view.rounds] == [2, 3] and view.asked == 3
    assert {(m.tag, m.in_room) for m in view.roster} == {(member_tag(sid(0)), True), (member_tag(sid(1)), False)}


def test_the_teacher_s_view_of_a_round_names_the_deck_s_screen_that_asked_it(make):
    """Tally.screen was always 0: the presenter could not say which screen's open question hides a page."""
    rooms, _ = make()
    key = rooms.open(PIN, LESSON)
    rooms.ask(key, Q, screen=4)
    assert rooms.teacher_view(key).current.screen == 4
    rooms.ask(key, MULTI)  # outside a deck
    assert rooms.teacher_view(key).current.screen == 0
