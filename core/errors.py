"""`ConfigError`: a setting that cannot work, explained in words a student understands.

Every check raises it, from a lesson's settings to a model folder's files, so that every front end
catches one error and shows its sentence. A value a visitor or a file gave is quoted in it with
`quote`: cut, and with its invisible characters written out, so that it cannot hide or reorder the
lab's own words around it.
"""

import unicodedata

QUOTED_CHARS = 80  # a quoted value's characters shown before "…"
# Characters that draw nothing or move other text: format (bidi overrides and isolates, U+200E/F, U+061C,
# zero-width spaces, ...), control, surrogate, line and paragraph separators. The joiners U+200C/U+200D
# stay: Persian and Indic words and emoji need them, and they reorder nothing.
_HIDDEN = frozenset({"Cf", "Cc", "Cs", "Zl", "Zp"})
_KEPT = frozenset("\u200c\u200d")


def _shown(c: str) -> str:
    if unicodedata.category(c) not in _HIDDEN or c in _KEPT:
        return c
    return f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}"


def visible(text: str) -> str:
    """`text` with each character that draws nothing or reorders text written as its escape, e.g. "\\u202e"."""
    return "".join(map(_shown, str(text)))


def quote(text, most: int = QUOTED_CHARS, marks: str = "''") -> str:
    """`text` in `marks` ("" for none) for a message: its hidden characters escaped (`visible`), and cut once it shows
    more than `most` characters, saying so (a cut number would read as another)."""
    text, shown, n = str(text), [], 0
    left, right = (marks[0], marks[-1]) if marks else ("", "")
    for c in text[: most + 1]:  # an escape is never cut in two
        n += len(piece := _shown(c))
        if n > most:
            return f"{left}{''.join(shown)}…{right} ({len(text):,} characters)"
        shown.append(piece)
    return f"{left}{''.join(shown)}{right}"


class ConfigError(ValueError):
    """A lesson setting that cannot work, explained; `field` names the setting."""

    def __init__(self, message: str, field: str = ""):
        super().__init__(message)
        self.field = field


class ModelMissing(ConfigError):
    """The trained model's package is not installed on this machine: a lesson on it cannot be made here,
    though nothing in its settings is wrong (a deck keeps such a screen, and says it is not ready)."""


def check(ok: bool, field: str, message: str):
    """Refuse a setting (`field`) that cannot work, saying why in `message`."""
    if not ok:
        raise ConfigError(message, field)
