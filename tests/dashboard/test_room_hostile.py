"""The room pages against a hostile class (issue 28): a classmate's link gives no identity, the
teacher removes a student by the tag the screen lists, and while a question is open no lesson page
shows a student what decides it."""

import pytest

from classroom.rooms import format_code
from dashboard.room import session as room_session

from .conftest import chart_data, messages, no_exception
from .test_room_pages import answer, histograms, student, teacher, texts


@pytest.fixture(autouse=True)
def fresh_registry():
    room_session.registry.clear()
    yield
    room_session.registry.clear()


def test_a_link_with_a_classmates_seat_gives_not_their_identity(make_app):
    """Issue 28: opening Alice's /room?code=…&seat=… showed her answer, and changing it changed hers."""
    t, key = teacher(make_app)
    alice = student(make_app, key.code)
    t.button(key="room_ask").click().run()
    alice.run()
    answer(alice, 2)
    seat = alice.session_state["room_session"]
    mallory = make_app(query={"code": key.code, "seat": seat}, page="room")
    no_exception(mallory)
    assert mallory.session_state["room_session"] != seat and "Sent: " not in texts(mallory)
    assert "seat" not in dict(mallory.query_params)
    answer(mallory, 4)
    t.run()
    counts = histograms(t)[0]["count"]
    assert (room_session.registry().teacher_view(key).members, counts.sum(), counts[2], counts[4]) == (2, 2, 1, 1)
    assert room_session.registry().student_view(key.code, seat).my_answer == (2,), "Alice's answer is hers"


def test_the_teacher_removes_a_student_by_the_tag_the_screen_lists(make_app):
    t, key = teacher(make_app)
    s, other = student(make_app, key.code), student(make_app, key.code)
    t.button(key="room_ask").click().run()
    s.run()
    answer(s, 2)
    t.run()
    roster = room_session.registry().teacher_view(key).roster
    tag = roster[0].tag
    assert tag in " ".join(str(d.value.to_dict()) for d in t.dataframe), "the roster lists the tag"
    t.text_input(key="room_remove_tag").input(tag.lower())
    t.button[[b.label for b in t.button].index("Remove")].click().run()
    no_exception(t)
    view = room_session.registry().teacher_view(key)
    assert (view.members, view.current.answered) == (1, 0)
    s.run()
    assert "no longer in room" in texts(s)
    other.run()
    assert other.session_state["room_code"] == key.code


def test_while_a_question_is_open_page_one_hides_the_lesson_from_a_student(make_app):
    """Issue 28: a following student opened page 1 ("Predict first" off) and read the deciding row."""
    t, key = teacher(make_app)
    s = make_app()  # page 1, joined from the sidebar
    s.text_input(key="room_join_code_sidebar").input(format_code(key.code))
    s.sidebar.button[[b.label for b in s.sidebar.button].index("Join the room")].click().run()
    no_exception(s)
    drawn = len(chart_data(s))
    assert drawn > 0 and s.session_state["room_code"] == key.code
    t.button(key="room_ask").click().run()
    s.run()
    no_exception(s)
    assert chart_data(s) == [] and "question is open" in messages(s)
    s.toggle(key="room_follow_sidebar").set_value(False).run()  # detached, with the teacher's lesson still
    assert chart_data(s) == [] and "question is open" in messages(s)
    s.toggle(key="room_follow_sidebar").set_value(True).run()
    t.button(key="room_reveal").click().run()
    s.run()
    no_exception(s)
    assert len(chart_data(s)) == drawn and "question is open" not in messages(s)
