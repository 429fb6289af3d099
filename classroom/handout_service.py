"""The students' handout as a job (jobs/): built once per deck, off the page's thread, and kept on disk.

A handout takes seconds of CPU (every lesson's numbers and charts), so a page never builds it in its own
run: the teacher's click submits a job to this process's queue, which builds one handout at a time; a second
request for the same deck joins the running job, and a handout already built is a file on disk, served as it
is. One handout per deck is kept, named by the deck's name, its file's (modification time, size) and the code
version of what it is made from (core and classroom, vl-convert): a deck edited, or a lab updated, is built
again, and the old file is removed.

The files lie under ATTENTION_LAB_MEDIA (`media/handouts/`), which a hall's lab processes share: each lab
process builds in a thread of its own, and one finds the file another built. The names are hashes: no text
of a deck or a link reaches a path.
"""

import hashlib
import os
import tempfile
import threading
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import NamedTuple

from classroom.deck_questions import films_needed
from classroom.decks import Deck
from classroom.films.store import films_dir
from classroom.handout import build_handout
from jobs import Failed, Limits, Requester, Service, Task, Words, media_dir
from jobs.local import LocalQueue

FOLDER = "handouts"
SECONDS = 5.0  # what one build costs, for the wait a full queue states (about 4 s of CPU measured, issue 47)
SOURCES = Path(__file__).resolve().parents[1]

WORDS = Words(
    busy="A handout is being made for this window already; wait for it to finish.",
    full=lambda entries, pace, workers: (f"{len(entries)} handouts are being made; try again in a minute."),
    unavailable="Handouts cannot be made right now; try again in a minute.",
    stopping="The server is stopping; the handout was not made.",
    stopped="The handout was not made: nobody was waiting for it any more.",
    crashed="The handout could not be made (a bug); the server's log has the details.",
    died="The handout could not be made (its worker ended).",
    lost="The handout's request was lost; press the button again.",
    gone="The handout is no longer on disk; press the button again.",
    timed_out="The handout took longer than its time limit and was stopped.",
    other_version="The handout was asked of another version of the lab; restart the lab.")


@lru_cache(maxsize=1)
def code_version() -> str:
    """A hash of the sources a handout is made from (core, classroom, and animations: the videos' captions
    its transcripts print) and vl-convert's version."""
    digest = hashlib.sha256()
    for folder in ("core", "classroom", "animations"):
        for path in sorted((SOURCES / folder).rglob("*.py")):
            digest.update(path.relative_to(SOURCES).as_posix().encode())
            digest.update(path.read_bytes())
    digest.update(metadata.version("vl-convert-python").encode())
    return digest.hexdigest()[:12]


def _hash(text: str, chars: int) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:chars]


class HandoutRequest(NamedTuple):
    deck: Deck
    stamp: tuple  # the deck file's (modification time in ns, size): an edited deck is another handout
    path: Path  # where its handout lands: <hash of the deck's name>-<hash of name, stamp, code version>.html


class Handouts(Task):
    name, words = "handouts", WORDS

    def __init__(self, media, build=build_handout):
        """`build(deck) -> str`: the handout's HTML (classroom.handout's; a test counts its calls)."""
        self.media, self.folder, self.build = Path(media), Path(media) / FOLDER, build

    def request(self, deck: Deck, stamp: tuple) -> HandoutRequest:
        name = _hash(deck.name, 8)
        made = _hash(f"{deck.name}|{stamp}|{code_version()}|{self._films_on_disk(deck)}", 16)
        return HandoutRequest(deck, tuple(stamp), self.folder / f"{name}-{made}.html")

    def _films_on_disk(self, deck: Deck) -> tuple:
        """The deck's training runs trained by now: a handout made before `make lecture` trained them says
        their questions are not ready, and one made after prints them (another file)."""
        keys = {settings.key() for s in deck.screens for settings in films_needed(s)}
        return tuple(sorted(k for k in keys if (films_dir(self.media) / k / "film.json").is_file()))

    def key(self, request: HandoutRequest) -> str:
        return request.path.stem

    def cost(self, request: HandoutRequest) -> float:
        return SECONDS

    def done(self, request: HandoutRequest) -> Path | None:
        return request.path if request.path.is_file() else None

    def run(self, request: HandoutRequest, progress, should_stop) -> Path:
        try:
            text = self.build(request.deck)
            self.folder.mkdir(parents=True, exist_ok=True)
            # a file of its own, then renamed: a reader (another process too) never sees half a handout
            fd, aside = tempfile.mkstemp(dir=self.folder, prefix=".partial-", suffix=".html")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(aside, request.path)
        except OSError as err:  # the disk: full, read-only
            raise Failed(f"The handout could not be saved ({err.strerror or err}).") from None
        for old in self.folder.glob(f"{request.path.stem.split('-')[0]}-*.html"):
            if old != request.path:  # this deck's handout of an older deck file or lab
                old.unlink(missing_ok=True)
        return request.path


class HandoutService(Service):
    """`submit(deck, stamp, requester)` -> the job that makes the deck's handout (a done one if it is on
    disk); `cached(deck, stamp)` -> its file or None. One build at a time; a session has one job waiting or
    running, a device two."""

    def __init__(self, media=None, build=build_handout):
        self.task = Handouts(media_dir() if media is None else media, build)
        self.queue = LocalQueue(self.task, Limits(per_requester=1, queued=4, per_device=2), workers=1, remember=20)

    def submit(self, deck: Deck, stamp: tuple, requester: "Requester | str" = ""):
        return self.queue.submit(self.task.request(deck, stamp), requester)

    def cached(self, deck: Deck, stamp: tuple) -> Path | None:
        return self.task.done(self.task.request(deck, stamp))


_lock = threading.Lock()
_service: HandoutService | None = None


def service(build=build_handout) -> HandoutService:
    """This process's handout service (not a Streamlit cache: a clear_cache cannot drop a build); `build`: how
    the one it starts builds (the dashboard's adds the videos' transcripts)."""
    global _service
    with _lock:
        if _service is None or _service.closed:
            _service = HandoutService(build=build)
        return _service
