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
    return list(csv.DictReader(io.StringIO(text)))


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
    table = rows(downloads["room_csv"])
    assert [r["choice"] for r in table] == list(q.choices) and {r["question"] for r in table} == {q.prompt}
    assert [int(r["count"]) for r in table] == [int(i in (1, 3)) for i in range(len(q.choices))]
    assert {r["seats"] for r in table if r["seats"]} == tags and {r["correct"] for r in table} == {""}
    for s in (a, b):
        assert s.session_state["room_session"] not in downloads["room_csv"]  # tags only, no session ids
    before = downloads["room_csv"]
    close(t, "delete")
    assert "room_teacher" not in t.session_state and downloads["room_closed_download"] == before
    assert room_session.registry().kept_list() == ()


def test_closing_asks_whether_to_keep_and_kept_answers_open_and_go_with_the_pin(make_app, downloads):
    t, key = teacher(make_app)
    s = student(make_app, key.code)
    t.button(key="room_ask").click().run()
    s.run()
    answer(s, 2)
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
    assert [int(r["count"]) for r in rows(downloads[f"room_kept_csv_{info.id}"])][2] == 1
    other.text_input(key="room_kept_pin").input(PIN)
    other.button[[b.label for b in other.button].index("Delete")].click().run()
    no_exception(other)
    assert room_session.registry().kept_list() == ()


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
