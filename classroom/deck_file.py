"""A deck file read safely: its size, its text, its TOML and its nesting are bounded before any screen
is read, and every string it holds is checked to be plain text. Each refusal is a `DeckError` that
names the screen and the field in a teacher's words (classroom/decks.py reads the screens).

A deck is shared between teachers, so a file may be hostile: huge, nested without end, full of
control characters, or quoting links. None of that gets further than this module.
"""

import os
import re
import stat
import threading
import tomllib
from collections import OrderedDict
from difflib import get_close_matches

from classroom.deck_scan import key_problem
from classroom.deck_text import PAGE_LINK
from core.errors import quote, visible
from core.model_json import too_deep

MAX_DECK_BYTES = 256 * 1024  # a 50-minute deck with long notes is a few tens of KB
# How deep a deck nests, counting the file itself as 1: the list of screens (2), a screen (3), its lesson,
# view or film table (4), a hand-entered matrix (5) and its rows (6). Anything deeper is no deck.
MAX_DEPTH = 6
# A key or a table's name of more dotted parts nests deeper than a deck may: refused before tomllib reads the
# file, which spends n² on a key of n parts (classroom/deck_scan.py).
MAX_KEY_PARTS = MAX_DEPTH
# A plain text holds no character that draws nothing or reorders text (core.errors.visible's), but for
# tabs and line breaks (\r\n too: a file saved on Windows).
_BREAKS = str.maketrans("", "", "\t\n\r")
# A link in a text: a scheme ("https://", "ftp://"), "www." or a script. A deck's texts point at no
# place outside the lab; a screen names one of the lab's pages instead.
_LINK = re.compile(r"(?i)[a-z][a-z0-9+.-]*://|\bwww\.|\bjavascript:")
# A Markdown link or image (classroom/deck_text.py): a link goes to a page of the lab, and a deck shows no image.
_MARKDOWN_LINK = re.compile(r"(!?)\[[^\[\]\n]*\]\(([^)\n]*)")


class DeckError(ValueError):
    """A deck that cannot be used, explained: `screen` is its number (1 = the first; 0 = the deck as a
    whole) and `field` the setting, as the file writes it ("minutes", "lesson.d_model")."""

    def __init__(self, message: str, screen: int = 0, field: str = ""):
        super().__init__(message)
        self.screen, self.field = screen, field


def where(screen: int, title: str, field: str) -> str:
    """'Screen 4 ('Softmax'), field minutes', as a message starts ("" for the file as a whole)."""
    place = f"Screen {screen}" + (f" ({quote(title)})" if title else "") if screen else "The deck"
    return f"{place}, field {field}" if field else place if screen else ""


def fail(message: str, screen: int = 0, title: str = "", field: str = "") -> DeckError:
    """A DeckError whose message starts with the screen and the field it names."""
    start = where(screen, title, field)
    return DeckError(f"{start}: {message}" if start else message[:1].upper() + message[1:], screen, field)


def open_deck(path, name: str) -> tuple[int, os.stat_result]:
    """The file opened for reading (a descriptor, for read_bytes) and its stat, once it is known to be a regular
    file within MAX_DECK_BYTES. It is opened without blocking, then checked: a FIFO, a device or a folder is
    refused at once, never waited on (a FIFO with no writer would block `open` itself)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as err:
        raise fail(f"the deck file {quote(name)} cannot be read ({err.strerror or 'not a file'}).") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_DECK_BYTES:
        os.close(fd)
        raise fail(f"the deck file {quote(name)} cannot be read (it is not a file)." if not stat.S_ISREG(info.st_mode)
                   else _too_large(name))
    return fd, info


# What load_once read, a deck or the DeckError that refused the file, by the file as it was: (its path, device,
# inode, mtime_ns, size) and the names it was checked against. A refusal is kept too: a hostile file is refused
# once per edit, not once per visit.
_LOADED: OrderedDict = OrderedDict()
_LOADED_MOST = 16
_LOADED_LOCK = threading.Lock()


def load_once(path, names, parse):
    """`parse(its bytes, its name, names)` of the file at `path`, kept until the file changes (its mtime or
    size), or one of the other files it read does (`files` of what it returned or raised: (path, file_stamp)
    pairs, an image slide's pictures); a DeckError it raised is raised again, as a new one, without reading the
    file."""
    name = os.path.basename(os.fspath(path))
    fd, info = open_deck(path, name)
    try:
        key = (os.path.abspath(path), info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size, names)
        with _LOADED_LOCK:
            found = _LOADED.get(key)
            if found is not None:
                _LOADED.move_to_end(key)
        if found is not None and any(file_stamp(other) != was for other, was in getattr(found, "files", ())):
            found = None
        if found is None:
            try:
                found = parse(read_bytes(fd), name, names)
            except DeckError as err:
                found = err
            with _LOADED_LOCK:
                _LOADED[key] = found
                while len(_LOADED) > _LOADED_MOST:
                    _LOADED.popitem(last=False)
    finally:
        os.close(fd)
    if isinstance(found, DeckError):  # a fresh one each time: a raised error gathers its traceback
        raise DeckError(str(found), found.screen, found.field) from None
    return found


def file_stamp(path):
    """A file's (device, inode, mtime, size) as it is now, its link's if it is one; None if there is none."""
    try:
        info = os.stat(path, follow_symlinks=False)
    except (OSError, ValueError):
        return None
    return (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size)


def forget_loaded():
    """Read every deck file again on its next load (what a deck can show depends on the machine too: whether
    the trained model is installed)."""
    with _LOADED_LOCK:
        _LOADED.clear()


def read_bytes(fd: int) -> bytes:
    """The bytes of a file that open_deck opened, reading no more than one byte past the limit (a file that
    grew since is not read whole)."""
    with os.fdopen(fd, "rb", closefd=False) as file:
        return file.read(MAX_DECK_BYTES + 1)


def _too_large(name: str) -> str:
    return (f"the deck file {quote(name)} is larger than {MAX_DECK_BYTES // 1024} KB; a deck is a short text "
            "file of screens and notes.")


def parse_toml(text: str | bytes, name: str) -> dict:
    """The file's TOML as a dict, once its size, encoding, characters and nesting are within bounds."""
    size = len(text) if isinstance(text, bytes) or len(text) > MAX_DECK_BYTES else len(_utf8(text, name))
    if size > MAX_DECK_BYTES:
        raise fail(_too_large(name))
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            line = text[:err.start].count(b"\n") + 1
            raise fail(f"the deck file {quote(name)} is not UTF-8 text (line {line} holds bytes that are not "
                       "characters).") from None
    if (at := hidden_at(text)) >= 0:
        raise fail(f"line {text[:at].count(chr(10)) + 1} of the deck file holds an invisible character "
                   f"({visible(text[at])}); a deck is plain text.")
    if why := key_problem(text, quote(name), MAX_KEY_PARTS, MAX_DEPTH):
        raise fail(why)
    try:
        data = tomllib.loads(text)
    except RecursionError:  # tomllib reads nested arrays and inline tables by recursion
        raise fail("the deck file nests arrays or tables inside each other far deeper than a deck does.") from None
    except ValueError as err:  # tomllib's TOMLDecodeError, or an integer too long to read
        raise fail(f"the deck file {quote(name)} is not valid TOML: {str(err)[:200]}.") from None
    check_depth(data)
    return data


def _utf8(text: str, name: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no file holds one
        raise fail(f"the deck {quote(name)} holds characters that are not text.") from None


def check_depth(data: dict) -> None:
    """Refuse anything nested deeper than MAX_DEPTH, naming the screen it is in (dotted keys, "a.b.c...",
    give tomllib a dict as deep as the file is long: core's walk uses no recursion)."""
    path = too_deep(data, MAX_DEPTH, level=1)
    if path is not None:
        screen = path[1] + 1 if len(path) > 1 and path[0] == "screen" and isinstance(path[1], int) else 0
        field = ".".join(str(p) for p in path[2 if screen else 0:][:3])
        raise fail("tables or arrays are nested here deeper than a deck needs.", screen, field=field)


def hidden_at(text: str) -> int:
    """Where `text`'s first character that draws nothing or reorders text is (tabs and line breaks
    aside), or -1."""
    flat = text.translate(_BREAKS)
    if visible(flat) == flat:  # one pass for the usual case
        return -1
    return next(i for i, c in enumerate(text) if c not in "\t\n\r" and visible(c) != c)


def plain_text(value: str, most: int) -> str:
    """Why `value` is not a plain text of at most `most` characters ("" when it is one)."""
    if len(value) > most:
        return f"this text is {len(value):,} characters long; at most {most:,} fit."
    if (at := hidden_at(value)) >= 0:
        return f"this text holds an invisible character ({visible(value[at])}); a deck is plain text."
    if link := _LINK.search(value):
        return (f"this text holds a link ({quote(link[0])}); a deck points at nothing outside the lab: name a "
                "source by its title instead.")
    for image, target in _MARKDOWN_LINK.findall(value):
        if image:
            return "this text holds an image (![...](...)); a deck shows no images in its texts."
        if not PAGE_LINK.fullmatch(target.strip()):
            return (f"this text links to {quote(target)}; a link in a deck goes to a page of the lab, written as its "
                    "address: [the masking page](masking).")
    return ""


class Reader:
    """One table of the file, read field by field; refuses keys it was not told of."""

    def __init__(self, table: dict, screen: int, title: str, known: tuple, prefix: str = "", beside=None):
        self.table, self.screen, self.title, self.prefix = table, screen, title, prefix
        self.beside = beside  # the deck's folder (classroom/deck_image.py's Beside), or None for a text alone
        for key in table:
            if key not in known:  # a typo is refused, never ignored
                close = get_close_matches(str(key), known, 1)
                hint = f"did you mean {quote(close[0])}? " if close else ""
                self.error(key, f"{quote(key)} is not a setting here; {hint}the settings are "
                           f"{', '.join(known)}.")

    def error(self, key: str, message: str):
        raise fail(message, self.screen, self.title, f"{self.prefix}{quote(key, marks='')}")

    def text(self, key: str, most: int, required: bool = False) -> str:
        value = self.table.get(key, None)
        if value is None:
            return self.error(key, "this setting is missing.") if required else ""
        if not isinstance(value, str):
            self.error(key, f"this must be a text in quotes, got {shown(value)}.")
        if why := plain_text(value, most):
            self.error(key, why)
        return value

    def number(self, key: str, low: float, high: float, whole: bool, default=None):
        value = self.table.get(key, default)
        if value is None:
            self.error(key, "this setting is missing.")
        is_number = isinstance(value, int) or (isinstance(value, float) and not whole)
        if isinstance(value, bool) or not is_number or not low <= value <= high:
            kind = "a whole number" if whole else "a number"
            self.error(key, f"this must be {kind} from {_number(low)} to {_number(high)}, got {shown(value)}.")
        return value

    def table_of(self, key: str) -> dict:
        value = self.table.get(key, {})
        if not isinstance(value, dict):
            self.error(key, f"this must be a table of settings ([screen.{key}] or {{ ... }}), got {shown(value)}.")
        return value


def shown(value) -> str:
    """A value of the file as a message quotes it: cut, its invisible characters written out."""
    if isinstance(value, (dict, list)):
        return "a table" if isinstance(value, dict) else "a list"
    return quote(str(value).lower() if isinstance(value, bool) else str(value))


def _number(x) -> str:
    return f"{x:,}" if isinstance(x, int) else f"{x:g}"
