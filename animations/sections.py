"""A rendered lecture's steps: each section's clip with the subtitle spoken during it.

Reads what manim wrote beside the video (`sections/<scene>.json` and `<scene>.srt`); no
manim import, so the dashboard's presenter mode can use it.
"""

import re
from dataclasses import dataclass
from pathlib import Path

from animations.render import outputs

_TIME = re.compile(r"(\d+):(\d+):(\d+)[,.](\d+)\s*-->\s*(\d+):(\d+):(\d+)[,.](\d+)")


@dataclass(frozen=True)
class Step:
    name: str  # the section's name, e.g. "softmax"
    clip: Path  # the section's own mp4
    start: float  # seconds into the whole video
    end: float
    caption: str  # the subtitle text shown during the step


def _seconds(h, m, s, ms) -> float:
    return int(h) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000


def read_srt(path: Path) -> list[tuple[float, float, str]]:
    """(start, end, text) of every cue in an .srt file; [] when there is none."""
    if not path.is_file():
        return []
    cues = []
    for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8", errors="replace").strip()):
        lines = block.strip().splitlines()
        timing = next((i for i, line in enumerate(lines) if _TIME.search(line)), None)
        if timing is None:
            continue
        g = _TIME.search(lines[timing]).groups()
        cues.append((_seconds(*g[:4]), _seconds(*g[4:]), " ".join(lines[timing + 1:]).strip()))
    return cues


def steps(movie: Path) -> list[Step]:
    """The steps of one rendered scene, in order, each with the captions that overlap it."""
    files = outputs(Path(movie))
    cues = read_srt(files["subtitles"])
    folder = files["sections_index"].parent if files["sections_index"] else None
    out, start = [], 0.0
    for section in files["sections"]:
        end = start + float(section.get("duration", 0) or 0)
        text = " ".join(t for s, e, t in cues if s < end - 1e-3 and e > start + 1e-3)
        out.append(Step(section["name"], folder / section["video"], start, end, text))
        start = end
    return out
