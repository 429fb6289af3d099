"""The teacher's seats and answers on the Room page (issues 39 and 41), as AppTest sessions of the real
app: lock, seats per device, remove and block, the CSV download before and after closing, closing that
asks whether to keep the answers, and kept answers opened and deleted with the room's PIN."""

import csv
import io

import pytest
import streamlit as st

from dashboard.room import session as room_session

from .conftest import messages, no_exception
from .test_room_pages import PIN, answer, student, teacher, texts


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch, tmp_path):
    """Each test its own rooms, and its own media folder: kept answers go to disk there."""
    monkeypatch.setenv("ATTENTION_LAB_MEDIA", str(tmp_path))
    room_session.registry.clear()
    yield
    room_session.registry.clear()


@pytest.fixture
def downloads(monkeypatch):
    """key -> the text each st.download_button drawn would give (a function's result, as on a click)."""
    got, real = {}, st.download_button

    def record(label, data, *args, **kwargs):
        got[kwargs.get("key")] = data() if callable(data) else data
        return real(label, data, *args, **kwargs)

    monkeypatch.setattr(st, "download_button", record)
    return got


def rows(text: str) -> list[dict]:
    """A downloaded CSV's rows, read as a spreadsheet reads its bytes: UTF-8 after the byte-order mark."""
    return list(csv.DictReader(io.StringIO(text.encode("utf-8").decode("utf-8-sig"))))


def close(t, keep: str | None):
    if keep is not None:
        t.radio(key="room_keep").set_value(keep)
    t.button(key="room_close").click().run()
    no_exception(t)


def test_the_csv_download_equals_what_was_answered_before_and_after_closing(make_app, downloads):
    t, key = teacher(make_app)
    a, b = student(make_app, key.code), student(make_app, key.code)
    t.button(key="room_ask").click().run()
    for s, pick in ((a, 1), (b, 3)):
        s.run()
        answer(s, pick)
    t.run()
    tags = {m.tag for m in room_session.registry().teacher_view(key).roster}
    q = room_session.registry().teacher_view(key).current.question
    table = rows(downloads["room_csv"])  # a row per answer, the key not shown before the reveal
    assert sorted(r["answer"] for r in table) == [q.choices[1], q.choices[3]] and {r["question"] for r in table} == {
        q.prompt}
    assert {r["seat"] for r in table} == tags and {r["right"] for r in table} == {""}
    assert [r["seat"] for r in rows(downloads["room_csv_by-student"])] == sorted(tags)
    for s in (a, b):
        assert s.session_state["room_session"] not in downloads["room_csv"]  # tags only, no session ids
    close(t, "delete")
    assert "room_teacher" not in t.session_state and room_session.registry().kept_list() == ()
    after = rows(downloads["room_closed_download"])  # the class is over: the key is in
    assert [(r["seat"], r["answer"]) for r in after] == [(r["seat"], r["answer"]) for r in table]
    assert [r["right"] for r in after] == ["yes" if q.choices.index(r["answer"]) in q.answer else "no" for r in table]
    assert len(rows(downloads["room_closed_download_by-student"])) == 2


def test_closing_asks_whether_to_keep_and_kept_answers_open_and_go_with_the_pin(make_app, downloads):
    t, key = teacher(make_app)
    s = student(make_app, key.code)
    t.button(key="room_ask").click().run()
    s.run()
    answer(s, 2)
    question = room_session.registry().teacher_view(key).current.question
    close(t, None)
    assert t.session_state["room_teacher"] == key and "Choose first whether to keep" in messages(t)
    close(t, "keep")
    [info] = room_session.registry().kept_list()
    assert "kept in the lab" in texts(t) and "Kept answers (1)" in [e.label for e in t.expander]
    other = make_app(page="room")  # another screen: the list shows, the answers need the PIN
    other.text_input(key="room_kept_pin").input("wrong-pin")
    other.button[[b.label for b in other.button].index("Open")].click().run()
    assert "does not match" in texts(other) and f"room_kept_csv_{info.id}" not in downloads
    other.text_input(key="room_kept_pin").input(PIN)
    other.button[[b.label for b in other.button].index("Open")].click().run()
    no_exception(other)
    assert downloads[f"room_kept_csv_{info.id}"] == downloads["room_closed_download"]
    assert downloads[f"room_kept_csv_{info.id}_by-student"] == downloads["room_closed_download_by-student"]
    assert [r["answer"] for r in rows(downloads[f"room_kept_csv_{info.id}"])] == [question.choices[2]]
    other.text_input(key="room_kept_pin").input(PIN)
    other.button[[b.label for b in other.button].index("Delete")].click().run()
    no_exception(other)
    assert room_session.registry().kept_list() == ()


def test_the_teacher_is_told_before_the_room_s_bound_of_rounds_and_an_ask_beyond_is_refused(make_app):
    """Issue 48: a room kept its last 8 rounds and dropped the older ones without a word."""
    t, key = teacher(make_app)
    rooms = room_session.registry()
    t.button(key="room_ask").click().run()
    question = rooms.teacher_view(key).current.question
    for _ in range(88):
        rooms.ask(key, question)
    t.run()
    assert not t.warning  # 89 asked, 11 left: not yet
    rooms.ask(key, question)
    t.run()
    assert [w.value for w in t.warning] == ["This room has asked 90 of its 100 questions: it can ask 10 more (every "
                                            "answer is kept). For more, download the answers, close the room and "
                                            "open a new one."]
    for _ in range(10):
        rooms.ask(key, question)
    t.button(key="room_ask").click().run()
    no_exception(t)
    assert "asked 100 questions, its limit" in messages(t) and rooms.teacher_view(key).asked == 100


def test_lock_and_seats_per_device_reach_the_room(make_app):
    t, key = teacher(make_app)
    t.toggle(key="room_lock").set_value(True).run()
    t.number_input(key="room_seats").set_value(5).run()
    no_exception(t)
    view = room_session.registry().teacher_view(key)
    assert (view.locked, view.seats_per_device) == (True, 5)
    assert "Seats: 5 per device, locked" in [e.label for e in t.expander]
    late = make_app(query={"code": key.code}, page="room")
    assert "room_code" not in late.session_state and "locked this room" in texts(late)
    t.toggle(key="room_lock").set_value(False).run()
    assert not room_session.registry().teacher_view(key).locked
    student(make_app, key.code)


def test_remove_and_block_takes_the_student_out_and_the_teacher_can_let_devices_in_again(make_app):
    t, key = teacher(make_app)
    s, other = student(make_app, key.code), student(make_app, key.code)
    t.run()
    tag = room_session.registry().teacher_view(key).roster[0].tag
    t.text_input(key="room_remove_tag").input(tag[:6])  # a prefix removes no one
    t.button[[b.label for b in t.button].index("Remove and block its device")].click().run()
    assert "all 16 digits" in messages(t) and room_session.registry().teacher_view(key).members == 2
    t.text_input(key="room_remove_tag").input(f" {tag.lower()} ")
    t.button[[b.label for b in t.button].index("Remove and block its device")].click().run()
    no_exception(t)
    view = room_session.registry().teacher_view(key)
    assert (view.members, view.blocked) == (1, 1)
    s.run()
    assert "no longer in room" in texts(s)
    other.run()
    assert other.session_state["room_code"] == key.code
    t.button(key="room_unblock").click().run()
    assert room_session.registry().teacher_view(key).blocked == 0


def test_a_phone_refused_for_its_address_is_shown_to_the_teacher_with_a_one_click_raise(make_app, monkeypatch):
    """Issue 48, 9: the third phone from one network address was refused, and only that phone knew. The teacher's
    panel now says so (no address: the screen is projected) and raises the room's bound in one click."""
    t, key = teacher(make_app)
    t.run()
    assert not [b for b in t.button if b.key == "room_raise_seats"]
    monkeypatch.setattr(room_session, "client_address", lambda: "10.0.0.9")  # one device's phones: one address
    student(make_app, key.code), student(make_app, key.code)
    third = make_app(query={"code": key.code}, page="room")
    assert "room_code" not in third.session_state and "This device already has 2 seats" in messages(third)
    t.run()
    no_exception(t)
    assert "1 browser was refused a seat: its network address already had 2 seats in this room." in messages(t)
    assert "10.0.0.9" not in texts(t) + messages(t)
    t.button(key="room_raise_seats").click().run()
    no_exception(t)
    assert room_session.registry().teacher_view(key).seats_per_device == 3
    assert "refused a seat" not in messages(t) and not [b for b in t.button if b.key == "room_raise_seats"]
    assert "Seats: 3 per device" in [e.label for e in t.expander], "the Seats block shows the new bound"
    third.text_input(key="room_join_code_page").input(key.code)
    third.button[[b.label for b in third.button].index("Join the room")].click().run()
    no_exception(third)
    assert third.session_state["room_code"] == key.code
