"""Presenting a deck (issue 41, part 2) as AppTest sessions of the real app sharing one room registry: the
names a deck may use come from the lab's own lists; a projector link opens its screen and its keys step it;
a presenter steers a projector window through the teacher's room, asks the deck's questions there and
reveals them; the notes reach neither the projector nor a student. (The keys in Chromium, and the fit at
1920×1080: test_present_browser.py.)"""

import csv
import dataclasses
import io
import uuid

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from animations.catalog import SCENES
from classroom import catalogue
from classroom.catalogue import VIEW_NAMES
from classroom.decks import default_deck
from classroom.rooms import format_code
from dashboard.present import deck as decks
from dashboard.present.projector import NUMBER
from dashboard.room import session as room_session
from tests.conftest import shown

from .conftest import APP, _register_pages, no_exception

PIN = "246810"
DECK = default_deck(decks.names())
APP_DIR = APP.parent


@pytest.fixture(autouse=True)
def fresh_registry():
    room_session.registry.clear()
    yield
    room_session.registry.clear()


@pytest.fixture(params=["memory", "redis"])
def rooms(request, monkeypatch):
    """The registry every session calls: this process's memory, or Redis as a hall's processes share it."""
    if request.param == "redis":
        pytest.importorskip("redis")
        from classroom.rooms.redis_rooms import RedisRooms
        from dashboard.process import Held
        from tests.conftest import redis_server

        with redis_server() as client:
            monkeypatch.setattr(room_session, "registry", Held(lambda: RedisRooms(client, prefix=uuid.uuid4().hex)))
            yield request.param
        return
    yield request.param


def test_the_dashboard_names_every_page_scene_and_view_the_default_deck_uses():
    """The Names the dashboard gives the deck loader are the navigation's url paths, the catalogue's scenes
    and the address's view names; each one the default deck uses is among them, and each page it names has
    a file in the app."""
    names = decks.names()
    assert names.pages == {url for page in catalogue.PAGES for url in page.urls}
    assert names.scenes == set(SCENES) and names.views == VIEW_NAMES
    pages = {s.page for s in DECK.screens if s.kind == "page"}
    assert pages and pages <= names.pages
    assert all((APP_DIR / decks.page_file(p)).is_file() for p in pages)
    assert {s.scene for s in DECK.screens if s.kind in ("scene", "video")} <= names.scenes
    assert {key for s in DECK.screens for key, _ in s.view} <= names.views


def test_a_deck_link_names_a_deck_of_the_lab_never_a_path():
    assert decks.load("default") == DECK
    for name in ("../decks/default", "/etc/passwd", "default.toml", "nope"):
        with pytest.raises(decks.DeckError, match="no deck called"):
            decks.load(name)


def present(query: dict) -> AppTest:
    """The Present page of a new session, opened from a link."""
    at = AppTest.from_file(str(APP), default_timeout=60)
    _register_pages(at)
    at.switch_page("app_pages/present.py")
    at.query_params = query
    at.run()
    no_exception(at)
    return at


def text(at: AppTest) -> str:
    """Every string of the page's elements (labels, values, help), Markdown's escapes undone."""
    parts = []
    for kind in ("markdown", "caption", "title", "subheader", "header", "info", "warning", "error", "success",
                 "code", "text", "button", "dataframe"):
        for e in at.get(kind):
            parts.append(str(e.proto))
    return shown(" ".join(parts).replace("\\\\", "\\").replace("\\", ""))


def marker(at: AppTest) -> str:
    return next(c.value for c in at.caption if " / " in c.value and c.value.replace(" / ", "").isdigit())


def test_a_projector_link_opens_its_screen_and_its_keys_step_it():
    at = present({"deck": "default", "screen": "3", "projector": "1"})
    screen = DECK.screens[2]
    assert screen.page == "scaled-dot-product" and dict(screen.view) == {"step": "2"}
    assert marker(at) == f"3 / {len(DECK.screens)}"
    assert at.query_params["step"] == "2" and at.query_params["screen"] == "3"  # the page at the screen's view
    at.button(key="present_key__PageDown").click().run()  # what a clicker sends
    assert at.session_state[NUMBER] == 4 and shown(at.title[0].value) == DECK.screens[3].title
    at.button(key="present_key__Space").click().run()
    at.button(key="present__Left").click().run()
    at.button(key="present_key__PageUp").click().run()
    no_exception(at)
    assert at.session_state[NUMBER] == 3 and marker(at) == f"3 / {len(DECK.screens)}"


def notes_words(screen) -> str:
    """A stretch of a screen's notes long enough to be theirs alone (no title or handout holds it)."""
    return " ".join(screen.notes.split()[:8])


def test_the_presenter_steers_the_projector_through_the_room_and_the_notes_stay_with_the_presenter(rooms):
    """In one process or through Redis (a hall): three steps reach the projector and a student's phone gets the
    deck's question, which the presenter reveals; no screen's notes reach the projector or the student."""
    teacher = present({"deck": "default", "presenter": "1"})
    teacher.text_input(key="room_open_pin").input(PIN)
    teacher.button[[b.label for b in teacher.button].index("Open a room")].click().run()
    no_exception(teacher)
    key = teacher.session_state["room_teacher"]
    projector = present({"deck": "default", "code": format_code(key.code), "projector": "1"})
    student = AppTest.from_file(str(APP), default_timeout=60)
    student.query_params = {"code": key.code}
    _register_pages(student)
    student.switch_page("app_pages/room.py").run()
    assert projector.session_state[NUMBER] == 1 and student.session_state["room_code"] == key.code
    for number in (2, 3, 4):  # a scene's step, a page at a view, a room question
        teacher.button(key="present_presenter_Right").click().run()
        no_exception(teacher)
        projector.run()
        student.run()
        screen = DECK.screens[number - 1]
        assert projector.session_state[NUMBER] == number and marker(projector) == f"{number} / {len(DECK.screens)}"
        assert notes_words(screen) in text(teacher)  # the check below could find them
        assert notes_words(screen) not in text(projector) and notes_words(screen) not in text(student)
    question = decks.question_of(DECK.screens[3])
    assert question.prompt in text(student) and question.prompt in text(projector)  # asked in the room
    assert "Reveal the answer" in text(teacher) and not projector.get("vega_lite_chart")
    teacher.button(key="room_reveal").click().run()
    projector.run()
    no_exception(projector)
    assert [e for e in projector.get("vega_lite_chart")], "the reveal's chart on the projector"
    assert not any(notes_words(s) in text(projector) or notes_words(s) in text(student)
                   for s in DECK.screens if s.notes)


def test_the_presenter_knows_the_rooms_question_when_computing_it_again_differs_in_the_last_bits(monkeypatch):
    """The presenter computes a screen's question again on every rerun; where the CPU's kernels round
    otherwise (another kernel path, another process: its numbers a unit in the last place away, its reason
    with them), it is still the room's current question: no new round is asked, and the answers panel and
    the reveal stay on the presenter's screen."""
    teacher = present({"deck": "default", "presenter": "1"})
    teacher.text_input(key="room_open_pin").input(PIN)
    teacher.button[[b.label for b in teacher.button].index("Open a room")].click().run()
    for _ in range(3):  # to screen 4, the deck's first question: asked in the room
        teacher.button(key="present_presenter_Right").click().run()
    no_exception(teacher)
    asked = room_session.registry().teacher_view(teacher.session_state["room_teacher"]).current
    assert "Reveal the answer" in text(teacher)
    real = decks.question_of

    def computed_again(screen):
        q = real(screen)
        return dataclasses.replace(q, numbers=tuple(float(np.nextafter(n, np.inf)) for n in q.numbers),
                                   reason=q.reason + " ")

    monkeypatch.setattr(decks, "question_of", computed_again)
    assert computed_again(DECK.screens[3]) != asked.question
    teacher.run()
    no_exception(teacher)
    now = room_session.registry().teacher_view(teacher.session_state["room_teacher"]).current
    assert now.number == asked.number and "Reveal the answer" in text(teacher)


@pytest.mark.parametrize("query, said, number", [
    ({"deck": "../../etc/passwd", "screen": "2", "projector": "1"}, "no deck called", 2),
    ({"deck": "default", "screen": "999", "projector": "1"}, "", len(DECK.screens)),
    ({"deck": "default", "screen": "two", "projector": "1"}, "not a number", 1),
])
def test_a_bad_deck_link_opens_the_default_deck_and_says_why(query, said, number):
    at = present(query)
    assert said in " ".join(e.value for e in [*at.error, *at.warning])
    assert at.session_state[NUMBER] == number and marker(at) == f"{number} / {len(DECK.screens)}"


def test_the_presenter_downloads_the_room_s_answers_as_csv_and_a_rerun_keeps_the_file(monkeypatch):
    """Read on a click, then a plain download (the clock reruns the page every 2 s: a deferred download lost
    its file to them). The file holds what the students answered: a row per answer, with the screen that asked."""
    got, real = {}, st.download_button

    def record(label, data, *args, **kwargs):
        got[kwargs.get("key")] = (label, data() if callable(data) else data)
        return real(label, data, *args, **kwargs)

    monkeypatch.setattr(st, "download_button", record)
    teacher = present({"deck": "default", "presenter": "1"})
    teacher.text_input(key="room_open_pin").input(PIN)
    teacher.button[[b.label for b in teacher.button].index("Open a room")].click().run()
    key = teacher.session_state["room_teacher"]
    for _ in range(3):  # to screen 4, the deck's first question: asked in the room
        teacher.button(key="present_presenter_Right").click().run()
    no_exception(teacher)
    question = decks.question_of(DECK.screens[3])
    picks = (0, 1, 1)
    for pick in picks:
        student = AppTest.from_file(str(APP), default_timeout=60)
        student.query_params = {"code": key.code}
        _register_pages(student)
        student.switch_page("app_pages/room.py").run()
        student.pills[0].set_value(pick).run()
        student.button(key=[b.key for b in student.button if b.key and b.key.startswith("room_send_")][0]).click()
        student.run()
        no_exception(student)
    teacher.run()
    assert "present_csv" not in got, "nothing is read before the click"
    teacher.button(key="present_csv_read").click().run()
    no_exception(teacher)
    label, data = got.pop("present_csv")
    assert label.startswith("Download the answers as read at ") and label.endswith(" UTC: Answers (a row per answer) "
                                                                                  "(CSV)")
    table = list(csv.DictReader(io.StringIO(data.encode("utf-8").decode("utf-8-sig"))))  # as a spreadsheet reads it
    assert {(r["question"], r["screen"]) for r in table} == {(question.prompt, "4")}  # the deck's screen that asked
    assert sorted(r["answer"] for r in table) == [question.choices[i] for i in sorted(picks)]
    assert len(list(csv.reader(io.StringIO(got["present_csv_by-student"][1])))) == 1 + len(picks)
    teacher.run()  # the clock's rerun, or a step: the file read stays offered
    assert got["present_csv"] == (label, data)


def test_a_presented_second_layer_screen_asks_what_a_second_layer_buys(monkeypatch):
    """The presenter and the projector ask a screen's question as `make lecture` checks it
    (classroom.deck_questions): the "layers" screen asked which layer of the two-layer run forms the
    induction head (the "film" screen's question) when the presenter kept a copy that knew one run only."""
    from classroom.layers_question import CHOICES
    from tests.classroom.test_new_questions import film_with

    made = {1: film_with(1, 0.06, 3.0), 2: film_with(2, 0.73, 0.84)}
    monkeypatch.setattr(decks, "films", lambda: type("Store", (), {"cached": lambda self, s: made[s.layers]})())
    screen = next(s for s in DECK.screens if s.kind == "question" and s.question == "layers")
    question = decks.question_of(screen)
    assert question.kind == "layers" and question.choices == CHOICES
    assert question.right_choices == ("Only the two-layer model",)


def test_a_projector_reloaded_on_a_trained_screen_tells_the_class_nothing_of_its_link():
    """The lecture's acceptance test at 1280x720: a projector window draws itself again from its address when its
    size changes (display.py), and on screen 20 that address holds the screen's trained lesson, so the class read
    "This link is for the trained model ..." above the video, which it pushed 12 px below the window."""
    from classroom.rooms.presentation import Presentation
    from dashboard.lesson import state
    from dashboard.room import session as room_session

    screen = next(s for s in DECK.screens if s.kind == "scene" and s.lesson.source == "trained")
    key = room_session.registry().open(PIN, DECK.screens[0].lesson.to_json(), "0123456789abcdef0123456789abcdef")
    room_session.registry().present(key, Presentation(deck="default", screen=screen.number))
    at = present({**state.url_params(screen.lesson), "deck": "default", "code": key.code,
                  "screen": str(screen.number), "projector": "1"})
    assert at.session_state["present_number"] == screen.number
    assert "This link is for the trained model" not in " ".join(w.value for w in at.warning)
