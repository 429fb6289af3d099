"""The service around real manim processes: a killed render fails alone, the next one works."""

import os
import signal
import time
from pathlib import Path

import pytest

from animations.service import RenderService
from core import AttentionConfig

pytestmark = pytest.mark.render


def _worker_pids(media_dir: Path) -> list[int]:
    """Render workers whose job file lies under media_dir."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"animations._worker" in argv and any(str(media_dir).encode() in a for a in argv):
            pids.append(int(proc.name))
    return pids


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find the render process")
def test_killed_render_fails_alone_and_the_next_succeeds(tmp_path):
    service = RenderService(media_dir=tmp_path, workers=1, timeout=300)
    lesson = AttentionConfig(source="random", seq_len=3, d_model=4, num_heads=1)
    job = service.submit("scaling", lesson, voice=None)  # silent: this test is about processes, not sound
    deadline = time.monotonic() + 60
    while not (pids := _worker_pids(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert pids, "the render process never started"
    while job.done == 0 and time.monotonic() < deadline:  # midway: after its first animation
        time.sleep(0.1)
    os.kill(pids[0], signal.SIGKILL)
    assert job.wait(60) and job.state == "failed"
    assert "exit status -9" in job.error
    assert not list((tmp_path / "renders").glob("scaling-*/scaling.mp4"))  # nothing half-written is served
    retry = service.submit("scaling", lesson, voice=None)
    assert retry is not job and retry.wait(240) and retry.state == "done"
    assert retry.path.is_file() and retry.path.stat().st_size > 10_000
    assert service.submit("scaling", lesson, voice=None).path == retry.path
