"""What a render adds to manim's files: a WebVTT copy of the subtitles (for the browser), the
subtitles as a track inside the mp4 (mov_text), the narration as its sound track, and the
narration inside each section clip (manim writes the clips without sound).

The narration track is put together here (each sentence's wav at the second its step speaks it)
and encoded once per file by ffmpeg, in one run for the movie and one for all its clips: manim's
own sound path (PyAV's AAC encoder driven frame by frame from Python, then a run per clip here)
took 3.8 s of a 27 s narrated render. ffmpeg (a system package the set-up installs) runs as a
program with an argument list; no text of a lesson reaches its command line. No manim import.
"""

import html
import json
import logging
import os
import re
import shutil
import subprocess
import wave
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

_SRT_TIME = re.compile(r"(\d+:\d+:\d+),(\d+)")
AAC = ["-c:a", "aac", "-b:a", "96k"]  # speech, mono


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


def narration_track(sounds: list[tuple[Path, float]], seconds: float, out: Path) -> Path:
    """One wav `seconds` long: silence, with each (wav, start second) of `sounds` placed at its
    start (the voice's own sample rate; a sentence that would run past the end is cut there)."""
    rate, track = None, None
    for path, start in sounds:
        with wave.open(str(path), "rb") as f:
            if (f.getnchannels(), f.getsampwidth()) != (1, 2) or rate not in (None, f.getframerate()):
                raise ValueError(f"{path.name}: the narration expects 16-bit mono speech at one sample rate")
            rate = f.getframerate()
            samples = np.frombuffer(f.readframes(f.getnframes()), dtype="<i2")
        if track is None:
            track = np.zeros(round(seconds * rate), dtype=np.int32)
        first = round(start * rate)
        piece = samples[: max(len(track) - first, 0)]
        track[first: first + len(piece)] += piece
    rate = rate or 22050
    if track is None:
        track = np.zeros(round(seconds * rate), dtype=np.int32)
    with wave.open(str(out), "wb") as f:
        f.setnchannels(1), f.setsampwidth(2), f.setframerate(rate)
        f.writeframes(np.clip(track, -32768, 32767).astype("<i2").tobytes())
    return out


def finish_movie(movie: Path, srt: Path, audio: Path | None = None) -> None:
    """One ffmpeg run: the picture as it is, the narration (if any) as AAC, the .srt as a
    subtitle track (mov_text)."""
    inputs, maps, codecs = ["-i", str(movie)], ["-map", "0"], ["-c", "copy"]
    if audio is not None:
        maps += ["-map", f"{len(inputs) // 2}:a"]
        inputs += ["-i", str(audio)]
        codecs += AAC
    if srt.is_file():
        maps += ["-map", f"{len(inputs) // 2}"]
        inputs += ["-i", str(srt)]
        codecs += ["-c:s", "mov_text", "-metadata:s:s:0", "language=eng"]
    if len(inputs) > 2:
        _replace(movie, lambda tmp: _ffmpeg(*inputs, *maps, *codecs, str(tmp)))


def voice_sections(index: Path, audio: Path) -> None:
    """Give each section clip its slice of the narration (`audio`, the whole video's sound), all
    clips in one ffmpeg run."""
    sections = json.loads(index.read_text(encoding="utf-8"))
    if not sections:
        return
    clips = [index.parent / section["video"] for section in sections]
    tmps = [clip.with_name(f".{clip.stem}.tmp{clip.suffix}") for clip in clips]
    n, start, graph = len(clips), 0.0, []
    for i, section in enumerate(sections):
        length = float(section["duration"])
        graph.append(f"[s{i}]atrim=start={start:.3f}:duration={length:.3f},asetpts=PTS-STARTPTS[a{i}]")
        start += length
    args = [arg for clip in clips for arg in ("-i", str(clip))] + ["-i", str(audio), "-filter_complex",
            f"[{n}:a]asplit={n}" + "".join(f"[s{i}]" for i in range(n)) + ";" + ";".join(graph)]
    for i, tmp in enumerate(tmps):
        args += ["-map", f"{i}:v", "-map", f"[a{i}]", "-c:v", "copy", *AAC, str(tmp)]
    try:
        if _ffmpeg(*args):
            for tmp, clip in zip(tmps, clips, strict=True):
                os.replace(tmp, clip)
    finally:
        for tmp in tmps:
            tmp.unlink(missing_ok=True)
