"""Issue 47, items 1 and 2: the presenter view and the handout are the room's teacher's.

A session that holds no room's teacher key gets no notes from a presenter link (`/present?deck=default&
presenter=1&screen=22` held "The measured answer is "cat""), no clock, no steps and no handout button: the forms
to open a room or take one back. A key taken back with the PIN on another screen stops showing them. The
handout is a job built once per deck (two teachers' clicks, one build), and a room's students get it only after
the teacher shares it, never while a question is open. Over the network, a second device (127.0.0.9) asking
for the presenter view gets no notes either, and no form to open a room of its own."""

import threading
from dataclasses import replace

import pytest
import streamlit as st
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.testing.v1 import AppTest
from streamlit.util import calc_hash
from websockets.sync.client import connect

from classroom.handout_service import HandoutService
from classroom.rooms import format_code
from classroom.rooms.clients import OPENED_ELSEWHERE
from dashboard.present import handout as handouts
from dashboard.present import ready
from dashboard.present.presenter import AT
from dashboard.room import session as room_session

from .conftest import APP, _register_pages, no_exception
from .test_present import DECK, PIN, fresh_registry, notes_words, present, text  # noqa: F401 (a fixture)

SECRET = (20, 22, 27)  # question screens whose notes say the measured answer


def open_room(at: AppTest) -> AppTest:
    at.text_input(key="room_open_pin").input(PIN)
    at.button[[b.label for b in at.button].index("Open a room")].click().run()
    no_exception(at)
    return at


def keys(at: AppTest) -> set:
    return {b.key for b in at.button} | {e.proto.id.rsplit("-", 1)[-1] for e in at.get("download_button")}


def student_of(code: str) -> AppTest:
    student = AppTest.from_file(str(APP), default_timeout=60)
    student.query_params = {"code": code}
    _register_pages(student)
    student.switch_page("app_pages/room.py").run()
    no_exception(student)
    return student


def secret(screen) -> str:
    """The notes' sentence that says the measured answer, its first words (no title or handout holds them)."""
    said = next(part for part in screen.notes.split(". ") if "measured" in part)
    return " ".join(said.split()[:6])


@pytest.mark.parametrize("number", SECRET)
def test_a_presenter_link_without_the_room_s_key_shows_no_notes_only_the_forms(number):
    """With a room open elsewhere (the class's), a fresh session opens the presenter link, and a joined student
    the Present page's "Presenter view" button: neither gets the screen's notes, the steps or the handout; the
    room's forms are there."""
    teacher = open_room(present({"deck": "default", "presenter": "1", "screen": str(number)}))
    code = teacher.session_state["room_teacher"].code
    screen = DECK.screens[number - 1]
    assert secret(screen) in text(teacher), "the room's teacher reads them (the checks below could find them)"
    student = student_of(code)
    student.switch_page("app_pages/present.py").run()
    student.button(key="present_to_presenter").click().run()
    for at in (present({"deck": "default", "presenter": "1", "screen": str(number)}), student):
        no_exception(at)
        shown = text(at)
        assert notes_words(screen) not in shown and secret(screen) not in shown, shown[:600]
        assert "is the room's teacher's" in shown
        assert "room_open_pin" in {t.key for t in at.text_input}
        assert not {"present_handout_make", "present_presenter_Right", "present_clock_restart"} & keys(at)
        assert AT not in at.session_state, "the view stood on no screen"


def test_the_teacher_sees_the_notes_and_loses_them_when_the_room_is_taken_back_elsewhere():
    first = present({"deck": "default", "presenter": "1", "screen": "22"})
    assert notes_words(DECK.screens[21]) not in text(first)
    open_room(first)
    assert notes_words(DECK.screens[21]) in text(first), "the room's teacher reads the screen's notes"
    code = first.session_state["room_teacher"].code
    second = present({"deck": "default", "presenter": "1", "screen": "22"})
    second.text_input(key="room_reclaim_code").input(format_code(code))
    second.text_input(key="room_reclaim_pin").input(PIN)
    second.button[[b.label for b in second.button].index("Take it back")].click().run()
    no_exception(second)
    assert notes_words(DECK.screens[21]) in text(second)
    first.run()
    no_exception(first)
    assert notes_words(DECK.screens[21]) not in text(first) and "is the room's teacher's" in text(first)


def clock_of_a_presenter(key):
    """A script: this session holds `key` as its room's teacher key, and runs the presenter's clock once."""
    import streamlit as st

    from classroom.decks import default_deck
    from dashboard.present import deck as decks
    from dashboard.present import presenter
    from dashboard.room import session as room_session

    st.session_state[room_session.TEACHER] = key
    st.session_state["whole_run_wanted"] = presenter.clock_part(default_deck(decks.names()), 22)


def test_a_presenter_whose_room_is_taken_back_elsewhere_is_told_at_the_clocks_next_poll():
    """A hostile pass: the old presenter kept its notes and said nothing until the lecturer's next key."""
    first = open_room(present({"deck": "default", "presenter": "1", "screen": "22"}))
    key = first.session_state["room_teacher"]
    poll = AppTest.from_function(clock_of_a_presenter, args=(key,), default_timeout=60).run()
    no_exception(poll)
    assert poll.session_state["whole_run_wanted"] is None, "the room's own teacher: the clock alone"
    second = present({"deck": "default", "presenter": "1", "screen": "22"})
    second.text_input(key="room_reclaim_code").input(format_code(key.code))
    second.text_input(key="room_reclaim_pin").input(PIN)
    second.button[[b.label for b in second.button].index("Take it back")].click().run()
    poll.run()
    no_exception(poll)
    assert poll.session_state["whole_run_wanted"] is True
    assert "took it back with the PIN" in poll.session_state["room_message"][1]


class Builds:
    """A stand-in for build_handout that counts its calls, each held until `go` is set."""

    def __init__(self):
        self.count, self.go = 0, threading.Event()

    def __call__(self, deck) -> str:
        self.count += 1
        assert self.go.wait(60)
        return f"<!doctype html><title>{deck.title}: handout</title>"


@pytest.fixture
def made(tmp_path, monkeypatch):
    """The handout service the pages call, in a folder of the test's, with its builds counted; and every
    download button's (label, data) as drawn."""
    builds = Builds()
    service = HandoutService(tmp_path, build=builds)
    monkeypatch.setattr(handouts, "service", lambda: service)
    drawn, real = [], st.download_button

    def record(label, data, *args, **kwargs):
        drawn.append((kwargs.get("key"), label, data))
        return real(label, data, *args, **kwargs)

    monkeypatch.setattr(st, "download_button", record)
    yield builds, service, drawn
    service.shutdown()


def offered(drawn: list, key: str) -> list:
    return [(label, data) for k, label, data in drawn if k == key]


def test_the_handout_is_built_once_for_two_teachers_and_reaches_students_only_once_shared(made):
    builds, service, drawn = made
    teacher = open_room(present({"deck": "default", "presenter": "1"}))
    other = open_room(present({"deck": "default", "presenter": "1"}))  # another room's teacher, same deck
    student = student_of(teacher.session_state["room_teacher"].code)
    teacher.button(key="present_handout_make").click().run()
    other.button(key="present_handout_make").click().run()  # while the first build runs: it joins it
    no_exception(teacher), no_exception(other)
    assert "Making the handout" in text(teacher) and "Making the handout" in text(other)
    job = service.job(teacher.session_state[handouts.JOB])
    assert other.session_state[handouts.JOB] == job.key
    builds.go.set()
    assert job.wait(60) and job.state == "done", job.error
    drawn.clear()
    for at in (teacher.run(), other.run()):
        no_exception(at)
    assert builds.count == 1, "two teachers' clicks, one build"
    page = f"<!doctype html><title>{DECK.title}: handout</title>".encode()
    assert offered(drawn, "present_handout") == [("Students' handout (HTML)", page)] * 2
    drawn.clear()
    student.run()
    assert not offered(drawn, "room_handout"), "a student gets nothing before the teacher shares it"
    teacher.button(key="present_handout_share").click().run()
    no_exception(teacher)
    student.run()
    assert not offered(drawn, "room_handout"), "it prints every answer: not before the deck's questions are asked"
    assert "it opens here once the class has answered the deck's last question" in text(student)
    for _ in range(3):  # to screen 4, the deck's first question: asked in the room
        teacher.button(key="present_presenter_Right").click().run()
    drawn.clear()
    student.run()
    assert "Question 1" in text(student) and not offered(drawn, "room_handout"), "hidden while a question is open"
    teacher.button(key="room_reveal").click().run()
    shown = room_session.registry().teacher_view(teacher.session_state["room_teacher"]).presentation
    questions = {s.number for s in DECK.screens if s.kind == "question" and not ready.why_not(s)}
    assert shown.asked == (4,) and len(questions) > 1
    student.run()
    assert not offered(drawn, "room_handout"), "the deck's later questions are still to be asked"
    room_session.registry().present(teacher.session_state["room_teacher"],
                                    replace(shown, asked=tuple(sorted(questions))))  # as if each had been asked
    student.run()
    no_exception(student)
    assert offered(drawn, "room_handout") == [("The lecture's handout (HTML)", page)], \
        "offered once every question of the deck has been asked and revealed"
    assert builds.count == 1


def present_run(port: int, query: str, device: str, page: str = "present") -> tuple[str, set[str]]:
    """One full run of the Present page (or the page at url path `page`) in a fresh session from the loopback
    address `device` (the lab reads it from the connection, as a phone's): every text element's body, and the
    widget keys."""
    said, ids = [], set()
    with connect(f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"], source_address=(device, 0),
                 open_timeout=30) as ws:
        ws.send(BackMsg(rerun_script={"query_string": query, "page_script_hash": calc_hash(page)})
                .SerializeToString())
        for raw in ws:
            msg = ForwardMsg()
            msg.ParseFromString(raw)
            if msg.WhichOneof("type") == "script_finished":
                return " ".join(said), ids
            if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
                el = msg.delta.new_element
                kind = el.WhichOneof("type")
                said.append(str(getattr(el, kind)))
                ids.add(getattr(getattr(el, kind), "id", "").rsplit("-", 1)[-1])
    raise AssertionError("the run never finished")


@pytest.mark.slow
def test_a_second_device_asking_for_the_presenter_view_over_the_network_gets_no_notes(lab):
    server = lab(renders=0)  # a room is open in it, the class's
    said, ids = present_run(server.port, "deck=default&presenter=1&screen=22", "127.0.0.9")
    assert "is the room" in said and "room_reclaim_pin" in ids, said[:800]  # the way back in with code and PIN
    assert "room_open_pin" not in ids, "a second device opens no room of its own (test_room_opening.py)"
    assert "Take your room back with its code and PIN" in said and "PIN of your choice" not in said, said[:800]
    assert OPENED_ELSEWHERE in said, said[:800]
    assert secret(DECK.screens[21]) not in said and notes_words(DECK.screens[21]) not in said, said[:800]
    assert "present_handout_make" not in ids and "present_presenter_Right" not in ids
