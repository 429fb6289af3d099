"""Issue 48, item 11: a teacher's own deck (text, image, page, question and video screens), in a folder the
teacher names (ATTENTION_LAB_DECKS), is made, prepared, presented and handed out by the README's commands; a
link names it by its name only; a deck edited into an error while it is presented keeps its last good version,
and the presenter is told the file, the screen and the field."""

import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest

from animations.prepare import movie_of
from animations.render import checked_request
from classroom.decks import DEFAULT_DECK
from dashboard.present import deck as decks
from dashboard.present import projector
from tests.classroom.slide_files import BODY, IMAGE, PAGE, QUESTION, TEXT, VIDEO, deck, png, teachers_deck

from .test_present import fresh_registry, present, text  # noqa: F401 (a fixture)
from .test_present_gate import open_room

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    """The teacher's deck folder, named in the environment (this process's and the commands')."""
    mine = tmp_path / "my-decks"
    monkeypatch.setenv("ATTENTION_LAB_DECKS", str(mine))
    monkeypatch.setattr(decks, "_GOOD", {})  # no other test's deck of the same name stands in
    monkeypatch.setattr(decks, "_PROBLEM", {})
    return mine


def command(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env=os.environ.copy())


def make_line(target: str, **values: str) -> str:
    """What `make TARGET VAR=value` runs, as the shell gets it (make -n prints it, runs nothing)."""
    run = subprocess.run(["make", "-n", "-s", target, *(f"{k}={v}" for k, v in values.items())], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    return run.stdout.strip().splitlines()[-1]


def test_make_lecture_handout_and_deck_pass_deck_and_name_through_the_environment_never_as_shell_text():
    hostile = "x; touch /tmp/lab-pwned"
    for target in ("lecture", "handout", "deck"):
        line = make_line(target, DECK=hostile, NAME=hostile)
        assert "pwned" not in line and ("$DECK" in line or '"$NAME"' in line), line


@pytest.mark.slow
def test_a_teachers_deck_is_made_prepared_presented_and_handed_out_by_the_readme_commands(folder, tmp_path):
    # make deck NAME=week-3: the default deck copied into the teacher's folder, to start from
    made = command("-m", "classroom.deck_folder", "week-3")
    assert made.returncode == 0 and (folder / "week-3.toml").read_bytes() == DEFAULT_DECK.read_bytes(), made.stderr
    teachers_deck(folder)  # the teacher's edits: one screen of each kind, a picture beside the deck
    # make lecture DECK=week-3 (--check: its last step, what it says of each screen; the video as made before)
    media = tmp_path / "media"
    video = decks.load("week-3").screens[4]
    name, cfg, _ = checked_request(video.scene, video.lesson, "low")
    movie = movie_of(name, cfg, "low", media, None)
    movie.parent.mkdir(parents=True)
    movie.write_bytes(b"a rendered video")
    prepared = command("-m", "animations.prepare", "--deck", "week-3", "--check", "--quality", "low", "--voice", "none",
                       "--media", str(media))
    assert prepared.returncode == 0, prepared.stdout + prepared.stderr
    for kind, title in (("text", "What we saw"), ("image", "The block"), ("page", "Masking"),
                        ("question", "Predict the focus"), ("video", "The scores video")):
        assert f"{kind:<8} {title}: ready" in prepared.stdout, prepared.stdout
    # the projector, by a link that names the deck by its name: the text slide's text, then the picture
    at = present({"deck": "week-3", "screen": "1", "projector": "1"})
    assert ("# Why attention\n\n- every token **looks** at the others\n- the weights sum to $1$\n\nSee `softmax`\\."
            in [m.value for m in at.markdown]), [m.value for m in at.markdown]
    assert "Recap slowly" not in text(at)  # the notes are the presenter's
    at.button(key="present__Right").click().run()
    assert at.session_state[projector.NUMBER] == 2
    (image,) = at.get("image")
    assert image.proto.imgs[0].alt == "A red dot on white" and image.proto.imgs[0].url
    # the presenter view of the room's teacher: the notes, and the next screen said in words
    teacher = open_room(present({"deck": "week-3", "presenter": "1", "screen": "1"}))
    shown = text(teacher)
    assert "Recap slowly, then ask who has seen a softmax." in shown
    assert "the picture dot.png: A red dot on white" in shown
    # make handout DECK=week-3
    out = tmp_path / "handout.html"
    handed = command("-m", "animations.handout", "week-3", "--out", str(out))
    assert handed.returncode == 0, handed.stderr
    page = out.read_text(encoding="utf-8")
    assert "<h3>Why attention</h3>" in page and "<strong>looks</strong>" in page
    assert f'src="data:image/png;base64,{base64.b64encode(png()).decode()}" alt="A red dot on white"' in page


def test_a_link_names_a_teachers_deck_by_its_name_only(folder):
    teachers_deck(folder)
    (folder / "Week 4.toml").write_text(deck(TEXT), encoding="utf-8")  # no deck's name: not offered
    (folder / "default.toml").write_text(deck(TEXT, title="Not the lab's"), encoding="utf-8")
    assert set(decks.listing()) == set(decks.DECKS) | {"week-3"}
    assert decks.load("default").title != "Not the lab's"
    for name in (str(folder / "week-3.toml"), "../my-decks/week-3", "Week 4"):
        at = present({"deck": name, "screen": "1", "projector": "1"})
        assert "This is the default deck." in text(at) and "Why attention" not in text(at), name


def test_a_deck_edited_into_an_error_while_presented_keeps_its_last_good_deck_and_the_presenter_is_told(folder):
    path = teachers_deck(folder)
    teacher = open_room(present({"deck": "week-3", "presenter": "1", "screen": "1"}))
    assert "Recap slowly" in text(teacher)
    path.write_text(deck(TEXT, IMAGE.replace('"dot.png"', '"../dot.png"'), PAGE, QUESTION, VIDEO), encoding="utf-8")
    teacher.button(key="present_presenter_Right").click().run()
    shown = text(teacher)
    assert "The deck file week-3.toml cannot be used as it is now: Screen 2 ('The block'), field image:" in shown
    assert "Point at the dot." in shown, "screen 2 of the last good deck, its notes"
    at = present({"deck": "week-3", "screen": "2", "projector": "1"})  # a projector opened now: the same deck
    assert at.get("image") and "This is the default deck." not in text(at)
    path.write_text(deck(TEXT.replace(BODY, "Fixed."), IMAGE, PAGE, QUESTION, VIDEO), encoding="utf-8")
    teacher.button(key="present_presenter_Left").click().run()
    assert "cannot be used" not in text(teacher) and decks.load("week-3").screens[0].body == "Fixed."


def test_the_present_page_offers_the_teachers_decks_beside_the_labs(folder):
    teachers_deck(folder)
    at = present({})
    choose = at.selectbox(key="present_choose")
    assert choose.options == [*decks.DECKS, "week-3"] and choose.value == "default"
    choose.set_value("week-3").run()
    assert "Week 3" in text(at) and "What we saw" in text(at) and at.session_state["present_deck"] == "week-3"
