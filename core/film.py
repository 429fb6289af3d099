"""A film of a tiny Transformer learning: the run's settings, and what training recorded.

The settings are a frozen dataclass like `AttentionConfig`: validated in a student's words,
a flat dict of strings for the address, a stable `key()` for every cache. A `Film` is what one
run recorded (`core.learn.train` makes it): the loss at every step, and every head's attention
on one fixed probe sequence at snapshot steps, with the measured scores that name the heads.
It is saved as safetensors (arrays) + JSON (settings), so a film outlives the process.
"""

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import ConfigError, quote
from .limits import MAX_SEED

# Every task and every probe are written in these 32 symbols: token i is ALPHABET[i], so a
# student can type a sequence ("type a phrase twice") and read the heads' axes as characters.
ALPHABET = "abcdefghijklmnopqrstuvwxyz .,'?!"
TASKS = ("induction", "text")  # repeated random segments | next character of an English text
SEQ_LEN = 48  # tokens per training sequence (and the probe's length)
SEGMENT = (6, 19)  # the induction task's repeated segment: 6 to 19 tokens, at a random place
BATCH = 64
THREADS = 2  # torch threads of every training (core.learn.train): one count, one film; a laptop has 2 cores
LEARNING_RATE = 1e-2  # AdamW's, up to d_model 64; wider models take less (`learning_rate`)
MAX_LAYERS, MAX_HEADS = 2, 8
D_MODELS = (16, 32, 64, 128)
# The largest film (d_model 128, 8 heads, 2 layers) at MAX_STEPS must finish in about a minute on
# the lab's 2 cores: docs/performance.md has the measurement.
MIN_STEPS, MAX_STEPS = 20, 800
INDUCTION_THRESHOLD = 0.5  # a head whose induction score reaches this is called an induction head
PREVIOUS_THRESHOLD = 0.5  # the same for a previous-token head
FINAL_STEPS = 10  # a run's final loss is the mean of its last this many steps (one step's loss is noisy)
COUNTING_WITHIN = 0.1  # a final loss this close (nats) to counting's (`Film.counting_loss`) "learned counts"
FILM_VERSION = 3  # bump when training or recording changes: old films are then not reused

_LABELS = {"task": "The task", "layers": "The number of layers", "heads": "The number of heads",
           "d_model": "d_model", "positions": "Learned positions", "causal": "The causal mask",
           "steps": "The number of steps", "seed": "The seed"}


def _check(ok: bool, field_name: str, message: str):
    if not ok:
        raise ConfigError(message, field_name)


@dataclass(frozen=True)
class LearnSettings:
    """One training run: the model's shape, the task, and the seed that fixes everything else."""

    task: str = "induction"
    layers: int = 2
    heads: int = 4
    d_model: int = 64
    positions: bool = True  # learned positions added to the token embeddings
    causal: bool = True  # each token attends to itself and earlier tokens only
    # The phase change, then the second drop after which the default run predicts 0.9 of a copy
    # (tests/core/test_learn.py measures both)
    steps: int = 800
    seed: int = 0

    def __post_init__(self):
        _check(self.task in TASKS, "task", f"Unknown task {quote(self.task)}: choose one of {', '.join(TASKS)}.")
        _check(1 <= self.layers <= MAX_LAYERS, "layers",
               f"The number of layers must be between 1 and {MAX_LAYERS}, got {self.layers}.")
        _check(self.d_model in D_MODELS, "d_model",
               f"d_model must be one of {', '.join(map(str, D_MODELS))}, got {self.d_model}.")
        _check(1 <= self.heads <= MAX_HEADS, "heads",
               f"The number of heads must be between 1 and {MAX_HEADS}, got {self.heads}.")
        _check(self.d_model % self.heads == 0, "heads", f"d_model {self.d_model} is not divisible by "
               f"{self.heads} heads: each head gets an equal share of the dimensions.")
        _check(MIN_STEPS <= self.steps <= MAX_STEPS, "steps",
               f"The number of steps must be between {MIN_STEPS} and {MAX_STEPS:,}, got {self.steps}.")
        _check(0 <= self.seed <= MAX_SEED, "seed", f"The seed must be between 0 and {MAX_SEED}, got {self.seed}.")

    def replace(self, **changes) -> "LearnSettings":
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, str]:
        """A flat dict of strings, for the address."""
        return {f.name: (("true" if v else "false") if isinstance(v := getattr(self, f.name), bool) else str(v))
                for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, values: dict) -> "LearnSettings":
        """The inverse of `to_dict`: missing keys take defaults, other keys are not read. Numbers are
        plain ASCII digits ("1_000", "١٢" or "1,000" are refused, not read as another number)."""
        out = {}
        for f in dataclasses.fields(cls):
            if f.name not in values:
                continue
            raw = values[f.name]
            raw = (raw[-1] if raw else "") if isinstance(raw, (list, tuple)) else raw
            text, label = str(raw).strip(), _LABELS[f.name]
            if f.type in (bool, "bool"):
                _check(text.lower() in ("true", "false"), f.name, f"{label} must be true or false, got {quote(text)}.")
                out[f.name] = text.lower() == "true"
            elif f.type in (int, "int"):
                _check(text.isascii() and text.isdigit() and len(text) <= 12, f.name,
                       f"{label} must be a whole number, got {quote(text)}.")
                out[f.name] = int(text)
            else:
                out[f.name] = text
        return cls(**out)

    def key(self) -> str:
        """A stable hash of the settings and the film format: the cache's name for this run."""
        text = json.dumps({"film": FILM_VERSION, **self.to_dict()}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def learning_rate(d_model: int) -> float:
    """AdamW's learning rate for a model of width `d_model`: LEARNING_RATE up to 64, then in
    proportion to 64 / d_model (at d_model 128 the full rate made the loss diverge in our runs)."""
    return LEARNING_RATE * min(1.0, 64 / d_model)


def encode(text: str) -> list[int]:
    """The token ids of `text` in ALPHABET (upper case is read as lower case); any other
    character is refused in words, never dropped."""
    text = text.lower()
    unknown = sorted({c for c in text if c not in ALPHABET})
    if unknown:
        shown = ", ".join(repr(c) for c in unknown[:5])
        raise ConfigError(f"The tiny model reads only letters, spaces and . , ' ? ! — not {shown}.", "text")
    return [ALPHABET.index(c) for c in text]


def decode(ids) -> list[str]:
    """One label per token id (a space is shown as '␣' so an axis can show it)."""
    return ["␣" if ALPHABET[i] == " " else ALPHABET[i] for i in ids]


@dataclass
class Film:
    """What one training run recorded. L layers, H heads, T probe tokens, S steps, K snapshots."""

    settings: LearnSettings
    loss: np.ndarray  # (S,) training loss at steps 1..S, on the positions the task can predict
    accuracy: np.ndarray  # (S,) share of those positions whose top prediction is right (on the step's
    # batch, before the model learns from it: sequences it has never seen)
    baseline: np.ndarray  # (S,) loss of counting on the same batch (`learn_tasks.counts_loss`); (0,) for "text"
    held_out: np.ndarray  # (1,) accuracy at the end on HELD_OUT fresh sequences of the task (`learn_tasks.held_out`)
    probe: np.ndarray  # (T,) token ids of the fixed probe sequence (the same for every run of a task)
    snapshots: np.ndarray  # (K,) training steps at which the heads were recorded, 0 = before training
    weights: np.ndarray  # (K, L, H, T, T) each head's attention weights on the probe
    previous_token: np.ndarray  # (K, L, H) previous-token score of each head (see core.learn)
    induction: np.ndarray  # (K, L, H) induction score of each head (see core.learn)
    params: dict = field(default_factory=dict)  # name -> array: the trained model, to run on new input
    seconds: float = 0.0  # wall time of the run, recording included

    def final_loss(self) -> float:
        """The run's final loss: the mean of its last FINAL_STEPS steps, as the Watch it learn page says it."""
        return float(self.loss[-FINAL_STEPS:].mean())

    @property
    def probe_labels(self) -> list[str]:
        return decode(self.probe)

    @property
    def final_accuracy(self) -> float:
        """The share of the scored tokens the trained model predicts right on fresh sequences."""
        return float(self.held_out[0])

    @property
    def counting_loss(self) -> float | None:
        """The mean loss of counting the tokens seen so far, on the batches of this run; None for "text"."""
        return float(self.baseline.mean()) if self.baseline.size else None

    def snapshot_index(self, step: int) -> int:
        """The index of the last snapshot taken at or before `step`."""
        return max(0, int(np.searchsorted(self.snapshots, step, side="right")) - 1)

    @staticmethod
    def _passing(scores: np.ndarray, threshold: float) -> list[tuple[int, int]]:
        """(layer, head), 1-based, of every head whose final score reaches `threshold`, highest first."""
        final = scores[-1]  # (L, H)
        order = zip(*np.unravel_index(np.argsort(-final, axis=None, kind="stable"), final.shape), strict=True)
        return [(int(la) + 1, int(h) + 1) for la, h in order if final[la, h] >= threshold]

    def induction_heads(self) -> list[tuple[int, int]]:
        return self._passing(self.induction, INDUCTION_THRESHOLD)

    def previous_token_heads(self) -> list[tuple[int, int]]:
        return self._passing(self.previous_token, PREVIOUS_THRESHOLD)

    def induction_head(self):
        """The induction head with the highest final score, or None."""
        return next(iter(self.induction_heads()), None)

    def previous_token_head(self):
        return next(iter(self.previous_token_heads()), None)

    def formed_at(self):
        """The first snapshot step at which some head's induction score reached the threshold, or None."""
        reached = np.flatnonzero(self.induction.reshape(len(self.snapshots), -1).max(axis=1) >= INDUCTION_THRESHOLD)
        return int(self.snapshots[reached[0]]) if reached.size else None

    # -- on disk ---------------------------------------------------------------------------------
    _ARRAYS = ("loss", "accuracy", "baseline", "held_out", "probe", "snapshots", "weights", "previous_token",
               "induction")

    def save(self, folder) -> Path:
        """Write film.safetensors and film.json into `folder` (made if missing)."""
        from safetensors.numpy import save_file

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        arrays = {name: np.ascontiguousarray(getattr(self, name)) for name in self._ARRAYS}
        arrays.update({f"params.{name}": np.ascontiguousarray(a) for name, a in self.params.items()})
        save_file(arrays, str(folder / "film.safetensors"))
        meta = {"film": FILM_VERSION, "settings": self.settings.to_dict(), "seconds": self.seconds}
        (folder / "film.json").write_text(json.dumps(meta, sort_keys=True), encoding="utf-8")
        return folder

    @classmethod
    def load(cls, folder) -> "Film":
        """The film saved in `folder`; ValueError if it is missing, of another version, or damaged."""
        from safetensors.numpy import load_file

        folder = Path(folder)
        try:
            meta = json.loads((folder / "film.json").read_text(encoding="utf-8"))
            if meta.get("film") != FILM_VERSION:
                raise ValueError(f"film version {meta.get('film')}, not {FILM_VERSION}")
            arrays = load_file(str(folder / "film.safetensors"))
            settings = LearnSettings.from_dict(meta["settings"])
            params = {name.removeprefix("params."): a for name, a in arrays.items() if name.startswith("params.")}
            return cls(settings=settings, params=params, seconds=float(meta["seconds"]),
                       **{name: arrays[name] for name in cls._ARRAYS})
        except Exception as err:  # missing, damaged (safetensors' errors are its own), or invalid settings
            raise ValueError(f"no usable film in {folder}: {err}") from None
