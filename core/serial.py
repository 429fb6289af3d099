"""Settings read back from strings (`AttentionConfig.from_dict`; config.py writes them): "1,0;0,1" for a
matrix, "10;11" for a mask, "true" for a flag. Every refusal says which setting and why."""

import re

from .errors import ConfigError, quote

# Numbers as a link writes them, in ASCII digits only: Python's int() and float() also read "1_000",
# " ١٢ " (Arabic-Indic digits) and "1e3", which a link quoted back to its reader would not show.
WHOLE = re.compile(r"[0-9]+")
DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")

_MATRICES = ("q", "k", "v")
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
_LABELS = {"seq_len": "The number of tokens", "pad_length": "The padding length",
           "num_heads": "The number of heads", "d_model": "d_model", "window": "The window",
           "seed": "The seed", "temperature": "The temperature", "scale": "Divide by √d_k",
           "layer": "The layer"}


def _label(name: str) -> str:
    return _LABELS.get(name, name)


def _decode(name: str, kind, raw):
    text = str(raw).strip()
    if name in _MATRICES:
        try:
            return tuple(tuple(float(x) for x in row.split(",")) for row in text.split(";") if row.strip())
        except ValueError:
            raise ConfigError(f"{name.upper()} must be rows of numbers like 1,0;0,1.", name) from None
    if name == "custom_mask":
        if any(c not in "01;" for c in text):
            raise ConfigError("The custom mask must be rows of 0 and 1 like 10;11.", name)
        return tuple(tuple(c == "1" for c in row) for row in text.split(";") if row)
    if kind is bool:
        if text.lower() not in _TRUE + _FALSE:
            raise ConfigError(f"{_label(name)} must be true or false, got {quote(text)}.", name)
        return text.lower() in _TRUE
    if kind is int:
        if not WHOLE.fullmatch(text):
            raise ConfigError(f"{_label(name)} must be a whole number written with the digits 0 to 9, got "
                              f"{quote(text)}.", name)
        return int(text)
    if kind is float:
        if not DECIMAL.fullmatch(text):
            raise ConfigError(f"{_label(name)} must be a number written with the digits 0 to 9, got {quote(text)}.",
                              name)
        return float(text)
    return str(raw)


def decode_fields(values: dict, fields: dict) -> dict:
    """Parse the known keys of a flat dict; a list (a repeated URL key) takes its last value."""
    out = {}
    for name, raw in values.items():
        if name not in fields:
            continue
        if isinstance(raw, (list, tuple)) and name not in _MATRICES + ("custom_mask",):
            raw = raw[-1] if raw else ""
        kind = {"bool": bool, "int": int, "float": float}.get(str(fields[name].type), fields[name].type)
        if isinstance(raw, (list, tuple)):  # already a matrix
            out[name] = tuple(tuple(row) for row in raw)
        else:
            out[name] = _decode(name, kind, raw)
    return out
