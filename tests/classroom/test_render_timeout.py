"""A render that hangs past its timeout: its requester is told it took too long, another
session's render in the same service still finishes, nothing half-made is served, and the next
request for the same lesson works.

The hang is real: `animations.render.render` starts its manim process under the service's own
(tiny) timeout, which kills it. The other renders are instant fakes, so that the test runs in
seconds and the only thing under test is what the service does around a timeout.
"""

import importlib.util
import threading
from pathlib import Path

import pytest

from animations.render import cache_dir, render
from animations.service import RenderService
from core import AttentionConfig

pytestmark = [pytest.mark.render,
              pytest.mark.skipif(importlib.util.find_spec("manim") is None, reason="manim is not installed")]

TIMEOUT = 1.0  # seconds: manim cannot even import in that time, let alone render
HANGING = AttentionConfig(source="random", seq_len=3, d_model=4, num_heads=1, seed=11)
OTHER = AttentionConfig(source="random", seq_len=3, d_model=4, num_heads=1, seed=12)


def instant_render(scene, cfg, quality, on_progress=None, timeout=None, media_dir=None, voice=None):
    folder = cache_dir(scene, cfg, quality, media_dir, voice)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{scene}.mp4").write_bytes(b"\0\0\0\x18ftypmp42")
    if on_progress:
        on_progress(1, 1)
    return folder / f"{scene}.mp4"


def make_render_fn():
    """The hanging lesson's first attempt is a real manim render; everything else is instant."""
    calls, lock = [], threading.Lock()

    def render_fn(scene, cfg, quality, on_progress=None, timeout=None, media_dir=None, voice=None):
        with lock:
            first = cfg.key() == HANGING.key() and not any(c == HANGING.key() for c in calls)
            calls.append(cfg.key())
        if first:
            return render(scene, cfg, quality, on_progress=on_progress, timeout=timeout, media_dir=media_dir,
                          voice=voice)
        return instant_render(scene, cfg, quality, on_progress, timeout, media_dir, voice)

    return render_fn, calls


def test_a_hanging_render_times_out_alone_and_the_next_works(tmp_path: Path):
    render_fn, calls = make_render_fn()
    service = RenderService(media_dir=tmp_path, workers=1, timeout=TIMEOUT, render_fn=render_fn)
    try:
        hanging = service.submit("scores", HANGING, session="alice")
        other = service.submit("scores", OTHER, session="bob")  # queued behind the hang (one worker)
        assert hanging.wait(60) and other.wait(60), "a job never finished"

        assert hanging.state == "failed"
        assert "took longer than 1 s" in hanging.error and "stopped" in hanging.error, hanging.error
        assert hanging.path is None
        assert other.state == "done" and other.path.is_file(), other.error
        # Nothing half-made is left or served: no video, no temporary folder, no cache hit.
        renders = tmp_path / "renders"
        assert not [d for d in renders.iterdir() if d.name.startswith(f"scores-{HANGING.key()}")]
        assert not [d for d in renders.iterdir() if d.name.startswith(".")], "a temporary folder was left"
        assert service.cached("scores", HANGING) is None
        assert service.queue_length() == 0

        again = service.submit("scores", HANGING, session="alice")
        assert again is not hanging, "a failed job is not handed out again"
        assert again.wait(30) and again.state == "done" and again.path.is_file()
        assert calls == [HANGING.key(), OTHER.key(), HANGING.key()]
        assert service.submit("scores", HANGING, session="carol").path == again.path
    finally:
        service.shutdown(wait=True)
