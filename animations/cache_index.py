"""The render cache's index: the size and last use of every finished render folder under
`media_dir/renders/`, and the eviction of the least recently used past the cap. The cap holds for
whatever is in the folder: before evicting, the index is reconciled with the folders on disk
(renders made by `make lecture` or the CLI count too). The index (`index.json`) survives a restart
and is rebuilt from the folders when it is missing or corrupt. Used by the in-process service and
by the hall's RQ workers.
"""

import json
import os
import shutil
import threading
import time
from pathlib import Path


def _folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


class CacheIndex:
    """Size and last use of every finished render folder; evicts the least recently used."""

    def __init__(self, root: Path, cap_bytes: int):
        self.root, self.cap_bytes = Path(root), cap_bytes
        self.path = self.root / "index.json"
        self._lock = threading.Lock()
        self.entries = self._load()

    def _load(self) -> dict:
        try:
            entries = json.loads(self.path.read_text(encoding="utf-8"))
            if isinstance(entries, dict) and all(isinstance(e, dict) and {"size", "last_used"} <= e.keys()
                                                 for e in entries.values()):
                return {name: e for name, e in entries.items() if (self.root / name).is_dir()}
        except (OSError, ValueError):
            pass
        return self._rebuild()

    def _rebuild(self) -> dict:
        """The index from the folders on disk; temporary folders (a leading dot) are not renders."""
        return {d.name: {"size": _folder_size(d), "last_used": d.stat().st_mtime} for d in self._folders()}

    def _folders(self) -> list[Path]:
        if not self.root.is_dir():
            return []
        return [d for d in self.root.iterdir() if d.is_dir() and not d.name.startswith(".")]

    def reconcile(self):
        """Make the index match the disk: folders written behind the service's back (the CLI,
        `make lecture`) are added with their size and time, vanished ones dropped. Call with the lock."""
        on_disk = {d.name: d for d in self._folders()}
        self.entries = {n: e for n, e in self.entries.items() if n in on_disk}
        for name, folder in on_disk.items():
            if name not in self.entries:
                self.entries[name] = {"size": _folder_size(folder), "last_used": folder.stat().st_mtime}

    def _save(self):
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".index-{os.getpid()}-{threading.get_ident()}.json")
        tmp.write_text(json.dumps(self.entries, indent=1), encoding="utf-8")
        os.replace(tmp, self.path)

    def touch(self, folder: Path):
        """Record a use of `folder` (a new render, or a cache hit)."""
        with self._lock:
            entry = self.entries.get(folder.name) or {"size": _folder_size(folder)}
            entry["last_used"] = time.time()
            self.entries[folder.name] = entry
            self._save()

    def evict(self, keep=()) -> list[str]:
        """Remove least recently used renders until the total fits the cap; returns their names."""
        removed = []
        with self._lock:
            self.reconcile()
            by_age = sorted(self.entries, key=lambda n: self.entries[n]["last_used"])
            for name in by_age:
                if self.total_bytes() <= self.cap_bytes:
                    break
                if name not in keep:
                    shutil.rmtree(self.root / name, ignore_errors=True)
                    removed.append(name)
                    del self.entries[name]
            self._save()
        return removed

    def total_bytes(self) -> int:
        return sum(e["size"] for e in self.entries.values())
