"""Issue 47 (hostile passes after its fixes): what every room has open, and where it stands in its deck, read
against both registries. A student's second tab with no seat, a seat left to look and taken again, and a room
joined only after looking hold no seat while they look, so the pages hide by every room's open question
(dashboard/lesson/rerun.py, `hides`); a student's link to the deck goes no further than the class."""

import dataclasses

from classroom.questions import focus_question
from classroom.rooms import RoomLimits
from core import AttentionConfig

from .conftest import LESSON, sid

Q = focus_question(AttentionConfig(), 0, 1)


def test_open_kinds_are_the_asked_unrevealed_questions_of_every_open_room(make):
    rooms, clock = make(RoomLimits(idle_seconds=600))
    first, second = rooms.open("123456", LESSON), rooms.open("654321", LESSON)
    assert rooms.open_kinds() == frozenset()  # rooms, but nothing asked
    rooms.ask(first, Q)
    assert rooms.open_kinds() == {"focus"}
    rooms.ask(second, dataclasses.replace(Q, kind="trained"))
    assert rooms.open_kinds() == {"focus", "trained"}
    rooms.reveal(first)
    assert rooms.open_kinds() == {"trained"}
    rooms.ask_again(first)  # asked again: open again
    assert rooms.open_kinds() == {"focus", "trained"}
    rooms.close(second)
    assert rooms.open_kinds() == {"focus"}
    clock.advance(601)  # the room went idle: it is no room
    assert rooms.open_kinds() == frozenset()


def test_reading_open_kinds_touches_no_room(make):
    """A page asks on every run of every session: it must not keep an idle room alive, or count as a visit."""
    rooms, clock = make(RoomLimits(idle_seconds=600))
    key = rooms.open("123456", LESSON)
    rooms.join(key.code, sid(1), "127.0.0.11")
    rooms.ask(key, Q)
    for _ in range(2):
        clock.advance(250)
        assert rooms.open_kinds() == {"focus"}
    clock.advance(250)
    assert rooms.open_kinds() == frozenset(), "reads every 250 s kept a room idle for 750 s alive"


def test_presented_is_each_decks_furthest_screen_in_any_open_room(make):
    from classroom.rooms.presentation import Presentation

    rooms, clock = make(RoomLimits(idle_seconds=600))
    first, second = rooms.open("123456", LESSON), rooms.open("654321", LESSON)
    assert rooms.presented() == {}
    rooms.present(first, Presentation(deck="default", screen=4))
    rooms.present(second, Presentation(deck="default", screen=9))
    assert rooms.presented() == {"default": 9}
    rooms.present(second, Presentation(deck="week-3", screen=2))
    assert rooms.presented() == {"default": 4, "week-3": 2}
    rooms.close(first)
    assert rooms.presented() == {"week-3": 2}
    clock.advance(601)
    assert rooms.presented() == {}
