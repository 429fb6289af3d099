"""`AttentionConfig`: the whole state of a lesson, validated in words a student understands.

It round-trips through a flat dict of strings (URL query parameters; read back by serial.py) and
JSON (render jobs), and `key()` is a stable hash that every cache uses. Its ranges are limits.py's,
its device choices devices.py's; a lesson on a trained model is checked by its `TrainedLesson`
(trained_lesson.py), which holds that model's sizes.
"""

import dataclasses
import hashlib
import json
import math
from dataclasses import dataclass
from functools import cached_property

from .devices import DEVICE_CHOICES, available_devices
from .errors import ConfigError, check, quote
from .limits import (
    MAX_D_MODEL,
    MAX_ENTRY,
    MAX_HEADS,
    MAX_SEED,
    MAX_TEMPERATURE,
    MAX_TEXT_CHARS,
    MAX_TOKENS,
    MIN_TEMPERATURE,
)
from .minilm import MINILM
from .serial import decode_fields
from .tokens import tokenize
from .trained_lesson import TrainedLesson

SOURCES = ("text", "random", "manual", "trained")
MASKS = ("none", "causal", "padding", "window", "custom")
POSITIONALS = ("none", "sinusoidal", "learned", "rotary")


def head_choices(d_model: int) -> list[int]:
    """The head counts a lesson with this d_model can have: up to MAX_HEADS, each dividing d_model
    (every head gets an equal share of the dimensions)."""
    return [h for h in range(1, min(MAX_HEADS, d_model) + 1) if d_model % h == 0]


Matrix = tuple  # tuple of rows, each a tuple of floats (or of bools for a custom mask)


@dataclass(frozen=True)
class AttentionConfig:
    source: str = "text"  # "text" | "random" | "manual" (hand-entered Q, K, V) | "trained" (MiniLM)
    text: str = "The cat sat on the mat."
    seq_len: int = 6  # tokens, for random inputs
    d_model: int = 16
    num_heads: int = 4
    mask: str = "none"
    pad_length: int = 4  # padding: how many tokens are real
    window: int = 3  # sliding window width
    custom_mask: Matrix = ()  # T rows of T booleans, True = may attend
    positional: str = "none"
    scale: bool = True  # divide the scores by √d_k
    temperature: float = 1.0
    seed: int = 0
    device: str = "auto"
    q: Matrix = ()  # hand-entered (T, d_model) matrices, for source "manual"
    k: Matrix = ()
    v: Matrix = ()
    layer: int = 1  # source "trained": which of its layers, 1 = first (other sources keep 1)
    model: str = ""  # source "trained": a local model's name (core.models); "" = the built-in MiniLM

    def __post_init__(self):
        self._check_choices()
        if self.source == "trained":
            if self.model == MINILM.name:  # the built-in model has one name in every key: ""
                object.__setattr__(self, "model", "")
            self.trained_lesson.check(self)
        elif self.layer != 1 or self.model:  # no layers to choose: the default keeps to_dict() and key()
            object.__setattr__(self, "layer", 1)
            object.__setattr__(self, "model", "")
        self._check_sizes()
        self._check_tokens()
        self._check_mask()
        self._check_positional()
        if self.source == "manual":
            self._check_matrices()

    # -- validation ------------------------------------------------------------------------
    def _check_choices(self):
        for field, value, choices in (("source", self.source, SOURCES), ("mask", self.mask, MASKS),
                                      ("positional", self.positional, POSITIONALS),
                                      ("device", self.device, DEVICE_CHOICES)):
            check(value in choices, field,
                  f"Unknown {field} {quote(value)}: choose one of {', '.join(choices)}.")
        check(self.device in ("auto", "cpu") or self.device in available_devices(), "device",
              f"The device {quote(self.device)} was asked for, but this machine has none; use auto or cpu.")

    def _check_sizes(self):
        own = self.source == "trained"  # a trained model's sizes are its own (checked by TrainedLesson.check)
        check(1 <= self.d_model <= MAX_D_MODEL or own, "d_model",
              f"d_model must be between 1 and {MAX_D_MODEL}, got {self.d_model}.")
        check(1 <= self.num_heads <= MAX_HEADS or own, "num_heads",
              f"The number of heads must be between 1 and {MAX_HEADS}, got {self.num_heads}.")
        check(self.d_model % self.num_heads == 0, "num_heads",
              f"d_model {self.d_model} is not divisible by {self.num_heads} heads: each head "
              f"gets an equal share of the dimensions.")
        check(math.isfinite(self.temperature) and MIN_TEMPERATURE <= self.temperature <= MAX_TEMPERATURE,
              "temperature", f"The temperature must be between {MIN_TEMPERATURE:g} and {MAX_TEMPERATURE:g}, "
              f"got {self.temperature}.")
        check(0 <= self.seed <= MAX_SEED, "seed", f"The seed must be between 0 and {MAX_SEED}, got {self.seed}.")

    def _check_tokens(self):
        if self.source in ("text", "trained"):
            check(len(self.text) <= MAX_TEXT_CHARS, "text",
                  f"The text is {len(self.text):,} characters long; the lab takes at most {MAX_TEXT_CHARS:,}.")
        if self.source == "trained":
            self.trained_lesson.check_tokens(len(self.tokens))
        if self.source == "text":
            check(bool(self.tokens), "text", "The text is empty: type a few words to attend over.")
            check(len(self.tokens) <= MAX_TOKENS, "text",
                  f"The text has {len(self.tokens)} tokens; the lab shows at most {MAX_TOKENS}. Shorten it.")
        elif self.source == "random":
            check(1 <= self.seq_len <= MAX_TOKENS, "seq_len",
                  f"The number of tokens must be between 1 and {MAX_TOKENS}, got {self.seq_len}.")

    def _check_mask(self):
        """The window and the padding length are checked whatever the mask: one kept from a link
        while another mask is on would later make that mask impossible to choose."""
        T = self.num_tokens
        check(1 <= self.window <= MAX_TOKENS, "window",
              f"The window must be between 1 and {MAX_TOKENS} tokens wide, got {self.window}.")
        check(1 <= self.pad_length <= MAX_TOKENS, "pad_length",
              f"At least one token must be real (not padding), and at most {MAX_TOKENS}, got {self.pad_length}.")
        if self.mask == "padding":
            check(self.pad_length <= T, "pad_length",
                  f"The padding length {self.pad_length} is longer than the sequence of {T} tokens.")
        if self.mask == "custom":
            check(len(self.custom_mask) == T and all(len(r) == T for r in self.custom_mask),
                  "custom_mask", f"The custom mask must be a {T}×{T} grid, one row and column per token.")

    def _check_positional(self):
        if self.positional == "rotary":
            d_k = self.d_model // self.num_heads
            check(d_k % 2 == 0, "positional",
                  f"Rotary positions turn pairs of numbers, so each head needs an even size; "
                  f"d_model {self.d_model} / {self.num_heads} heads = {d_k}.")
        if self.source == "manual":
            check(self.positional in ("none", "rotary"), "positional",
                  "Hand-entered Q, K, V have no token embeddings to add positions to: "
                  "choose no positional encoding, or rotary.")

    def _check_matrices(self):
        for name in ("q", "k", "v"):
            m = getattr(self, name)
            label = name.upper()
            check(len(m) >= 1, name, f"{label} is empty: enter one row per token.")
            check(len(m) <= MAX_TOKENS, name, f"{label} has {len(m)} rows; the lab shows at most {MAX_TOKENS}.")
            check(len(m) == len(self.q), name,
                  f"{label} has {len(m)} rows but Q has {len(self.q)}: one row per token.")
            for i, row in enumerate(m):
                check(len(row) == self.d_model, name,
                      f"{label} row {i + 1} has {len(row)} numbers but d_model is {self.d_model}.")
                for j, value in enumerate(row):
                    check(math.isfinite(value), name,
                          f"{label} row {i + 1}, column {j + 1} is not a finite number ({value}).")
                    check(abs(value) <= MAX_ENTRY, name, f"{label} row {i + 1}, column {j + 1} is {value:g}; "
                          f"the lab takes numbers between -{MAX_ENTRY:,.0f} and {MAX_ENTRY:,.0f}.")

    # -- derived ---------------------------------------------------------------------------
    @cached_property
    def tokens(self) -> list[str]:
        if self.source == "text":
            return tokenize(self.text)
        if self.source == "trained":
            return self.trained_lesson.read(self.text)
        T = self.seq_len if self.source == "random" else len(self.q)
        return [f"t{i + 1}" for i in range(T)]

    @cached_property
    def trained_lesson(self) -> TrainedLesson:
        """What the trained model (MiniLM, or a local model) fixes in this lesson; source "trained" only."""
        return TrainedLesson.of(self.model)

    @property
    def num_tokens(self) -> int:
        return len(self.tokens)

    @property
    def d_k(self) -> int:
        return self.d_model // self.num_heads

    def replace(self, **changes) -> "AttentionConfig":
        return dataclasses.replace(self, **changes)

    @classmethod
    def trained(cls, text: str, layer: int = 1, device: str = "auto", model: str = "") -> "AttentionConfig":
        """A lesson on one layer of a trained model reading `text`: MiniLM (`model` "") or a local model
        by its name (core.models), with that model's sizes and mask."""
        return cls(source="trained", text=text, layer=layer, device=device, model=model,
                   **TrainedLesson.of(model).settings())

    # -- serialisation ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, str]:
        """A flat dict of strings, for URL query parameters. `layer` appears for the trained model only,
        so every other lesson keeps the dict, and the key, it had before the trained model came."""
        return {f.name: _encode(f.name, getattr(self, f.name)) for f in dataclasses.fields(self)
                if (f.name != "layer" or self.source == "trained") and (f.name != "model" or self.model)}

    @classmethod
    def from_dict(cls, values: dict) -> "AttentionConfig":
        """The inverse of `to_dict`; missing keys take defaults, unknown keys are ignored."""
        return cls(**decode_fields(values, {f.name: f for f in dataclasses.fields(cls)}))

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> "AttentionConfig":
        try:
            values = json.loads(text)
        except json.JSONDecodeError as err:
            raise ConfigError(f"The configuration is not valid JSON: {err.msg}.") from None
        check(isinstance(values, dict), "", "The configuration must be a JSON object of settings.")
        return cls.from_dict(values)

    def key(self) -> str:
        """A stable hash of every setting: the same lesson gives the same key on any machine."""
        return hashlib.sha256(self.to_json().encode("utf-8")).hexdigest()[:16]


def _encode(name: str, value) -> str:
    """One setting as a string: "1.0,0.0;0.0,1.0" for a matrix, "10;11" for a mask, "true" for a flag."""
    if name in ("q", "k", "v"):
        return ";".join(",".join(repr(float(x)) for x in row) for row in value)
    if name == "custom_mask":
        return ";".join("".join("1" if x else "0" for x in row) for row in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
