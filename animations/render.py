"""`render(scene, cfg, quality)`: one lecture video, rendered by manim in a separate process.

Renders are cached under `media_dir/renders/<scene>-<cfg.key()>-<quality>-<voice>-<code version>/`
(the mp4 with its sound and subtitle track, its `.srt` and `.vtt` subtitles and its
`sections/`); a hit returns at once. Narration is on by default (`voice=NARRATOR`); where
Piper is not installed the video is silent, with one log line, and cached as silent. A render is
written in a temporary folder and renamed into place, so a half-written video is never
returned. Importing this module does not import manim.
"""

import hashlib
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections import deque
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from animations.catalog import FILMS, QUALITIES, SCENES, check_scene, scene_name
from animations.voice import NARRATOR, Voice, missing
from core import PRESETS, AttentionConfig, ConfigError

log = logging.getLogger(__name__)

DEFAULT_MEDIA = Path("media")
DEFAULT_TIMEOUT = 600.0  # seconds; the longest scene renders in well under a minute at 480p
LOG_LINES = 40  # lines of manim's log a RenderError carries
PACKAGE_DIR = Path(__file__).resolve().parent
WORKER = ["-m", "animations._worker"]  # what a render runs, after the interpreter (tests put a stand-in here)

_live: set[subprocess.Popen] = set()  # this process's render workers now running, for stop_renders()
_live_lock = threading.Lock()


class RenderError(RuntimeError):
    """manim failed or ran out of time; `log` holds the last lines it printed."""

    def __init__(self, message: str, log: str = ""):
        super().__init__(f"{message}\n--- last lines of manim's log ---\n{log}" if log else message)
        self.log = log


@lru_cache(maxsize=1)
def code_version() -> str:
    """A hash of the animation and core sources and manim's version: change any, and renders redo."""
    digest = hashlib.sha256()
    for folder in (PACKAGE_DIR, PACKAGE_DIR.parent / "core"):
        for path in sorted(folder.rglob("*.py")):
            digest.update(path.relative_to(folder.parent).as_posix().encode())
            digest.update(path.read_bytes())
    digest.update(metadata.version("manim").encode())
    return digest.hexdigest()[:12]


def checked_request(scene: str, cfg, quality: str, voice: Voice | None = None) -> tuple[str, AttentionConfig,
                                                                                      Voice | None]:
    """(catalogue scene name, validated config, the voice that will speak) of a render request,
    or the reason it cannot be: KeyError for an unknown scene or quality, ConfigError for bad
    settings, or for a lesson that the scene cannot draw (see catalog.scenes_for). The voice is None
    (silent) when none is asked for or Piper is not installed."""
    if quality not in QUALITIES:
        raise KeyError(f"Unknown quality '{quality}': choose one of {', '.join(QUALITIES)}.")
    name, cfg = scene_name(scene), _checked(cfg)
    if name in FILMS:  # drawn from a recorded film, whatever the lesson: one cache entry for it
        cfg = PRESETS["default"]
    check_scene(name, cfg)
    return name, cfg, speaking(voice)


def speaking(voice: Voice | None) -> Voice | None:
    """`voice` if Piper and that voice are installed; else None, said once in the log."""
    if voice is None:
        return None
    why = missing(voice)
    if why:
        _say_once(why)
        return None
    return voice


@lru_cache(maxsize=4)
def _say_once(message: str):
    log.warning(message)


def _checked(cfg) -> AttentionConfig:
    """The config, validated (a dict or JSON is parsed): a bad one raises ConfigError here."""
    if isinstance(cfg, AttentionConfig):
        return AttentionConfig.from_json(cfg.to_json())
    if isinstance(cfg, str):
        return AttentionConfig.from_json(cfg)
    if isinstance(cfg, dict):
        return AttentionConfig.from_dict(cfg)
    raise ConfigError("The lesson settings must be an AttentionConfig, a dict or JSON.")


def render_key(scene: str, cfg: AttentionConfig, quality: str, voice: Voice | None = None) -> str:
    """One render's name, e.g. 'scores-<cfg.key()>-low-joe-0.90-<code version>': its cache folder,
    and the render services' job key (identical requests share one job)."""
    spoken = voice.tag() if voice is not None else "silent"
    return f"{scene}-{cfg.key()}-{quality}-{spoken}-{code_version()}"


def cache_dir(scene: str, cfg: AttentionConfig, quality: str, media_dir=DEFAULT_MEDIA,
              voice: Voice | None = None) -> Path:
    """The folder of one render; `voice` is the one that speaks (None: silent)."""
    return Path(media_dir) / "renders" / render_key(scene, cfg, quality, voice)


def render(scene: str, cfg, quality: str = "low", on_progress=None, timeout: float = DEFAULT_TIMEOUT,
           media_dir=DEFAULT_MEDIA, voice: Voice | None = NARRATOR) -> Path:
    """Render `scene` for the lesson `cfg`; returns the mp4 (its `.srt`, `.vtt` and `sections/` beside it).

    `voice` narrates (None: a silent video). on_progress(done, total) is called after each
    animation. Raises ConfigError for a bad lesson (before any process starts), KeyError for
    an unknown scene or quality, and RenderError when manim fails or takes longer than
    `timeout` seconds.
    """
    name, cfg, voice = checked_request(scene, cfg, quality, voice)
    media_dir = Path(media_dir).resolve()  # the worker runs elsewhere
    final = cache_dir(name, cfg, quality, media_dir, voice)
    movie = final / f"{name}.mp4"
    if movie.is_file():
        return movie
    final.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=final.parent))
    try:
        _run_worker(work, name, cfg, quality, on_progress, timeout, voice, media_dir / "tts")
        staged = _collect(work, name)
        try:
            os.replace(staged, final)  # atomic: the folder appears complete or not at all
        except OSError:
            if not movie.is_file():  # another render won the race: use its result
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return movie


def _run_worker(work: Path, name, cfg, quality, on_progress, timeout, voice, tts_dir):
    module, cls = SCENES[name]
    job = {"module": module, "class": cls, "config": cfg.to_json(), "quality": QUALITIES[quality].manim_config(),
           "media_dir": str(work / "manim"), "output_name": name, "tts_dir": str(tts_dir),
           "voice": {"name": voice.name, "rate": voice.rate} if voice else None}
    job_path = work / "job.json"
    job_path.write_text(json.dumps(job), encoding="utf-8")
    argv = [sys.executable, *WORKER, str(job_path)]
    log: deque[str] = deque(maxlen=LOG_LINES)
    # Its own process group (start_new_session), so that a kill reaches manim's ffmpeg too; for the same
    # reason a Ctrl+C at the terminal does not reach it: the server stops it (stop_renders).
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=PACKAGE_DIR.parent, start_new_session=True, errors="replace")
    with _live_lock:
        _live.add(proc)
    timed_out = threading.Event()

    def kill():
        timed_out.set()
        _kill_group(proc)

    timer = threading.Timer(timeout, kill)
    timer.start()
    try:
        for line in proc.stdout:
            if not _event(line, on_progress):
                log.append(line.rstrip())
        code = proc.wait()
    finally:
        timer.cancel()
        if proc.poll() is None:
            kill()
            proc.wait()
        with _live_lock:
            _live.discard(proc)
    if timed_out.is_set():
        raise RenderError(f"Rendering {name} took longer than {timeout:g} s and was stopped.", "\n".join(log))
    if code != 0:
        raise RenderError(f"Rendering {name} failed (exit status {code}).", "\n".join(log))


def _kill_group(proc: subprocess.Popen):
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # manim and any ffmpeg it started
    except ProcessLookupError:
        pass


def stop_renders() -> int:
    """Kill every render worker this process is running now (and what each started); their renders
    fail. For a server that stops. Returns how many there were."""
    with _live_lock:
        running = list(_live)
    for proc in running:
        _kill_group(proc)
    return len(running)


def _event(line: str, on_progress) -> bool:
    """Handle one worker event line; False when the line is manim's log instead."""
    if not line.startswith("{"):
        return False
    try:
        event = json.loads(line)
    except json.JSONDecodeError:
        return False
    if on_progress is not None and event.get("event") in ("total", "progress", "done"):
        total = event.get("total", 0)
        on_progress(event.get("done", total if event["event"] == "done" else 0), total)
    return True


def _collect(work: Path, name: str) -> Path:
    """Gather manim's mp4, subtitles and sections into one folder next to the cache."""
    found = list((work / "manim" / "videos").rglob(f"{name}.mp4"))
    if not found:
        raise RenderError(f"manim finished but wrote no video for {name}.")
    video_dir = found[0].parent
    staged = work / "result"
    staged.mkdir()
    shutil.move(str(found[0]), staged / f"{name}.mp4")
    for suffix in (".srt", ".vtt"):
        subtitles = video_dir / f"{name}{suffix}"
        if subtitles.is_file():
            shutil.move(str(subtitles), staged / subtitles.name)
    sections = video_dir / "sections"
    if sections.is_dir():
        shutil.move(str(sections), staged / "sections")
    return staged  # inside `work`, itself beside the cache folder: the final rename stays on one disk


def outputs(movie: Path) -> dict:
    """The files of one render: the video, its subtitles (.srt, .vtt) and its sections (index and clips)."""
    folder = movie.parent
    sections = folder / "sections"
    index = next(iter(sorted(sections.glob("*.json"))), None) if sections.is_dir() else None
    return {"video": movie, "subtitles": folder / f"{movie.stem}.srt", "vtt": folder / f"{movie.stem}.vtt",
            "sections_index": index,
            "sections": json.loads(index.read_text()) if index else []}


# -- for the command line (python -m animations, make lecture) ---------------------------------------
BAR = 30


def progress_bar(label: str):
    """on_progress that draws `label [#####.....] done/total` on the terminal."""

    def show(done, total):
        filled = BAR * done // total if total else 0
        sys.stderr.write(f"\r{label:<10} [{'#' * filled}{'.' * (BAR - filled)}] {done}/{total}")
        sys.stderr.flush()

    return show


def export(movie: Path, out: Path, name: str) -> Path:
    """Copy one render (mp4, .srt, .vtt, sections) into `out` as `<name>.mp4`, `<name>.srt`,
    `<name>.vtt`, `<name>_sections/`."""
    out.mkdir(parents=True, exist_ok=True)
    files = outputs(movie)
    target = out / f"{name}.mp4"
    shutil.copyfile(files["video"], target)
    for kind, suffix in (("subtitles", ".srt"), ("vtt", ".vtt")):
        if files[kind].is_file():
            shutil.copyfile(files[kind], out / f"{name}{suffix}")
    if files["sections_index"] is not None:
        shutil.copytree(files["sections_index"].parent, out / f"{name}_sections", dirs_exist_ok=True)
    return target
