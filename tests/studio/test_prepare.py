"""Preparing a class (`make lecture`, animations/prepare.py): what it makes, and a line per screen saying
ready or why not. Renders are faked (a finished render folder at once); films are really trained, tiny."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from animations import prepare
from animations.catalog import SCENES, lecture_lesson
from animations.voice import NARRATOR
from classroom.decks import parse_deck
from classroom.films.store import FilmStore
from core.film import LearnSettings
from tests.core.conftest import needs_model

from .conftest import fake_render

ROOT = Path(__file__).resolve().parents[2]
TINY_FILM = {"steps": 20, "d_model": 16, "heads": 2}  # trains in about a second

DECK = """title = "A small class"

[[screen]]
kind = "page"
title = "Masking"
minutes = 2
page = "masking"

[[screen]]
kind = "scene"
title = "Rendered, with its step"
minutes = 1
scene = "masking"
step = "scores"

[[screen]]
kind = "scene"
title = "Not rendered"
minutes = 1
scene = "scores"
step = "scores"
lesson = { temperature = 0.5 }

[[screen]]
kind = "scene"
title = "A step the video lacks"
minutes = 1
scene = "masking"
step = "softmax"

[[screen]]
kind = "film"
title = "A run"
minutes = 1
film = { steps = 20, d_model = 16, heads = 2 }

[[screen]]
kind = "question"
title = "A second layer"
minutes = 2
question = "layers"
film = { steps = 20, d_model = 16, heads = 2 }

[[screen]]
kind = "question"
question = "focus"  # a lesson's question: made live, always ready
seed = 0
title = "Where does it look?"
minutes = 2
"""


@pytest.fixture
def deck(deck_names):
    return parse_deck(DECK, "small.toml", deck_names)


def _render_masking_only(tmp_path):
    """The masking video of the default lesson rendered (steps "project" and "scores"), nothing else."""
    fake_render()("masking", lecture_lesson("masking"), "low", media_dir=tmp_path, voice=NARRATOR)


def test_each_screen_says_ready_or_why_not(deck, tmp_path):
    _render_masking_only(tmp_path)
    why = prepare.readiness(deck, "low", NARRATOR, tmp_path, FilmStore(tmp_path), model=lambda: "")
    lines = [prepare.line(s, w) for s, w in zip(deck.screens, why, strict=True)]
    assert lines[0].endswith("Masking: ready") and lines[1].endswith("Rendered, with its step: ready")
    assert lines[2].endswith("Not rendered: NOT READY: the scores video is not rendered at low quality yet")
    assert lines[3].endswith("NOT READY: the masking video has no step 'softmax' (its steps: project, scores)")
    assert lines[4].endswith("A run: NOT READY: its training run is not trained yet")
    assert "NOT READY: The 1-layer training run this question is about is not trained yet" in lines[5]
    assert lines[6].endswith("Where does it look?: ready")
    assert [int(line.split()[0]) for line in lines] == list(range(1, 8))


def test_a_rendered_video_of_another_quality_is_not_ready(deck, tmp_path):
    _render_masking_only(tmp_path)
    why = prepare.readiness(deck, "class", NARRATOR, tmp_path, FilmStore(tmp_path), model=lambda: "")
    assert why[1] == "the masking video is not rendered at class quality yet"


@needs_model
def test_prepare_trains_the_runs_renders_every_video_and_then_every_screen_is_ready(deck_names, tmp_path):
    text = DECK.replace('step = "softmax"', 'step = "project"')
    deck = parse_deck(text, "small.toml", deck_names)
    rendered, trained = [], []

    def render_one(scene, cfg, quality, **kwargs):
        rendered.append((scene, cfg.key()))
        return fake_render()(scene, cfg, quality, media_dir=kwargs["media_dir"], voice=kwargs["voice"])

    def train(settings):
        from core.learn import train as real

        trained.append(settings)
        return real(settings)

    why = prepare.prepare(deck, "low", NARRATOR, tmp_path, tmp_path / "out", say=lambda _: None, train=train,
                          render_one=render_one)
    assert why == [""] * len(deck.screens)
    one, two = LearnSettings(**TINY_FILM, layers=1), LearnSettings(**TINY_FILM)
    assert trained == [two, one]  # each run once, though two screens need the two-layer one
    assert {scene for scene, _ in rendered} == set(SCENES)  # every scene, trained and induction included
    assert ("scores", deck.screens[2].lesson.key()) in rendered  # and a screen's own lesson
    assert (tmp_path / "out" / "induction.mp4").is_file()
    trained.clear()
    again = prepare.prepare(deck, "low", NARRATOR, tmp_path, None, say=lambda _: None, train=train,
                            render_one=render_one)
    assert again == why and trained == []  # the second run trains nothing


@needs_model
def test_the_default_deck_needs_every_scene_and_three_runs(deck_names):
    deck = prepare.load_deck(prepare.DEFAULT_DECK, deck_names)
    assert [scene for scene, _ in prepare.videos(deck)] == list(SCENES)
    assert sorted(s.layers for s in prepare.films(deck)) == [1, 2]  # the class's run, and its one-layer twin


def test_the_command_prints_a_line_per_screen_and_fails_while_one_is_not_ready(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(prepare.MEDIA_ENV, str(tmp_path))  # the command sets it for its render workers
    deck_file = tmp_path / "small.toml"
    deck_file.write_text(DECK, encoding="utf-8")
    code = prepare.main(["--deck", str(deck_file), "--quality", "low", "--media", str(tmp_path), "--check"])
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    assert out[-1].startswith("2 of 7 screens ready")  # the page and the lesson's question
    assert sum("NOT READY" in line for line in out) == 5


def test_a_bad_deck_file_gets_its_message_and_no_traceback(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(prepare.MEDIA_ENV, str(tmp_path))
    deck_file = tmp_path / "bad.toml"
    deck_file.write_text('title = "x"\n[[screen]]\nkind = "page"\ntitle = "P"\nminutes = "five"\npage = "masking"\n')
    with pytest.raises(SystemExit) as exit_:
        prepare.main(["--deck", str(deck_file), "--check", "--media", str(tmp_path)])
    assert exit_.value.code == 2
    assert "Screen 1 ('P'), field minutes" in capsys.readouterr().err


@pytest.mark.parametrize("target, module", [("lecture", "animations.prepare"), ("handout", "animations.handout")])
def test_make_gives_the_deck_path_as_one_argument_and_never_runs_it_as_shell_text(target, module, tmp_path):
    """`make lecture DECK=...` and `make handout DECK=...`: a path with a space and shell text in it reaches the
    tool as one argument, and the shell runs nothing of it. PY stands in for the tool and prints its arguments."""
    deck = f"my deck.toml; touch {tmp_path}/ran"
    show = f"{sys.executable} -c 'import json, sys; print(json.dumps(sys.argv[1:]))'"
    run = subprocess.run(["make", "-s", target, "STAMP=", f"PY={show}", f"DECK={deck}"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    args = json.loads(run.stdout.splitlines()[-1])
    assert args[:2] == ["-m", module] and deck in args
    assert not (tmp_path / "ran").exists()
