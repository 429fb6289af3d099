"""Issue 39: while a room's question is open, a student's lesson pages hide what decides it whatever
lesson or display settings they chose; the film's page is tested with its films (test_watch_learn.py)."""

import dataclasses
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from classroom import catalogue, hiding
from classroom.decks import KINDS_OF_SCREEN, default_deck
from classroom.kinds import KINDS, suggest
from classroom.question import Question
from classroom.rooms import format_code
from core import PRESETS
from dashboard.present import deck as decks
from dashboard.present import projector
from dashboard.room import session as room_session
from tests.classroom.slide_files import teachers_deck

from .conftest import APP, _register_pages, chart_data, messages, no_exception, page_file, switch
from .test_room_pages import PIN, fresh_registry, teacher  # noqa: F401 (fresh_registry: an autouse fixture)


@pytest.mark.parametrize("page", ["default-page", "masking"])
def test_follow_off_and_device_cpu_show_no_chart_before_the_reveal(make_app, page):
    t, key = teacher(make_app)
    s = make_app(page=page)
    s.text_input(key="room_join_code_sidebar").input(format_code(key.code))
    s.sidebar.button[[b.label for b in s.sidebar.button].index("Join the room")].click().run()
    s.toggle(key="room_follow_sidebar").set_value(False).run()
    s.selectbox(key="ctl_device").set_value("cpu").run()  # the case: a display setting of one's own
    no_exception(s)
    assert s.session_state["lesson"].device == "cpu" and chart_data(s), "no chart to hide"
    t.button(key="room_ask").click().run()
    s.run()
    no_exception(s)
    assert chart_data(s) == [] and "question is open" in messages(s)
    s.select_slider(key="ctl_temperature").set_value(2.0).run()  # a lesson of one's own: same mask, same rows
    no_exception(s)
    assert chart_data(s) == [] and "question is open" in messages(s)
    t.button(key="room_reveal").click().run()
    s.run()
    no_exception(s)
    assert chart_data(s) and "question is open" not in messages(s)


# -- Issue 47: one table says which pages and screens can decide which kinds of question -------------------------
DOCS = Path(__file__).resolve().parents[2] / "docs" / "classroom.md"
SECTION = "## What each page and screen can show while a question is open"
NOTE = "question is open"
OPENER = "0123456789abcdef0123456789abcdef"  # the teacher's seat, for the registry's limits


def test_every_page_every_kind_of_screen_and_the_presenter_have_a_row_of_known_kinds():
    """A page or a kind of screen missing from classroom/hiding.py would hide nothing: this fails first."""
    assert set(hiding.PAGES) == {url for page in catalogue.PAGES for url in page.urls}
    assert catalogue.EVERY_KIND == set(KINDS), "a new kind of question: say which pages decide it"
    assert set(hiding.SCREENS) == set(KINDS_OF_SCREEN) and set(hiding.VIEWS) == {"presenter", "sidebar-video"}
    assert len(hiding.DECIDES) == len(hiding.PAGES) + len(hiding.SCREENS) + len(hiding.VIEWS), "a name in two"
    assert all(kinds <= set(KINDS) for kinds in hiding.DECIDES.values())
    assert hiding.SCREENS["page"] == frozenset().union(*hiding.PAGES.values())
    assert hiding.door_of("page", "masking") == "masking" and hiding.door_of("film") == "film"
    assert hiding.hides("masking", "not-a-kind") and not hiding.hides("room", "not-a-kind")  # unknown: hidden


def docs_rows() -> dict[str, frozenset]:
    """docs/classroom.md's table: each door named in a row's first cell -> the kinds named in its second."""
    text = DOCS.read_text(encoding="utf-8").split(SECTION, 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and "`" in cells[0]:
            for door in re.findall(r"`([^`]+)`", cells[0]):
                rows[door] = frozenset(re.findall(r"`([^`]+)`", cells[1]))
    return rows


def test_the_docs_table_is_the_table_the_lab_reads():
    assert docs_rows() == hiding.DECIDES


def question(kind: str) -> Question:
    """A question that the room's students see as of `kind` (hiding reads the kind alone)."""
    return dataclasses.replace(suggest(PRESETS["default"], "focus"), kind=kind)


def opened():
    return room_session.registry().open(PIN, PRESETS["default"].to_json(), OPENER, None)


def assert_hidden(at, title: str, what: str):
    no_exception(at)
    assert NOTE in messages(at), what
    assert [t.value for t in at.title] == [title], what
    assert not [e for kind in ("vega_lite_chart", "dataframe", "video", "image", "latex") for e in at.get(kind)], what


def assert_shown(at, what: str):
    no_exception(at)
    assert NOTE not in messages(at), what


# the url paths of one page: AppTest opens a file's first page, so its aliases are checked as its row
ALIASES = {url: page.url for page in catalogue.PAGES for url in page.urls}


def test_a_pages_other_url_paths_decide_what_its_first_decides():
    assert all(hiding.PAGES[url] == hiding.PAGES[first] for url, first in ALIASES.items())


def kinds_to_try(decides: frozenset) -> list:
    """Every kind the row decides (each must hide), then one it does not (it must not), if any."""
    return sorted(decides) + sorted(set(KINDS) - decides)[:1]


@pytest.mark.parametrize("page", sorted(set(ALIASES.values())))
def test_each_page_hides_from_a_student_the_kinds_it_can_decide_and_no_other(make_app, page, films_nowhere):
    key = opened()
    s = make_app(query={"code": key.code}, page="room")
    s.switch_page(page_file(page))
    title = catalogue.BY_URL[page].title
    for kind in kinds_to_try(hiding.PAGES[page]):
        room_session.registry().ask(key, question(kind))
        s.run()
        if kind in hiding.PAGES[page]:
            assert_hidden(s, title, f"{page} while a {kind} question is open")
        else:
            assert_shown(s, f"{page} while a {kind} question is open")


@pytest.fixture
def films_nowhere(monkeypatch):
    """No training run is kept: a film's page or screen says so (and starts no trainer)."""
    from dashboard.app_pages import film as film_parts

    store = type("Store", (), {"cached": lambda self, s: None, "job": lambda self, k: None})()
    monkeypatch.setattr(projector, "films", lambda: store)
    monkeypatch.setattr(film_parts, "service", lambda: store)


def present_as_projector(code: str, number: int, deck: str = "default"):
    at = AppTest.from_file(str(APP), default_timeout=60)
    _register_pages(at)
    at.switch_page("app_pages/present.py")
    at.query_params = {"deck": deck, "screen": str(number), "code": code, "projector": "1"}
    at.run()
    no_exception(at)
    return at


@pytest.mark.parametrize("kind", KINDS_OF_SCREEN)
def test_the_projector_window_hides_each_kind_of_screen_while_a_question_it_can_decide_is_open(kind, films_nowhere,
                                                                                           tmp_path, monkeypatch):
    """The projector's window is a viewer of the room: what it shows, the class reads. A kind the lab's deck
    does not use (a teacher's text or image slide) is shown from a teacher's deck."""
    deck, name = default_deck(decks.names()), "default"
    if kind not in {s.kind for s in deck.screens}:
        monkeypatch.setenv("ATTENTION_LAB_DECKS", str(tmp_path))
        deck, name = decks.load(decks.name_of(teachers_deck(tmp_path))), "week-3"
    screen = next(s for s in deck.screens if s.kind == kind and not s.unready)
    decides = hiding.DECIDES[hiding.door_of(screen.kind, screen.page)]
    key = opened()
    at = present_as_projector(key.code, screen.number, name)
    assert at.session_state[projector.NUMBER] == screen.number
    for question_kind in kinds_to_try(decides):
        room_session.registry().ask(key, question(question_kind))
        at.run()
        if question_kind in decides:
            assert_hidden(at, screen.title, f"screen {screen.number} ({kind}), a {question_kind} question open")
        else:
            assert_shown(at, f"screen {screen.number} ({kind}), a {question_kind} question open")


def test_a_students_presenter_view_shows_no_notes_before_or_while_any_question_is_open(make_app):
    """The presenter view decides every kind (its notes may name an answer): a student never gets it, asked
    or not (test_present_gate.py holds the same for a session in no room)."""
    deck = default_deck(decks.names())
    key = opened()
    s = make_app(query={"deck": "default", "presenter": "1"}, page="present")
    s.text_input(key="room_join_code_sidebar").input(format_code(key.code))
    s.sidebar.button[[b.label for b in s.sidebar.button].index("Join the room")].click().run()
    notes = " ".join(deck.screens[0].notes.split()[:3])  # "Start from the": screen 1's notes, no Markdown in them
    read = lambda: " ".join(m.value for m in s.markdown)  # noqa: E731
    assert s.session_state["room_code"] == key.code and notes not in read()
    for kind in KINDS:
        room_session.registry().ask(key, question(kind))
        s.run()
        no_exception(s)
        assert notes not in read(), f"the presenter's view while a {kind} question is open"


def test_the_sidebars_lesson_video_hides_while_a_question_it_can_decide_is_open(make_app):
    """A student could render the lesson on screen (the question's, once they stop following) and play it
    in the sidebar."""
    key = opened()
    s = make_app(query={"code": key.code}, page="room")
    switch(s, "masking")
    render = lambda: [b for b in s.sidebar.button if b.label == "Render with my settings"]  # noqa: E731
    assert render(), "the check below could find it"
    for kind in kinds_to_try(hiding.VIEWS["sidebar-video"]):
        room_session.registry().ask(key, question(kind))
        s.run()
        no_exception(s)
        assert bool(render()) == (kind not in hiding.VIEWS["sidebar-video"]), kind


def test_a_teacher_is_never_hidden_from(make_app):
    t, key = teacher(make_app)
    room_session.registry().ask(key, question("focus"))
    switch(t, "masking")
    assert_shown(t, "the teacher's Masking page")
    assert chart_data(t)


def test_a_follower_opening_trained_heads_at_a_head_during_the_decks_trained_question_sees_the_note(make_app):
    """Issue 47, item 3: with the deck's "what does “it” look at?" question open, a follower opened
    /trained-heads?layer=4&head=2 and read the answer's weight, with no note."""
    deck = default_deck(decks.names())
    screen = next(s for s in deck.screens if s.kind == "question" and s.question == "trained" and '"it"' in s.title)
    key = opened()
    s = make_app(query={"code": key.code}, page="room")
    room_session.registry().ask(key, decks.question_of(screen))
    s.switch_page(page_file("trained-heads"))
    s.query_params = {"layer": "4", "head": "2"}
    s.run()
    assert_hidden(s, "Trained heads", "Trained heads during a trained question")
    room_session.registry().reveal(key)
    s.run()
    no_exception(s)
    assert NOTE not in messages(s) and chart_data(s), "the reveal brings the page back"
