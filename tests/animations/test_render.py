"""The render API and CLI: one real low-quality render (narrated: its sound is checked in
test_render_sound.py), then cache hits, failures and bad configs."""

import json
import subprocess
import sys
from pathlib import Path

import av
import pytest

import animations.render as render_module
from animations.__main__ import main as cli
from animations.catalog import LECTURE, SCENES, lecture_lesson
from animations.render import RenderError, outputs, render
from animations.voice import NARRATOR, Voice
from core import PRESETS, ConfigError

from .conftest import SHORTEST

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "animations"


def _no_process(*args, **kwargs):
    raise AssertionError("a process was started")


@pytest.mark.render
def test_real_render_writes_the_video(rendered, dry_scene):
    silent = dry_scene(SHORTEST, "default")  # the same scene and lesson, silent and not rendered
    sections = outputs(rendered["movie"])["sections"]
    with av.open(str(rendered["movie"])) as container:
        stream = container.streams.video[0]
        frames = [frame for frame in container.decode(stream)]
        seconds = float(stream.duration * stream.time_base)
        assert (stream.codec_context.width, stream.codec_context.height) == (854, 480)
        assert float(stream.average_rate) == pytest.approx(15, abs=0.01)
    assert len(frames) == pytest.approx(seconds * 15, abs=2)
    assert seconds == pytest.approx(sum(float(s["duration"]) for s in sections), abs=0.2)
    assert seconds >= silent.time - 0.2  # the voice may slow the scene down, never speed it up
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    frames[len(frames) // 3].to_image().save(ARTIFACTS / f"render-{SHORTEST}-third.png")
    frames[-1].to_image().save(ARTIFACTS / f"render-{SHORTEST}-last.png")


@pytest.mark.render
def test_render_keeps_sections_and_subtitles(rendered, dry_scene):
    scene = dry_scene(SHORTEST, "default")
    files = outputs(rendered["movie"])
    assert [s["name"] for s in files["sections"]] == scene.section_names
    assert all((files["sections_index"].parent / s["video"]).is_file() for s in files["sections"])
    srt = files["subtitles"].read_text(encoding="utf-8")
    assert all(caption in srt for caption in scene.captions)


@pytest.mark.render
def test_render_reports_progress(rendered, dry_scene):
    progress = rendered["progress"]
    total = dry_scene(SHORTEST, "default").animations_done
    assert progress[-1] == (total, total)
    assert all(t == total for _, t in progress)
    done = [d for d, _ in progress]
    assert done == sorted(done) and len(set(done)) == total + 1  # 0, 1, ..., total


@pytest.mark.render
def test_cache_hit_returns_at_once_without_manim(rendered, monkeypatch):
    monkeypatch.setattr(render_module.subprocess, "Popen", _no_process)
    again = render(SHORTEST, PRESETS["default"], "low", media_dir=rendered["media"])
    assert again == rendered["movie"]
    other = render_module.cache_dir(SHORTEST, PRESETS["default"].replace(seed=1), "low", rendered["media"])
    assert not other.exists()  # another lesson has another cache entry


@pytest.mark.render
def test_cli_exports_a_cached_render(rendered, monkeypatch, tmp_path):
    monkeypatch.setattr(render_module.subprocess, "Popen", _no_process)
    out = tmp_path / "out"
    assert cli(["render", "--scene", SHORTEST, "--preset", "default", "--quality", "low", "--out", str(out),
                "--media", str(rendered["media"])]) == 0
    assert (out / f"{SHORTEST}.mp4").read_bytes() == rendered["movie"].read_bytes()
    assert (out / f"{SHORTEST}.srt").is_file() and (out / f"{SHORTEST}.vtt").is_file()
    assert json.loads((out / f"{SHORTEST}_sections" / f"{SHORTEST}.json").read_text())


def test_failing_render_raises_with_the_log(monkeypatch, tmp_path):
    monkeypatch.setitem(SCENES, "scores", ("animations.catalog", "NoSuchScene"))
    with pytest.raises(RenderError) as err:
        render("scores", PRESETS["default"], "low", media_dir=tmp_path)
    assert "NoSuchScene" in err.value.log and "NoSuchScene" in str(err.value)
    assert list((tmp_path / "renders").iterdir()) == []  # no partial render is left behind


def test_timeout_kills_the_render(tmp_path):
    with pytest.raises(RenderError, match="longer than"):
        render("scores", PRESETS["default"], "low", timeout=0.5, media_dir=tmp_path)
    assert list((tmp_path / "renders").iterdir()) == []


@pytest.mark.parametrize("cfg", [{"d_model": "10", "num_heads": "4"}, '{"mask": "diagonal"}', "not json"])
def test_bad_config_fails_before_any_process(cfg, monkeypatch, tmp_path):
    monkeypatch.setattr(render_module.subprocess, "Popen", _no_process)
    with pytest.raises(ConfigError):
        render("scores", cfg, "low", media_dir=tmp_path)
    assert not (tmp_path / "renders").exists()


def test_cli_bad_config_says_why(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(render_module.subprocess, "Popen", _no_process)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"d_model": "10", "num_heads": "4"}))
    with pytest.raises(SystemExit) as exit_:
        cli(["render", "--scene", "scores", "--config", str(bad), "--out", str(tmp_path)])
    assert exit_.value.code == 2
    assert "not divisible by 4 heads" in capsys.readouterr().err


def test_unknown_scene_or_quality(tmp_path):
    with pytest.raises(KeyError):
        render("attention-is-all", PRESETS["default"], media_dir=tmp_path)
    with pytest.raises(KeyError):
        render("scores", PRESETS["default"], "4k", media_dir=tmp_path)


def test_importing_the_package_does_not_import_manim():
    code = ("import sys, animations, animations.render, animations.catalog, animations.style; "
            "sys.exit('manim' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_lecture_exports_every_scene_with_a_progress_bar(monkeypatch, tmp_path, capsys):
    import animations.__main__ as main_module

    voices = []

    def fake_render(name, cfg, quality, on_progress=None, timeout=None, media_dir=None, voice=None):
        assert cfg == lecture_lesson(name) and quality == "low"  # the trained scene reads the example sentence
        voices.append(voice)
        folder = tmp_path / "cache" / name
        (folder / "sections").mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.mp4").write_bytes(name.encode())
        (folder / f"{name}.srt").write_text("1\n00:00:00,000 --> 00:00:01,000\nhi\n")
        (folder / "sections" / f"{name}.json").write_text("[]")
        on_progress(2, 2)
        return folder / f"{name}.mp4"

    monkeypatch.setattr(main_module, "render", fake_render)
    out = tmp_path / "lecture"
    assert cli(["lecture", "--quality", "low", "--out", str(out)]) == 0
    for name in SCENES:  # every scene, the trained one and the induction film included
        assert (out / f"{name}.mp4").read_bytes() == name.encode()
        assert (out / f"{name}.srt").is_file() and (out / f"{name}_sections" / f"{name}.json").is_file()
    assert capsys.readouterr().err.count("2/2") == len(SCENES)
    assert voices == [NARRATOR] * len(SCENES)  # narrated unless asked otherwise
    assert cli(["lecture", "--voice", "none", "--out", str(out)]) == 0
    assert voices[len(SCENES):] == [None] * len(SCENES)
    assert cli(["lecture", "--rate", "0.75", "--out", str(out)]) == 0
    assert voices[-1] == Voice(rate=0.75)


def test_cli_bad_speaking_rate_says_why(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli(["lecture", "--rate", "5"])
    assert exit_.value.code == 2 and "out of range" in capsys.readouterr().err


@pytest.mark.parametrize("name", sorted(LECTURE))  # the trained scene's own: test_trained_scene.py
def test_scene_files_load_by_path_with_a_default_lesson(name):
    """What `manim -ql animations/scenes/<file>.py <Scene>` does: import the file alone, no arguments."""
    import importlib.util

    from manim import tempconfig

    module_name, cls = SCENES[name]
    path = Path(render_module.PACKAGE_DIR, *module_name.split(".")[1:]).with_suffix(".py")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with tempconfig({"dry_run": True, "disable_caching": True}):
        scene = getattr(module, cls)()
    assert scene.cfg == PRESETS[scene.preset] and scene.trace.tokens == scene.cfg.tokens


@pytest.mark.render
def test_class_quality_renders_1080p30(monkeypatch, tmp_path):
    """The suite's one real class-quality render: a one-step scene (tests/animations/short_scene.py),
    silent, through the same worker as every lecture video; the four lecture scenes are checked at
    this quality by dry run (camera, sizes, contrast: test_legibility.py)."""
    monkeypatch.setitem(SCENES, "short", ("tests.animations.short_scene", "ShortScene"))
    movie = render("short", PRESETS["default"], "class", media_dir=tmp_path, voice=None)
    with av.open(str(movie)) as container:
        stream = container.streams.video[0]
        frames = list(container.decode(stream))
        seconds = float(stream.duration * stream.time_base)
        assert (stream.codec_context.width, stream.codec_context.height) == (1920, 1080)
        assert float(stream.average_rate) == pytest.approx(30, abs=0.01)
        assert [s.type for s in container.streams] == ["video", "subtitle"]  # silent, its caption inside
    assert len(frames) == pytest.approx(seconds * 30, abs=2) and seconds > 1.5
    assert movie.parent.name.split("-")[2] == "class"  # its own cache entry, beside the fast one
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    frames[-1].to_image().save(ARTIFACTS / "render-class-short-last.png")
