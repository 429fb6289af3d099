"""How fast the lecture renders: each scene at low quality (480p15), from scratch.

Prints, per scene, the seconds to render (the whole subprocess: start-up, counting pass and
manim), the seconds of video, and the real-time factor render ÷ video; then the same for
the whole lecture, and the time of a cache hit. Goal: factor <= 0.5, cache hit < 0.2 s.

    .venv/bin/python benchmarks/render_bench.py [--quality low] [--scene NAME ...]
"""

import argparse
import tempfile
import time
from pathlib import Path

import av

from animations.catalog import LECTURE, QUALITIES
from animations.render import render
from core import PRESETS

GOAL_FACTOR = 0.5
GOAL_HIT_S = 0.2


def video_seconds(movie: Path) -> float:
    with av.open(str(movie)) as container:
        return float(container.duration / av.time_base)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quality", default="low", choices=list(QUALITIES))
    parser.add_argument("--scene", nargs="*", default=list(LECTURE))
    args = parser.parse_args()
    cfg = PRESETS["default"]
    total_render = total_video = 0.0
    print(f"{'scene':<10} {'render s':>9} {'video s':>8} {'factor':>7} {'cache hit s':>12}")
    with tempfile.TemporaryDirectory(prefix="render-bench-") as media:
        for name in args.scene:
            start = time.perf_counter()
            movie = render(name, cfg, args.quality, media_dir=media)
            seconds = time.perf_counter() - start
            start = time.perf_counter()
            render(name, cfg, args.quality, media_dir=media)
            hit = time.perf_counter() - start
            video = video_seconds(movie)
            total_render += seconds
            total_video += video
            print(f"{name:<10} {seconds:9.2f} {video:8.2f} {seconds / video:7.2f} {hit:12.5f}")
    factor = total_render / total_video
    print(f"{'lecture':<10} {total_render:9.2f} {total_video:8.2f} {factor:7.2f}")
    print(f"goal: factor <= {GOAL_FACTOR} ({'met' if factor <= GOAL_FACTOR else 'NOT met'}), "
          f"cache hit < {GOAL_HIT_S} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
