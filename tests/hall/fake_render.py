"""A render for the hall's tests, in place of manim: the RQ worker uses it where
ATTENTION_LAB_TEST_RENDER=tests.hall.fake_render:render (hall tests only).

It behaves like animations.render.render where the queue can see it: STEPS animations with
progress, STEP_S seconds each, written aside and renamed into place in the same cache folder,
and one line per run (started, finished) in `<media>/fake-renders.log`, so a test can count
how often a job ran. The lesson REAL (3 random tokens, the smallest the real-render tests use)
is rendered by manim for real.
"""

import os
import shutil
import tempfile
import time
from pathlib import Path

from animations import render as real
from animations.render import cache_dir, checked_request
from core import AttentionConfig

REAL = AttentionConfig(source="random", seq_len=3, d_model=4, num_heads=1, seed=271828)
STEPS, STEP_S = 12, 0.5  # 6 s: long enough to kill its worker midway
RUNS = "fake-renders.log"


def runs(media: Path, key: str) -> list[str]:
    """'started' / 'finished' for each run of the render `key`, in order."""
    path = Path(media) / RUNS
    lines = path.read_text().splitlines() if path.is_file() else []
    return [line.split()[0] for line in lines if line.split()[1] == key]


def _note(media: Path, event: str, key: str):
    with open(Path(media) / RUNS, "a") as out:  # one short write per line: whole lines even from two processes
        out.write(f"{event} {key} {os.getpid()}\n")


def render(scene, cfg, quality="low", on_progress=None, timeout=None, media_dir=None, voice=None):
    name, cfg, voice = checked_request(scene, cfg, quality, voice)
    if cfg.key() == REAL.key():
        return real.render(name, cfg, quality, on_progress=on_progress, timeout=timeout, media_dir=media_dir,
                           voice=voice)
    final = cache_dir(name, cfg, quality, media_dir, voice)
    _note(media_dir, "started", final.name)
    final.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=final.parent))
    for done in range(1, STEPS + 1):
        time.sleep(STEP_S)
        if on_progress:
            on_progress(done, STEPS)
    (work / f"{name}.mp4").write_bytes(b"\0\0\0\x18ftypmp42")
    os.replace(work, final)
    shutil.rmtree(work, ignore_errors=True)
    _note(media_dir, "finished", final.name)
    return final / f"{name}.mp4"
