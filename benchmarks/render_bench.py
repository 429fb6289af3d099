"""How fast the lecture renders, narrated and silent side by side: each scene at low quality
(480p15), from scratch, the narrated render with an empty speech cache (Piper speaks every
sentence), the two renders of a scene one after the other so that both meet the same load.

Prints, per scene and for the whole lecture, the seconds to render (the whole subprocess:
start-up, counting pass, Piper, manim, muxing), the seconds of video, and the factor render ÷
video. A narrated video is longer (the voice sets the pace), so compare factors, not times.
"cached": narrated again with the speech already cached (a lesson rendered before; Piper idle).
Goals: narrated lecture factor <= 0.5; narration adds at most 15 % to the factor; cache hit < 0.2 s.

`--class-vs-low`: instead, each scene narrated at class quality (1080p30, what `make lecture`
renders) and at 480p15 one after the other (which goes first alternates), the speech cached for
both (a first 480p render speaks it): render ÷ video for each, and class ÷ low, the price of
a projector's picture measured against the fast render in the same run.

    .venv/bin/python benchmarks/render_bench.py [--quality low] [--scene NAME ...]
    .venv/bin/python benchmarks/render_bench.py --class-vs-low [--scene NAME ...]
"""

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import av

from animations.catalog import LECTURE, QUALITIES
from animations.render import render
from animations.voice import NARRATOR, missing
from core import PRESETS

GOAL_FACTOR = 0.5
GOAL_NARRATION_COST = 0.15  # narrated factor / silent factor - 1
GOAL_HIT_S = 0.2


def video_seconds(movie: Path) -> float:
    with av.open(str(movie)) as container:
        return float(container.duration / av.time_base)


def timed(name, quality, media, voice) -> tuple[float, float, float]:
    """(render seconds, video seconds, cache-hit seconds) of one scene."""
    start = time.perf_counter()
    movie = render(name, PRESETS["default"], quality, media_dir=media, voice=voice)
    seconds = time.perf_counter() - start
    start = time.perf_counter()
    render(name, PRESETS["default"], quality, media_dir=media, voice=voice)
    return seconds, video_seconds(movie), time.perf_counter() - start


def class_vs_low(scenes) -> None:
    """Per scene: narrated at 480p and at class quality, speech cached, one after the other."""
    totals = {"low": [0.0, 0.0], "class": [0.0, 0.0]}
    print(f"{'scene':<10} {'quality':>8} {'render s':>9} {'video s':>8} {'factor':>7}")
    with tempfile.TemporaryDirectory(prefix="render-bench-") as media:
        for n, name in enumerate(scenes):
            render(name, PRESETS["default"], "low", media_dir=media, voice=NARRATOR)  # speaks: the speech is cached
            shutil.rmtree(Path(media) / "renders")
            seconds = {}
            for quality in ("low", "class") if n % 2 else ("class", "low"):
                seconds[quality], video, _ = timed(name, quality, media, NARRATOR)
                totals[quality][0] += seconds[quality]
                totals[quality][1] += video
                print(f"{name:<10} {quality:>8} {seconds[quality]:9.1f} {video:8.1f} {seconds[quality] / video:7.2f}")
            print(f"{name:<10} {'class/low':>8} {seconds['class'] / seconds['low']:9.1f}")
    for quality, (r, v) in totals.items():
        print(f"{'lecture':<10} {quality:>8} {r:9.1f} {v:8.1f} {r / v:7.2f}")
    print(f"class quality takes {totals['class'][0] / totals['low'][0]:.1f}x the 480p time "
          f"({totals['class'][0] / 60:.1f} min for the whole lecture, speech cached)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quality", default="low", choices=list(QUALITIES))
    parser.add_argument("--scene", nargs="*", default=list(LECTURE))
    parser.add_argument("--class-vs-low", action="store_true", help="class quality against 480p, narrated")
    args = parser.parse_args()
    if missing():
        print(missing())
        return 1
    if args.class_vs_low:
        class_vs_low(args.scene)
        return 0
    totals = {"silent": [0.0, 0.0], "narrated": [0.0, 0.0], "cached": [0.0, 0.0]}
    hits = []
    print(f"{'scene':<10} {'':>9} {'render s':>9} {'video s':>8} {'factor':>7}")
    with tempfile.TemporaryDirectory(prefix="render-bench-") as media:
        for n, name in enumerate(args.scene):
            kinds = [("narrated", NARRATOR), ("silent", None)]
            for kind, voice in kinds if n % 2 else kinds[::-1]:  # alternate which goes first
                seconds, video, hit = timed(name, args.quality, media, voice)
                totals[kind][0] += seconds
                totals[kind][1] += video
                hits.append(hit)
                print(f"{name:<10} {kind:>9} {seconds:9.2f} {video:8.2f} {seconds / video:7.2f}")
            shutil.rmtree(Path(media) / "renders")  # again, narrated, with the speech cached: Piper's share
            seconds, video, _ = timed(name, args.quality, media, NARRATOR)
            totals["cached"][0] += seconds
            totals["cached"][1] += video
            print(f"{name:<10} {'cached':>9} {seconds:9.2f} {video:8.2f} {seconds / video:7.2f}")
    factor = {kind: r / v for kind, (r, v) in totals.items()}
    for kind, (r, v) in totals.items():
        print(f"{'lecture':<10} {kind:>9} {r:9.2f} {v:8.2f} {factor[kind]:7.2f}")
    cost = factor["narrated"] / factor["silent"] - 1
    print(f"narration adds {100 * (factor['cached'] / factor['silent'] - 1):+.0f} % to the factor with the speech "
          "cached")
    print(f"goal: narrated factor <= {GOAL_FACTOR} ({'met' if factor['narrated'] <= GOAL_FACTOR else 'NOT met'}); "
          f"narration adds {100 * cost:+.0f} % to the factor (goal <= {100 * GOAL_NARRATION_COST:.0f} %: "
          f"{'met' if cost <= GOAL_NARRATION_COST else 'NOT met'}); "
          f"cache hit {max(hits) * 1000:.1f} ms (goal < {GOAL_HIT_S} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
