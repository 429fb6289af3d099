"""Films on disk: `<media>/films/<settings.key()>/`, shared by every process of a lab or a hall.

- A film is written aside (a folder whose name starts with a dot) and renamed into place, so
  a folder under its key is always whole: a half-written film is never read.
- A folder that does not load (damaged, or of settings other than its name says) is removed
  and reads as missing, so the film is trained again.
- The total size is capped: the least recently used films are removed first. "Used" is the
  folder's modification time, touched on every load, so the processes of a hall (and the RQ
  workers that write) agree on it without an index file.
- A few loaded films stay in memory (least recently used out), so a page that reruns many
  times a second does not reread its film from disk.
"""

import logging
import os
import re
import secrets
import shutil
import threading
import time
from collections import OrderedDict
from pathlib import Path

from core.film import Film, LearnSettings

log = logging.getLogger(__name__)

DEFAULT_CAP_BYTES = 200 * 1024**2
IN_MEMORY = 4  # loaded films kept in memory per process (a few MB each)
TOUCH_EVERY_S = 60.0  # a film read from memory marks its folder used at most this often
STALE_S = 3600.0  # a dot-folder this old is a write that died half-way (every run ends sooner)
KEY = re.compile(r"[0-9a-f]{16}")  # LearnSettings.key(): nothing else names a folder here


def films_dir(media_dir) -> Path:
    return Path(media_dir) / "films"


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


class FilmStore:
    def __init__(self, media_dir, cap_bytes: int = DEFAULT_CAP_BYTES, in_memory: int = IN_MEMORY):
        self.root, self.cap_bytes, self.in_memory = films_dir(media_dir), cap_bytes, in_memory
        self._films: OrderedDict[str, Film] = OrderedDict()  # least recently used first
        self._touched: dict[str, float] = {}
        self._lock = threading.Lock()

    def folder(self, key: str) -> Path:
        if not KEY.fullmatch(key):
            raise ValueError(f"not a film key: {key[:40]!r}")
        return self.root / key

    def has(self, key: str) -> bool:
        """A finished film's folder is there (it is whole: folders appear by rename)."""
        return bool(KEY.fullmatch(key)) and (self.root / key / "film.json").is_file()

    def load(self, settings: LearnSettings) -> Film | None:
        """The film of these settings, from memory or disk; None if there is none (or it was damaged)."""
        film = self.load_key(settings.key())
        return film if film is not None and film.settings == settings else None

    def load_key(self, key: str) -> Film | None:
        if not KEY.fullmatch(key):
            return None  # a key from a link may be anything: never a path
        with self._lock:
            film = self._films.get(key)
            if film is not None:
                self._films.move_to_end(key)
        if film is not None:
            self._touch(key)
            return film  # even if evicted from disk since: it is whole and its key names it
        folder = self.root / key
        if not folder.is_dir():
            return None
        try:
            film = Film.load(folder)
            if film.settings.key() != key:
                raise ValueError(f"its settings are those of {film.settings.key()}")
        except ValueError as err:
            log.warning("Removing a damaged film folder (it will be trained again): %s", err)
            shutil.rmtree(folder, ignore_errors=True)
            return None
        self._remember(key, film)
        self._touch(key, force=True)
        return film

    def _remember(self, key: str, film: Film):
        with self._lock:
            self._films[key] = film
            self._films.move_to_end(key)
            while len(self._films) > self.in_memory:
                self._films.popitem(last=False)

    def _touch(self, key: str, force: bool = False):
        now = time.monotonic()
        if not force and now - self._touched.get(key, float("-inf")) < TOUCH_EVERY_S:
            return
        self._touched[key] = now
        try:
            os.utime(self.root / key)
        except OSError:
            pass  # evicted meanwhile: the film in memory is still good

    def save(self, film: Film) -> Path:
        """Write `film` aside and rename it into place; if another process saved it first, keep theirs."""
        key = film.settings.key()
        final = self.folder(key)
        self.root.mkdir(parents=True, exist_ok=True)
        work = self.root / f".{key}-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            film.save(work)
            try:
                os.replace(work, final)
            except OSError:
                if self.load_key(key) is None:  # what is there does not load (and is now removed)
                    os.replace(work, final)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        self._remember(key, film)
        self._touch(key, force=True)
        return final

    def evict(self, keep=()) -> list[str]:
        """Remove least recently used films until the total fits the cap; returns their keys."""
        if not self.root.is_dir():
            return []
        folders, now = [], time.time()
        for d in self.root.iterdir():
            try:
                if d.name.startswith("."):
                    if d.is_dir() and now - d.stat().st_mtime > STALE_S:
                        shutil.rmtree(d, ignore_errors=True)
                elif d.is_dir():
                    folders.append((d.stat().st_mtime, _size(d), d))
            except OSError:
                continue  # removed by another process while we looked
        total, removed = sum(size for _, size, _ in folders), []
        for _, size, folder in sorted(folders, key=lambda f: f[0]):
            if total <= self.cap_bytes:
                break
            if folder.name not in keep:
                shutil.rmtree(folder, ignore_errors=True)
                total -= size
                removed.append(folder.name)
        return removed
