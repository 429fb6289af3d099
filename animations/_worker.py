"""The render worker: `python -m animations._worker JOB.json` renders one scene with manim.

It runs in its own process because manim's config is global. It prints one JSON event per
line on stdout ({"event": "total" | "progress" | "done", ...}); manim's log goes to stderr.
"""

import importlib
import json
import sys

from core import AttentionConfig


def _emit(**event):
    print(json.dumps(event), flush=True)


def _scene_class(job):
    return getattr(importlib.import_module(job["module"]), job["class"])


def count_animations(cls, cfg) -> int:
    """Run the scene's construct without playing anything, to know how many animations follow."""
    scene = cls(cfg)
    scene.counting = True
    scene.setup()
    scene.construct()
    scene.tear_down()  # the last step's closing pause
    return scene.animations_done


def main(job_path: str) -> int:
    with open(job_path, encoding="utf-8") as f:
        job = json.load(f)
    cfg = AttentionConfig.from_json(job["config"])
    from manim import tempconfig

    cls = _scene_class(job)
    options = {"quality": job["quality"], "media_dir": job["media_dir"], "output_file": job["output_name"],
               "save_sections": True, "disable_caching": True, "progress_bar": "none", "verbosity": "INFO",
               "write_to_movie": True}
    with tempconfig(options):
        total = count_animations(cls, cfg)
        _emit(event="total", total=total)
        scene = cls(cfg, progress=lambda done: _emit(event="progress", done=done, total=total))
        scene.render()
        _emit(event="done", total=total, seconds=float(scene.time))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
