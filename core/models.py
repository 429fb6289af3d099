"""The models this machine has: the built-in MiniLM, folders named in ATTENTION_LAB_MODELS, and
the local Hugging Face cache; each found by name, loaded once per process and device.

Discovery reads folder listings and config.json files only: no network, no hub client, no
weights. A model is asked for by its name, never by a path, so a name that came in a link can
only pick one of the models listed here. Loaded models sit in one LRU bounded in float32 bytes
(ATTENTION_LAB_MODELS_MB, default 2048): a model that alone exceeds it is refused with a sentence.
"""

import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from . import pretrained
from .bert import Bert, load_minilm
from .checkpoint import (
    FAMILIES,
    Shape,
    checked_tokenizer,
    checked_weight_files,
    read_shape,
    read_tensors,
    read_tokenizer,
    refuse,
    size_on_disk,
)
from .errors import ConfigError, quote
from .gpt2 import GPT2
from .minilm import MINILM

BUILT_IN, FROM_ENV, FROM_CACHE = "built in", "ATTENTION_LAB_MODELS", "Hugging Face cache"
ENV = "ATTENTION_LAB_MODELS"
BUDGET_BYTES = int(float(os.environ.get("ATTENTION_LAB_MODELS_MB", "2048")) * 1024**2)
RESCAN_SECONDS = 30  # a model saved while the lab runs appears within this long


@dataclass(frozen=True)
class ModelInfo:
    name: str  # what the picker and the URL say: the folder's name, or "org/name" from the cache
    family: str  # "bert" | "gpt2"
    layers: int
    heads: int
    d_model: int
    size_bytes: int  # the folder's files on disk
    source: str  # BUILT_IN | FROM_ENV | FROM_CACHE
    folder: Path | None = None  # None for the built-in model (its package knows where it lies)
    problem: str = ""  # why the lab cannot run it ("" when it can)

    @property
    def causal(self) -> bool:
        return self.family == "gpt2"

    @property
    def built_in(self) -> bool:
        return self.source == BUILT_IN

    def label(self) -> str:
        """ "gpt2 · GPT-2 · 12 layers × 12 heads · 548 MB" """
        b = self.size_bytes
        size = f"{b / 1e9:.1f} GB" if b >= 1e9 else f"{b / 1e6:.0f} MB" if b >= 1e6 else f"{b / 1e3:.0f} kB"
        size = "not installed" if self.problem and self.built_in else size
        return f"{self.name} · {FAMILIES[self.family]} · {self.layers} layers × {self.heads} heads · {size}"


def hub_cache() -> Path:
    """The Hugging Face cache folder, as huggingface_hub places it (HF_HUB_CACHE, else HF_HOME/hub)."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    home = os.environ.get("HF_HOME") or os.path.join(os.environ.get("XDG_CACHE_HOME", "~/.cache"), "huggingface")
    return Path(home).expanduser() / "hub"


def discover() -> list[ModelInfo]:
    """Every model found, MiniLM first, then ATTENTION_LAB_MODELS' folders in order, then the cache's
    by name. A name seen twice keeps its first model."""
    window = int(time.monotonic() // RESCAN_SECONDS)
    return list(_discover(os.environ.get(ENV, ""), str(hub_cache()), window))


@lru_cache(maxsize=4)
def _discover(env: str, hub: str, window: int) -> tuple[ModelInfo, ...]:
    found = [_built_in()]
    found += [_folder(Path(p).expanduser(), FROM_ENV) for p in env.split(os.pathsep) if p.strip()]
    found += [m for m in (_cached(d) for d in sorted(_listing(Path(hub)))) if m is not None and not m.problem]
    unique = {}
    for m in found:
        unique.setdefault(m.name, m)
    return tuple(unique.values())


def _listing(folder: Path) -> list[Path]:
    try:
        return [d for d in folder.iterdir() if d.name.startswith("models--") and d.is_dir()]
    except OSError:
        return []


def _built_in() -> ModelInfo:
    m = MINILM
    try:
        size, problem = size_on_disk(pretrained.model_dir()), ""
    except ConfigError as err:
        size, problem = 0, str(err)
    return ModelInfo(m.name, "bert", m.layers, m.heads, m.d_model, size, BUILT_IN, None, problem)


def _folder(folder: Path, source: str, name: str | None = None) -> ModelInfo:
    """A folder's entry: its sizes, or, if it cannot run, the sentence that says why."""
    name = name or folder.name or str(folder)
    try:
        if not folder.is_dir():
            raise ConfigError(f"{quote(name, marks='“”')} is not a folder on this machine.", "model")
        shape = read_shape(folder)
        checked_weight_files(folder, shape)
        checked_tokenizer(folder)
    except ConfigError as err:
        return ModelInfo(name, "bert", 0, 0, 0, 0, source, folder, str(err))
    return ModelInfo(name, shape.family, shape.layers, shape.heads, shape.d_model, size_on_disk(folder), source,
                     folder)


def _cached(repo: Path) -> ModelInfo | None:
    """models--org--name: the snapshot that refs/main names, else the newest one; named "org/name"."""
    snapshots = repo / "snapshots"
    try:
        with (repo / "refs" / "main").open("rb") as f:  # a commit's hash: 40 characters; read no more than 100
            ref = f.read(100).decode("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        ref = ""
    if ref and Path(ref).name == ref and (snapshots / ref).is_dir():
        snapshot = snapshots / ref
    else:
        try:
            snapshot = max((d for d in snapshots.iterdir() if d.is_dir()), key=lambda d: d.stat().st_mtime)
        except (OSError, ValueError):  # no snapshot at all
            return None
    return _folder(snapshot, FROM_CACHE, name="/".join(repo.name.split("--")[1:]))


def find(name: str) -> ModelInfo:
    """The model called `name`, or a ConfigError naming the models there are."""
    for m in discover():
        if m.name == name:
            if m.problem:
                raise ConfigError(m.problem, "model")
            return m
    there = ", ".join(m.name for m in discover() if not m.problem)
    raise ConfigError(f"There is no model called {quote(name, marks='“”')} on this machine; there are: {there}.",
                      "model")


def model_info(name: str = "") -> ModelInfo:
    """The model called `name` ("" or MiniLM's name: the built-in one, without a look at its files), or a
    ConfigError saying why not."""
    if name in ("", MINILM.name):
        return ModelInfo(MINILM.name, "bert", MINILM.layers, MINILM.heads, MINILM.d_model, 0, BUILT_IN)
    return find(name)


# -- loading, once per process and device ---------------------------------------------------------
_LOCK = threading.Lock()  # sessions are threads: one loads, the others wait for it
_LOADED: OrderedDict = OrderedDict()  # (folder, device) -> (model, bytes)


def shape_of(info: ModelInfo) -> Shape:
    return read_shape(info.folder)


def load(info: ModelInfo, device):
    """The model `info` on `device` (a torch.device), in eval mode without gradients; shared: never change it."""
    if info.built_in:
        return load_minilm(device)
    shape = shape_of(info)
    need = shape.parameter_bytes
    if need > BUDGET_BYTES:
        raise ConfigError(f"{quote(info.name, marks='“”')} needs {need / 1e9:.1f} GB in float32, more than the "
                          f"{BUDGET_BYTES / 1e9:.1f} GB the lab keeps for models (ATTENTION_LAB_MODELS_MB).", "model")
    key = (str(info.folder), str(device))
    with _LOCK:
        if key in _LOADED:
            _LOADED.move_to_end(key)
            return _LOADED[key][0]
        model = _build(info, shape).to(device)
        _LOADED[key] = (model, need)
        while sum(b for _, b in _LOADED.values()) > BUDGET_BYTES and len(_LOADED) > 1:
            _LOADED.popitem(last=False)
        return model


def _build(info: ModelInfo, shape: Shape):
    cls = GPT2 if shape.family == "gpt2" else Bert
    tensors = read_tensors(info.folder, shape)
    try:
        return cls.from_weights(tensors, shape)
    except KeyError as err:  # config.json promises a tensor that the file lacks
        what = f"lacks the tensor {err.args[0]}"
    except RuntimeError:  # a tensor of another shape than config.json's sizes
        what = "holds tensors of other sizes"
    refuse(info.folder, f"has weights that do not match its config.json (the file {what}).")


_TOKENIZER_LOCK = threading.Lock()


@lru_cache(maxsize=16)
def _tokenizer(folder: str):
    return read_tokenizer(Path(folder))


def encode_one(info: ModelInfo, text: str) -> tuple[list[str], list[int]]:
    """(word pieces, ids) of `text` as the model's own tokenizer reads it."""
    if info.built_in:
        return pretrained.encode_one(text)
    with _TOKENIZER_LOCK:
        tok = _tokenizer(str(info.folder))
    e = tok.encode(text)
    return e.tokens, e.ids
