"""From "render" pressed to a playable video: scene 1 of the default lesson, cold and cached.

Measured at the render service the dashboard uses (queue, worker process, manim, cache,
index), in a fresh cache folder: cold is submit -> video on disk and readable by PyAV;
cached is the same request from a new service (as after a restart of the app).
Goal: under 15 s cold, under 1 s cached.

    .venv/bin/python benchmarks/studio_bench.py
"""

import tempfile
import time

import av

from animations.catalog import LECTURE
from animations.service import RenderService
from core import PRESETS

GOAL_COLD_S, GOAL_CACHED_S = 15.0, 1.0


def playable(movie) -> bool:
    with av.open(str(movie)) as container:
        return next(container.decode(video=0), None) is not None


def press_render(media: str, scene: str) -> float:
    start = time.perf_counter()
    job = RenderService(media_dir=media).submit(scene, PRESETS["default"], "low")
    job.wait()
    if job.state != "done" or not playable(job.path):
        raise SystemExit(f"render failed: {job.error}\n{job.log}")
    return time.perf_counter() - start


def main() -> int:
    scene = LECTURE[0]
    with tempfile.TemporaryDirectory(prefix="studio-bench-") as media:
        cold = press_render(media, scene)
        cached = min(press_render(media, scene) for _ in range(5))
    print(f"{'scene':<10} {'cold s':>8} {'cached s':>9}")
    print(f"{scene:<10} {cold:8.2f} {cached:9.4f}")
    print(f"goal: cold < {GOAL_COLD_S:g} s ({'met' if cold < GOAL_COLD_S else 'NOT met'}), "
          f"cached < {GOAL_CACHED_S:g} s ({'met' if cached < GOAL_CACHED_S else 'NOT met'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
