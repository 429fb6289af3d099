"""A narrated video's transcript: its steps' captions, the very text the narrator speaks and the `.srt`/`.vtt`
are written from, read by the scene's counting pass (`LessonScene.counted`: construct() with nothing drawn),
so a transcript needs no render.

`transcripts(videos)` counts them in a child process (`python -m animations.transcripts`, a JSON list of
[scene, lesson as AttentionConfig.to_dict()] on stdin, a list of [[step, caption], ...] or null on stdout):
manim's settings are global, as a render's are (animations/render.py), and the lab's process keeps its own.
A video it cannot count here is null: a trained model not installed, or a film's scene whose training run is
not recorded yet (counting it would train one, a minute or more: `make lecture` records it).
"""

import importlib
import json
import subprocess
import sys

from animations.catalog import FILMS, SCENES
from core.config import AttentionConfig

TIMEOUT_S = 300  # a deck's videos, counted one after another (about a second each, after manim's import)


def transcripts(videos: list[tuple[str, AttentionConfig]]) -> list[list[tuple[str, str]] | None]:
    """[(step, caption), ...] of each (scene, lesson) in `videos`, in order; None where it cannot be counted
    here (all None when the child process fails: a handout then says so rather than failing)."""
    if not videos:
        return []
    asked = json.dumps([[scene, cfg.to_dict()] for scene, cfg in videos])
    try:
        done = subprocess.run([sys.executable, "-m", "animations.transcripts"], input=asked, capture_output=True,
                              text=True, timeout=TIMEOUT_S, check=True)
        got = json.loads(done.stdout.strip().splitlines()[-1])  # the last line: manim may have said something
        if len(got) != len(videos):
            raise ValueError(len(got))
    except (OSError, subprocess.SubprocessError, ValueError):
        return [None] * len(videos)
    return [None if t is None else [(str(step), str(caption)) for step, caption in t] for t in got]


def counted_captions(scene: str, cfg: AttentionConfig) -> list[tuple[str, str]] | None:
    """(step, caption) of every step of `scene` drawing `cfg`, by its counting pass; None if it cannot be here."""
    if scene not in SCENES or (scene in FILMS and not _film_recorded()):
        return None
    module, cls = SCENES[scene]
    try:
        counted = getattr(importlib.import_module(module), cls).counted(cfg)
    except (OSError, RuntimeError, ValueError):  # ConfigError is a ValueError: a trained model not installed
        return None
    return list(zip(counted.section_names, counted.captions, strict=True))


def _film_recorded() -> bool:
    from animations.scenes.induction import SETTINGS
    from core.film import Film
    from jobs import media_dir

    try:
        return Film.load(media_dir() / "films" / SETTINGS.key()).settings == SETTINGS
    except ValueError:
        return False


def main() -> int:
    videos = json.loads(sys.stdin.read())
    out = [counted_captions(scene, AttentionConfig.from_dict(lesson)) for scene, lesson in videos]
    print("\n" + json.dumps(out))  # on a line of its own
    return 0


if __name__ == "__main__":
    sys.exit(main())
