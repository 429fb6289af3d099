"""Issue 47, the hostile pass after its fixes: hiding was per session, so a student's device read the answer
through a door with no seat: a second tab, a seat left to look and taken again, a projector link without the
room's code. While any room has a question open, every session of a device that is not a teacher's hides what
decides it (docs/classroom.md); the lab's own computer, a device named as a teacher's and a room's teacher are
never hidden from. AppTest sessions have no address: `device` gives them one; test_present_gate.py and the
network test below read it from a real connection."""

import ipaddress

import pytest

from classroom import catalogue, hiding
from classroom.decks import default_deck
from classroom.rooms.presentation import Presentation
from dashboard.present import deck as decks
from dashboard.present import projector
from dashboard.room import session as room_session

from .conftest import chart_data, messages, no_exception, page_file
from .test_present import present
from .test_present_gate import present_run
from .test_room_hiding import assert_hidden, assert_shown, opened, present_as_projector
from .test_room_pages import fresh_registry  # noqa: F401 (an autouse fixture)

DECK = default_deck(decks.names())
IT = next(s for s in DECK.screens if s.kind == "question" and s.question == "trained" and '"it"' in s.title)
GRID = next(s for s in DECK.screens if s.kind == "page" and s.page == "trained-heads")
LAB_WIDE = "A question is open in a class on this lab"
PHONE = "10.0.0.7"
CHART = "schema/vega-lite"  # in a chart's spec, as the page sends it


@pytest.fixture
def device(monkeypatch):
    """device(address): every session from now on connects from `address` (None: the lab's own computer)."""
    def connect_from(address):
        monkeypatch.setattr(room_session, "client_address", lambda: address)
    connect_from(PHONE)
    return connect_from


def trained_heads(make_app):
    """The Trained heads page at layer 4, head 2: where "it" → "cat" is read."""
    s = make_app(page="trained-heads")
    s.query_params = {"layer": "4", "head": "2"}
    s.run()
    no_exception(s)
    return s


def test_a_tab_with_no_seat_on_a_students_device_hides_until_the_reveal(make_app, device):
    key = opened()
    s = trained_heads(make_app)
    assert chart_data(s), "nothing to hide"
    room_session.registry().ask(key, decks.question_of(IT))
    s.run()
    assert_hidden(s, "Trained heads", "a tab with no seat")
    assert LAB_WIDE in messages(s)
    room_session.registry().reveal(key)
    s.run()
    assert_shown(s, "after the reveal")
    assert chart_data(s)


def test_a_seat_left_to_look_sees_the_note(make_app, device):
    key = opened()
    s = make_app(query={"code": key.code}, page="room")
    assert s.session_state["room_code"] == key.code, "the room's link seats the student"
    room_session.registry().ask(key, decks.question_of(IT))
    s.run()
    s.button(key="room_leave").click().run()
    no_exception(s)
    assert not s.session_state.get("room_code"), "the seat was left"
    s.switch_page(page_file("trained-heads"))
    s.query_params = {"layer": "4", "head": "2"}
    s.run()
    assert_hidden(s, "Trained heads", "the page looked at between leaving and joining again")


def test_a_projector_link_without_the_code_hides_the_trained_heads_screen(make_app, device):
    key = opened()
    room_session.registry().ask(key, decks.question_of(IT))
    at = present_as_projector("", GRID.number)
    assert_hidden(at, GRID.title, f"screen {GRID.number} without the room's code")


@pytest.mark.parametrize("who", ["the lab's own computer", "a device named as a teacher's"])
def test_a_teachers_device_is_not_hidden_from(make_app, device, monkeypatch, who):
    if who == "the lab's own computer":
        device(None)
    else:
        monkeypatch.setattr(room_session, "teacher_devices", lambda: (ipaddress.ip_network("10.0.0.0/24"),))
    key = opened()
    room_session.registry().ask(key, decks.question_of(IT))
    s = trained_heads(make_app)
    assert_shown(s, who)
    assert chart_data(s)


@pytest.mark.slow
def test_over_the_network_a_second_device_with_no_seat_reads_the_note_and_the_labs_computer_the_heads(lab):
    """The address is the connection's (127.0.0.9 plays a phone; 127.0.0.1 is the lab's own computer)."""
    server = lab(renders=0)
    query = "layer=4&head=2"
    before, _ = present_run(server.port, query, "127.0.0.9", "trained-heads")
    assert LAB_WIDE not in before and CHART in before, before[:600]
    server.say(f"ask {IT.number}")
    phone, _ = present_run(server.port, query, "127.0.0.9", "trained-heads")
    assert LAB_WIDE in phone and CHART not in phone, phone[:600]
    grid, _ = present_run(server.port, f"deck=default&screen={GRID.number}", "127.0.0.9")
    assert LAB_WIDE in grid and CHART not in grid, grid[:600]
    teacher, _ = present_run(server.port, query, "127.0.0.1", "trained-heads")
    assert LAB_WIDE not in teacher and CHART in teacher, teacher[:600]
    server.say("reveal")
    after, _ = present_run(server.port, query, "127.0.0.9", "trained-heads")
    assert LAB_WIDE not in after and CHART in after, after[:600]


# -- the deck's later screens (a hostile pass: screen 23 answers question 22, read from a link before it is asked) --
def presenting(number: int):
    """A room whose teacher presents the default deck at screen `number`; its key."""
    key = opened()
    room_session.registry().present(key, Presentation(deck="default", screen=number))
    return key


def test_a_students_link_to_the_deck_goes_no_further_than_the_class(device):
    key = presenting(IT.number)
    at = present({"deck": "default", "screen": str(IT.number + 1), "projector": "1"})
    assert at.session_state[projector.NUMBER] == IT.number, "screen 23, which answers 22, before the class is there"
    assert f"on screen {IT.number} of this deck" in messages(at)
    at.button(key="present__Right").click().run()
    assert at.session_state[projector.NUMBER] == IT.number, "→ goes no further either"
    room_session.registry().present(key, Presentation(deck="default", screen=IT.number + 1))
    at.button(key="present__Right").click().run()
    assert at.session_state[projector.NUMBER] == IT.number + 1, "the class moved on: so does the link"


def test_the_labs_own_computer_steps_the_deck_anywhere(device):
    device(None)
    presenting(IT.number)
    at = present({"deck": "default", "screen": str(len(DECK.screens)), "projector": "1"})
    assert at.session_state[projector.NUMBER] == len(DECK.screens)


def test_a_students_projector_link_cannot_ask_for_the_presenters_picture_of_the_next_screen(device):
    key = presenting(IT.number - 1)
    at = present({"deck": "default", "code": key.code, "projector": "1", "preview": "next"})
    assert projector.PREVIEW not in at.session_state
    assert at.session_state[projector.NUMBER] == IT.number - 1, "the class's screen, not the one after it"


def test_the_presenters_picture_of_the_next_screen_shows_it_while_the_question_is_open(device):
    """A fresh-eyes lecturer: on every question screen the "Next" picture read "Your room's question is open" for
    the page after it. The projector shows that page only once → has revealed the question: so does the picture."""
    device(None)
    question = next(s for s in DECK.screens if s.kind == "question" and s.question == "focus")
    after = DECK.screens[question.number]
    assert after.kind == "page" and "focus" in hiding.DECIDES[after.page], "a page the open question would hide"
    key = presenting(question.number)
    room_session.registry().ask(key, decks.question_of(question))
    at = present({"deck": "default", "code": key.code, "projector": "1", "preview": "next"})
    assert at.session_state[projector.NUMBER] == after.number
    assert_shown(at, "the next screen's picture while its question is open")
    assert chart_data(at), "its charts"
    now = present({"deck": "default", "code": key.code, "projector": "1"})  # the projector itself
    room_session.registry().present(key, Presentation(deck="default", screen=after.number))
    now.run()
    assert_hidden(now, catalogue.BY_URL[after.page].title, "the projector, were it stepped there unrevealed")


def test_the_presenters_own_browser_on_another_device_gets_its_picture_of_the_next_screen(device, monkeypatch):
    """A teacher who took the room back with its PIN on a laptop the lab does not name: that browser's cookie holds
    the room's key, so its picture of the next screen stands one ahead; the same link without it does not."""
    key = presenting(IT.number - 1)
    monkeypatch.setattr(room_session, "teacher_cookie", lambda: f"{key.code}_{key.secret}")
    at = present({"deck": "default", "code": key.code, "projector": "1", "preview": "next"})
    assert at.session_state[projector.PREVIEW] == "next" and at.session_state[projector.NUMBER] == IT.number
    monkeypatch.setattr(room_session, "teacher_cookie", lambda: f"{key.code}_not-the-secret")
    at = present({"deck": "default", "code": key.code, "projector": "1", "preview": "next"})
    assert projector.PREVIEW not in at.session_state and at.session_state[projector.NUMBER] == IT.number - 1
