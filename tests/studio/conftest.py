"""The dashboard with its render service pointed at a temporary cache (and, if asked, a fake manim)."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from animations import service as render_service
from animations.render import RenderError, cache_dir
from dashboard.video import studio

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"

SRT = "1\n00:00:00,000 --> 00:00:02,000\nFirst, project.\n\n2\n00:00:02,000 --> 00:00:03,500\nThen, the scores.\n"


def fake_render(fail: bool = False):
    """A render_fn that writes a finished render folder (video, subtitles, two sections) at once."""

    def render(scene, cfg, quality, on_progress=None, timeout=None, media_dir=None, voice=None):
        if fail:
            raise RenderError(f"Rendering {scene} failed (exit status 1).", "Traceback\nValueError: no frames")
        folder = cache_dir(scene, cfg, quality, media_dir, voice)
        (folder / "sections").mkdir(parents=True, exist_ok=True)
        (folder / f"{scene}.mp4").write_bytes(b"\0\0\0\x18ftypmp42")
        (folder / f"{scene}.srt").write_text(SRT, encoding="utf-8")
        index = [{"name": "project", "video": f"{scene}_0000_project.mp4", "duration": "2.0"},
                 {"name": "scores", "video": f"{scene}_0001_scores.mp4", "duration": "1.5"}]
        for section in index:
            (folder / "sections" / section["video"]).write_bytes(b"\0\0\0\x18ftypmp42")
        (folder / "sections" / f"{scene}.json").write_text(json.dumps(index), encoding="utf-8")
        if on_progress:
            on_progress(2, 2)
        return folder / f"{scene}.mp4"

    return render


@pytest.fixture
def studio_app(tmp_path, monkeypatch):
    """`studio_app(render_fn=None, query=None)`: the app after its first run, with a fresh service."""
    monkeypatch.setenv("ATTENTION_LAB_MEDIA", str(tmp_path))
    made = []

    def make(render_fn=None, query=None) -> AppTest:
        if render_fn is not None:
            real = render_service.RenderService
            monkeypatch.setattr(render_service, "RenderService", lambda **kw: real(render_fn=render_fn, **kw))
        studio.service.clear()
        at = AppTest.from_file(str(APP), default_timeout=60)
        if query:
            at.query_params = dict(query)
        made.append(at)
        return at.run()

    yield make
    if studio.service.held() is not None:  # leave no worker threads behind
        studio.service.held().shutdown(wait=True)
    studio.service.clear()


def bands(at: AppTest) -> list[dict]:
    """What each caption band on the page was given: its cues and its heading's id."""
    return [json.loads(e.proto.json) for e in at.get("bidi_component") if e.proto.component_name == "lab_caption_band"]


def run_until(at: AppTest, done, seconds: float = 120.0) -> AppTest:
    """Rerun the app (as the page's polling would) until `done(at)` or the time is up."""
    import time

    deadline = time.monotonic() + seconds
    while not done(at):
        assert time.monotonic() < deadline, "the page never reached the expected state"
        time.sleep(0.3)
        at.run()
    return at


BLOCKED = ("A query that may see no key at all, here the query of ‘The’: softmax of a row of −∞ would be 0/0. "
           "The lab gives it weights 0 and output 0. PyTorch's F.scaled_dot_product_attention returns no weights; "
           "its output for this row is 0 (since PyTorch 2.5; NaN before). nn.MultiheadAttention gives NaN when it "
           "returns its weights, its default; without them, 0 before its output projection. This row adds up to 0, "
           "not 1.")  # one of the lecture's longest captions (the saturation step's is a few characters longer)
CUES = [(0.0, 2.0, "The scaled scores of every query (row) with every key (column), before any mask."),
        (2.0, 4.0, BLOCKED)]


def _srt(cues) -> str:
    stamp = lambda s: f"00:00:{int(s):02d},{round(s % 1 * 1000):03d}"  # noqa: E731
    return "\n".join(f"{n}\n{stamp(a)} --> {stamp(b)}\n{text}\n" for n, (a, b, text) in enumerate(cues, 1))


def lecture_media(media: Path, quality: str = "low") -> Path:
    """Every scene with its class lesson as a finished render in `media` (what `make lecture`
    leaves): a real 4-second 16:9 mp4 (ffmpeg's test picture), two captions, two section clips."""
    from animations.catalog import QUALITIES, SCENES, lecture_lesson
    from animations.render import checked_request
    from animations.voice import NARRATOR
    from core import ConfigError

    q = QUALITIES[quality]
    source = media / "source.mp4"
    media.mkdir(parents=True, exist_ok=True)
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    f"testsrc=size={q.width}x{q.height}:rate={q.fps}:duration=4", "-pix_fmt", "yuv420p",
                    str(source)], check=True, timeout=120)
    for scene in SCENES:  # each with the lesson the Lecture page shows (the trained one: if the model is there)
        try:
            name, cfg, voice = checked_request(scene, lecture_lesson(scene), quality, NARRATOR)
        except ConfigError:
            continue
        folder = cache_dir(name, cfg, quality, media, voice)
        (folder / "sections").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, folder / f"{name}.mp4")
        (folder / f"{name}.srt").write_text(_srt(CUES), encoding="utf-8")
        index = [{"name": "scores", "video": f"{name}_0000_scores.mp4", "duration": "2.0"},
                 {"name": "blocked-row", "video": f"{name}_0001_blocked-row.mp4", "duration": "2.0"}]
        for section in index:
            shutil.copyfile(source, folder / "sections" / section["video"])
        (folder / "sections" / f"{name}.json").write_text(json.dumps(index), encoding="utf-8")
    return media
