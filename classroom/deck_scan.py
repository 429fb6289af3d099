"""A deck file's text scanned before tomllib reads it, for what tomllib would spend minutes and gigabytes on.

tomllib keeps every prefix of a dotted key ("a.b.c" keeps "a" and "a.b") for each key, so a key of n parts
costs it n² in time and memory: one 40 KB line of "a.a.a..." took 37 s and 1.9 GB, an 80 KB one ended in a
MemoryError. classroom/deck_file.py refuses a file that this scan finds fault with, before parsing it.
"""

import re

# Settings ("=") in a file: the default deck has 217; 200 screens of a dozen settings and a lesson are 5,000.
MAX_KEYS = 10_000
# TOML's tokens as far as key_problem needs them: strings (whose insides are no keys), comments, bare words (a
# key's part, or a number, a date, true), and any other single character.
_TOKEN = re.compile(r"""
    (?P<space>[ \t\r]+) | (?P<line>\n) | (?P<comment>\#[^\n]*)
  | (?P<part>\"\"\"(?:[^"\\]|\\[\s\S]|"(?!""))*\"\"\""{0,2} | '''[\s\S]*?''''{0,2}
      | "(?:[^"\\\n]|\\.)*" | '[^'\n]*' | [A-Za-z0-9_+-]+)
  | (?P<mark>.)
""", re.X)


def key_problem(text: str, name: str, most_parts: int, most_depth: int) -> str:
    """Why tomllib must not read `text` (the file `name`, quoted), or "": a key or a table's name of more than
    `most_parts` dotted parts, tables or arrays nested deeper than `most_depth`, or more than MAX_KEYS settings.
    One pass over the text, milliseconds where tomllib would take minutes and gigabytes. A number's "1.5" counts
    as two parts; strings and comments are passed over whole."""
    parts = keys = depth = 0
    dot = False  # the last token was a "." after a part: the next part continues the same key
    for m in _TOKEN.finditer(text):
        kind, token = m.lastgroup, m[0]
        if kind in ("space", "comment"):
            continue
        if kind == "part":
            parts, dot = parts + 1 if dot else 1, False
            if parts > most_parts:
                return (f"line {_line(text, m.start())} of the deck file {name} names a key of more than "
                        f"{most_parts} dotted parts: its tables would nest deeper than a deck needs.")
            continue
        dot, parts = token == "." and parts > 0 and not dot, parts if token == "." else 0
        if token == "=":
            keys += 1
            if keys > MAX_KEYS:
                return (f"the deck file {name} holds more than {MAX_KEYS:,} settings (line "
                        f"{_line(text, m.start())}); a deck holds a few hundred.")
        elif token in "[{":
            depth += 1
            if depth > most_depth:
                return (f"line {_line(text, m.start())} of the deck file {name}: tables or arrays are "
                        "nested here deeper than a deck needs.")
        elif token in "]}":
            depth = max(depth - 1, 0)
    return ""


def _line(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1
