"""What a render adds to manim's files: a WebVTT copy of the subtitles (for the browser), the
subtitles as a track inside the mp4 (mov_text), and the narration inside each section clip
(manim writes section clips without sound).

ffmpeg (a system package the set-up installs) does the muxing, as a program with an argument
list; no text of a lesson reaches its command line. No manim import.
"""

import html
import json
import logging
import os
import re
import shutil
import subprocess
from pathlib import Path

log = logging.getLogger(__name__)

_SRT_TIME = re.compile(r"(\d+:\d+:\d+),(\d+)")


def srt_to_vtt(srt_text: str) -> str:
    """The same cues as WebVTT; cue text escaped, since a token may read `<b>` or `-->`."""
    cues = []
    for block in re.split(r"\n\s*\n", srt_text.strip()):
        lines = block.strip().splitlines()
        timing = next((i for i, line in enumerate(lines) if "-->" in line and _SRT_TIME.search(line)), None)
        if timing is None:
            continue
        when = _SRT_TIME.sub(r"\1.\2", lines[timing])
        text = "\n".join(html.escape(line, quote=False) for line in lines[timing + 1:])
        cues.append(f"{when}\n{text}")
    return "WEBVTT\n\n" + "\n\n".join(cues) + "\n"


def write_vtt(srt: Path) -> Path | None:
    if not srt.is_file():
        return None
    vtt = srt.with_suffix(".vtt")
    vtt.write_text(srt_to_vtt(srt.read_text(encoding="utf-8")), encoding="utf-8")
    return vtt


def _ffmpeg(*args: str) -> bool:
    program = shutil.which("ffmpeg")
    if program is None:
        log.warning("ffmpeg is not installed: the video keeps its .srt/.vtt files but no subtitle track, "
                    "and its section clips stay silent.")
        return False
    subprocess.run([program, "-hide_banner", "-loglevel", "error", "-nostdin", "-y", *args], check=True,
                   capture_output=True, timeout=120)
    return True


def _replace(path: Path, make) -> None:
    """Write a new version of `path` beside it with `make(tmp)`, then rename it into place."""
    tmp = path.with_name(f".{path.stem}.tmp{path.suffix}")
    try:
        if make(tmp):
            os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def embed_subtitles(movie: Path, srt: Path) -> None:
    """Put the .srt into the mp4 as a subtitle track (mov_text), beside its video and sound."""
    if not srt.is_file():
        return
    _replace(movie, lambda tmp: _ffmpeg("-i", str(movie), "-i", str(srt), "-map", "0", "-map", "1", "-c", "copy",
                                        "-c:s", "mov_text", "-metadata:s:s:0", "language=eng", str(tmp)))


def voice_sections(index: Path, audio: Path) -> None:
    """Give each section clip its slice of the narration (`audio`, the whole video's sound)."""
    start = 0.0
    for section in json.loads(index.read_text(encoding="utf-8")):
        clip = index.parent / section["video"]
        length = float(section["duration"])
        _replace(clip, lambda tmp, s=start, c=clip, n=length: _ffmpeg(
            "-i", str(c), "-ss", f"{s:.3f}", "-t", f"{n:.3f}", "-i", str(audio), "-map", "0:v", "-map", "1:a",
            "-c:v", "copy", "-c:a", "aac", "-b:a", "96k", str(tmp)))
        start += length
