"""The render worker: `python -m animations._worker JOB.json` renders one scene with manim.

It runs in its own process because manim's config is global. It prints one JSON event per
line on stdout ({"event": "total" | "progress" | "done", ...}); manim's log goes to stderr.
A first pass of the scene's construct() plays nothing: it counts the animations (for the
progress bar) and collects every caption, handing each to Piper (one process) as it goes, so
that Piper speaks during that pass and while the second pass draws.
"""

import importlib
import json
import sys
from pathlib import Path

from core import AttentionConfig


def _emit(**event):
    print(json.dumps(event), flush=True)


def _scene_class(job):
    return getattr(importlib.import_module(job["module"]), job["class"])


def _count(cls, cfg, job):
    """(the counted scene, its Narration or None for a silent video): Piper starts speaking
    during the count."""
    if not job.get("voice"):
        return cls.counted(cfg), None
    from animations.narration import count_and_speak
    from animations.voice import Voice

    return count_and_speak(cls, cfg, Voice(**job["voice"]), Path(job["tts_dir"]))


def main(job_path: str) -> int:
    with open(job_path, encoding="utf-8") as f:
        job = json.load(f)
    cfg = AttentionConfig.from_json(job["config"])
    from manim import tempconfig

    cls = _scene_class(job)
    options = {**job["quality"], "media_dir": job["media_dir"], "output_file": job["output_name"],
               "save_sections": True, "disable_caching": True, "progress_bar": "none", "verbosity": "INFO",
               "write_to_movie": True}
    with tempconfig(options):
        counted, narration = _count(cls, cfg, job)
        total = counted.animations_done
        _emit(event="total", total=total)
        scene = cls(cfg, progress=lambda done: _emit(event="progress", done=done, total=total),
                    narration=narration)
        scene.render()
        _emit(event="done", total=total, seconds=float(scene.time))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
