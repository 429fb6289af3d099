"""Where a presented deck stands lives with the room (issue 48 item 6, issue 50 item 3), run against both
registries: the room's teacher sets it; every reader of the room (another tab of the teacher, a key taken back
with the PIN, a student, the projector's window) reads the same record; nobody else can set it. A viewer reads
how the class answered once the answer is revealed, never before; a student never reads the others' answers.
The presenter's steered views of a page screen are part of the record."""

import pytest

from classroom.questions import focus_question
from classroom.rooms import NotTeacher, RoomError, TeacherKey
from classroom.rooms.presentation import Presentation
from core import AttentionConfig

from .conftest import LESSON, sid

Q = focus_question(AttentionConfig(), 0, 1)
PROJECTOR, PHONE, OTHER = "127.0.0.10", "127.0.0.11", "127.0.0.12"


def test_the_teacher_s_presentation_is_read_by_every_view_of_the_room(rooms):
    key = rooms.open("123456", LESSON)
    rooms.join(key.code, sid(1), PHONE)
    assert rooms.teacher_view(key).presentation == Presentation()  # none before the teacher sets one
    shown = Presentation(deck="default", screen=7, blanked=True, started=1000.5, paused=1300.0,
                         paused_total=12.0, handout=True).steered("head", "3").steered("step", "4")
    rooms.present(key, shown)
    assert rooms.teacher_view(key).presentation == shown
    assert rooms.student_view(key.code, sid(1)).presentation == shown
    assert rooms.view(key.code, sid(9), PROJECTOR).presentation == shown
    again = rooms.reclaim(key.code, "123456", sid(2))  # another laptop, or a reload that took it back
    assert rooms.teacher_view(again).presentation == shown
    rooms.present(again, Presentation(deck="default", screen=8))
    assert rooms.view(key.code, sid(9), PROJECTOR).presentation.screen == 8


def test_only_the_room_s_teacher_sets_it_and_only_a_valid_record(rooms):
    key = rooms.open("123456", LESSON)
    with pytest.raises(NotTeacher):
        rooms.present(TeacherKey(key.code, "not-the-secret"), Presentation(deck="default", screen=2))
    for bad in (Presentation(deck="../x", screen=1), Presentation(deck="default", screen=-1),
                Presentation(deck="default", screen=True), Presentation(deck="default", started=float("nan")),
                Presentation(deck="default", screen=3).steered("head", "<b>1</b>"),
                Presentation(deck="default", screen=3).steered("Head&x", "1"),
                Presentation(deck="default", screen=3, view=(("head", 3),)),
                Presentation(deck="default", screen=3, view=tuple((f"v{c}", "1") for c in "abcde")),
                {"deck": "default", "screen": 2}):
        with pytest.raises(RoomError):
            rooms.present(key, bad)
    assert rooms.teacher_view(key).presentation == Presentation()


def test_a_viewer_reads_the_class_s_split_only_once_revealed_and_a_student_never(rooms):
    key = rooms.open("123456", LESSON)
    n = rooms.ask(key, Q)
    right = Q.answer[0]  # an index
    wrong = (right + 1) % len(Q.choices)
    for i, (device, pick) in enumerate([(PHONE, right), (OTHER, wrong), (OTHER, wrong)]):
        rooms.join(key.code, sid(i), device)
        rooms.answer(key.code, sid(i), n, pick)
    assert rooms.view(key.code, sid(9), PROJECTOR).tally is None  # an open question's split decides nothing
    rooms.reveal(key)
    split = rooms.view(key.code, sid(9), PROJECTOR).tally
    expected = [0] * len(Q.choices)
    expected[right], expected[wrong] = 1, 2
    assert split.counts == tuple(expected) and split.answered == 3 and split.correct == 1
    assert rooms.student_view(key.code, sid(0)).tally is None


def test_the_clock_counts_what_ran_and_leaves_out_its_pauses():
    """Hand-computed: started at 100, paused 130..150 and 170..175, read at 200: 100 - 20 - 5 = 75 s."""
    clock = Presentation(deck="default", screen=1).start(100.0)
    assert clock.elapsed(130.0) == 30.0 and clock.start(120.0) == clock  # a second start keeps the first
    clock = clock.pause(130.0)
    assert clock.elapsed(149.0) == 30.0 and not clock.running
    clock = clock.resume(150.0).pause(170.0).resume(175.0)
    assert clock.elapsed(200.0) == 75.0 and clock.running
    assert clock.restart(300.0).elapsed(310.0) == 10.0
    assert clock.pause(200.0).restart(300.0).elapsed(400.0) == 0.0  # a paused clock restarts paused
    assert Presentation.from_json(clock.to_json()) == clock
    assert Presentation.from_json("nonsense") == Presentation() == Presentation.from_json('{"screen": "x"}')


def test_the_steered_views_are_kept_in_order_and_read_back_from_json():
    """The presenter's picks (issue 48 item 7): a second pick of a view replaces the first, the record reads back
    as it was written, and a stored record with a pick that is not a name and a number reads as no presentation."""
    shown = Presentation(deck="default", screen=3).steered("step", "4").steered("head", "2").steered("step", "1")
    assert shown.view == (("head", "2"), ("step", "1"))
    assert Presentation.from_json(shown.to_json()) == shown
    assert Presentation.from_json('{"deck": "default", "screen": 3, "view": [["head", "two"]]}') == Presentation()
