"""An image slide's picture (classroom/screens.py's `image` kind): a PNG, JPEG or SVG file beside its deck, read
once with the deck and kept in it as bytes, so the projector (st.image, never HTML) and the handout (a data: URI)
show what was checked here, and nothing is opened again by a name.

A deck is a file teachers share, so its picture may be hostile too:
- **Where**: a file name alone (letters, digits, ".", "-", "_"; no folder, no "..", nothing absolute), opened inside
  the deck's own folder (its descriptor, `dir_fd`) without following a link (O_NOFOLLOW: a link is refused,
  wherever it points) and without blocking (a FIFO is refused, never waited on); it must be a regular file.
- **What**: its first bytes say PNG, JPEG or SVG, as its name's ending does; at most MAX_IMAGE_BYTES (5 MB) a
  picture and MAX_DECK_IMAGE_BYTES (20 MB) a deck. A PNG's or JPEG's size in pixels, read from its header, is at
  most MAX_SIDE a side and MAX_PIXELS in all: Streamlit decodes a picture wider than its page to shrink it, and a
  5 MB file can declare a picture of gigabytes.
- **SVG**: refused unless it draws only (a whitelist, `_SVG_ELEMENTS`): no script, foreignObject, embedded
  image, link, animation, event handler (`on...`), reference outside the file (an href or url() that is not
  "#id", a style's @import), DOCTYPE (entities) or stylesheet processing instruction. Refused, not cleaned: what
  is shown is the teacher's file as it is, and a file that needed cleaning is not one to show to a class. Not
  rasterised either: that needs a renderer (cairosvg, resvg) the lab does not ship, and a browser draws an SVG
  in an <img> with its scripts and loads off in any case; the whitelist keeps that so if the file is ever
  opened on its own.
"""

import errno
import os
import re
import stat
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from classroom.deck_file import file_stamp
from core.errors import quote

MAX_IMAGE_BYTES = 5 * 1024 * 1024
MAX_DECK_IMAGE_BYTES = 20 * 1024 * 1024
MAX_SIDE, MAX_PIXELS = 10_000, 40_000_000  # a 4K projector is 3840 × 2160 (8.3 Mpx)
FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".svg": "image/svg+xml"}
_PNG, _JPEG = b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff"
_SVG_NS, _XHTML_NS, _MATHML_NS = "http://www.w3.org/2000/svg", "http://www.w3.org/1999/xhtml", \
    "http://www.w3.org/1998/Math/MathML"
# What an SVG of a deck may hold: shapes, text, groups, gradients, clips, masks, markers, filters that draw.
_SVG_ELEMENTS = frozenset("""
    svg g defs symbol use path rect circle ellipse line polyline polygon text tspan textPath title desc metadata
    linearGradient radialGradient stop clipPath mask pattern marker style switch
    filter feBlend feColorMatrix feComponentTransfer feComposite feDropShadow feFlood feFuncA feFuncB feFuncG feFuncR
    feGaussianBlur feMerge feMergeNode feMorphology feOffset feTile feTurbulence
""".split())
_OUTSIDE = re.compile(r"(?i)url\(\s*['\"]?\s*(?!#)|@import|javascript:|expression\(")
_NAMES_WHAT = ("a deck's SVG draws shapes, text and gradients only: no scripts, embedded pages or pictures, "
               "links, animations, event handlers or references outside the file.")


@dataclass(frozen=True)
class Picture:
    name: str  # the file's name, beside the deck
    mime: str  # image/png, image/jpeg or image/svg+xml
    data: bytes
    alt: str  # what it shows, in words (a screen reader's, and the handout's when it cannot show it)


class PictureError(ValueError):
    """Why a file is no picture of a deck, in a teacher's words."""


class Beside:
    """The folder of a deck being read, and the pictures read from it: their total is bounded, and each file's
    stamp is kept with the deck (or its refusal), which is read again when one changes (deck_file.load_once)."""

    def __init__(self, folder: str):
        self.folder, self.total, self.seen = folder, 0, {}

    def read(self, name: str) -> tuple[str, bytes]:
        check_name(name)
        path = os.path.join(self.folder, name)
        self.seen[path] = file_stamp(path)
        mime, data = read_picture(self.folder, name)
        self.total += len(data)
        if self.total > MAX_DECK_IMAGE_BYTES:
            raise PictureError(f"the deck's pictures come to {self.total / 1024 / 1024:.1f} MB with this one; a deck's "
                               f"pictures are at most {MAX_DECK_IMAGE_BYTES // 1024 // 1024} MB in all.")
        return mime, data

    def files(self) -> tuple:
        return tuple(self.seen.items())


def check_name(name: str):
    """PictureError unless `name` is a picture file's name alone."""
    if "/" in name or "\\" in name or os.path.isabs(name) or name in (".", ".."):
        raise PictureError(f"an image is a file beside the deck, named without a folder ('diagram.png'); got "
                           f"{quote(name)}.")
    ending = os.path.splitext(name)[1].lower()
    if not FILE_NAME.fullmatch(name) or ending not in MIME:
        raise PictureError(f"an image is a .png, .jpg, .jpeg or .svg file named with letters, digits, '.', '-' and "
                           f"'_'; got {quote(name)}.")


def read_picture(folder: str, name: str) -> tuple[str, bytes]:
    """(its MIME type, its bytes) of the picture file `name` in the folder `folder`; PictureError says why not."""
    check_name(name)
    ending = os.path.splitext(name)[1].lower()
    data = _read(folder, name)
    kind = "png" if data.startswith(_PNG) else "jpeg" if data.startswith(_JPEG) else "svg" if _svgish(data) else ""
    said = {".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".svg": "svg"}[ending]
    if kind != said:
        got = f"its bytes are {kind.upper()}" if kind else "its bytes are no PNG, JPEG or SVG"
        raise PictureError(f"the file {quote(name)} is named {ending} but {got}.")
    if kind == "svg":
        _check_svg(data, name)
    else:
        width, height = (_png_size if kind == "png" else _jpeg_size)(data, name)
        if width > MAX_SIDE or height > MAX_SIDE or width * height > MAX_PIXELS:
            raise PictureError(f"the picture {quote(name)} is {width:,} × {height:,} pixels; at most {MAX_SIDE:,} a "
                               f"side and {MAX_PIXELS // 1_000_000} megapixels fit (a projector shows 3840 × 2160 "
                               "at most).")
    return MIME[ending], data


def _read(folder: str, name: str) -> bytes:
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        where = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:
        raise PictureError(f"the deck's folder cannot be read ({err.strerror}).") from None
    try:
        fd = os.open(name, flags, dir_fd=where)
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.EMLINK):  # O_NOFOLLOW's answer for a link
            raise PictureError(f"the file {quote(name)} is a link; put the picture itself beside the deck.") from None
        raise PictureError(f"there is no picture {quote(name)} beside the deck ({err.strerror}).") from None
    finally:
        os.close(where)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise PictureError(f"{quote(name)} is not a file.")
        if info.st_size > MAX_IMAGE_BYTES:
            raise PictureError(_too_large(name, info.st_size))
        with os.fdopen(fd, "rb", closefd=False) as file:
            data = file.read(MAX_IMAGE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_IMAGE_BYTES:  # it grew since
        raise PictureError(_too_large(name, len(data)))
    return data


def _too_large(name: str, size: int) -> str:
    return (f"the picture {quote(name)} is {size / 1024 / 1024:.1f} MB; a picture of a deck is at most "
            f"{MAX_IMAGE_BYTES // 1024 // 1024} MB.")


def _svgish(data: bytes) -> bool:
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith((b"<?xml", b"<svg", b"<!--"))


def _png_size(data: bytes, name: str) -> tuple[int, int]:
    if len(data) < 24 or data[12:16] != b"IHDR":
        raise PictureError(f"the PNG {quote(name)} is not a complete PNG file.")
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _jpeg_size(data: bytes, name: str) -> tuple[int, int]:
    """The size a JPEG's frame header (a SOF marker) declares."""
    at = 2
    while at + 9 <= len(data):
        if data[at] != 0xFF:
            break
        marker, length = data[at + 1], int.from_bytes(data[at + 2:at + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return int.from_bytes(data[at + 7:at + 9], "big"), int.from_bytes(data[at + 5:at + 7], "big")
        at += 2 + length
    raise PictureError(f"the JPEG {quote(name)} is not a complete JPEG file (no frame header).")


def _check_svg(data: bytes, name: str):
    """Refuse an SVG that does more than draw (the module's docstring)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise PictureError(f"the SVG {quote(name)} is not UTF-8 text.") from None
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        raise PictureError(f"the SVG {quote(name)} holds a DOCTYPE; {_NAMES_WHAT}")
    if "<?xml-stylesheet" in text:
        raise PictureError(f"the SVG {quote(name)} loads a stylesheet; {_NAMES_WHAT}")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as err:
        raise PictureError(f"the SVG {quote(name)} is not well-formed XML ({err}).") from None
    if root.tag != f"{{{_SVG_NS}}}svg":
        raise PictureError(f"the file {quote(name)} is no SVG: its first element is not <svg> in the SVG namespace.")
    for element in root.iter():
        space, _, local = element.tag.rpartition("}") if isinstance(element.tag, str) else ("", "", "")
        space = space.lstrip("{")
        if space in (_XHTML_NS, _MATHML_NS) or (space == _SVG_NS and local not in _SVG_ELEMENTS):
            raise PictureError(f"the SVG {quote(name)} holds a <{local}> element; {_NAMES_WHAT}")
        for key, value in element.attrib.items():
            attribute = key.rpartition("}")[2]
            if attribute.lower().startswith("on"):
                raise PictureError(f"the SVG {quote(name)} holds an event handler ({attribute}); {_NAMES_WHAT}")
            if attribute == "href" and not value.strip().startswith("#") or _OUTSIDE.search(value):
                raise PictureError(f"the SVG {quote(name)} refers outside itself ({attribute}={quote(value, 40)}); "
                                   f"{_NAMES_WHAT}")
        if local == "style" and _OUTSIDE.search(element.text or ""):
            raise PictureError(f"the SVG {quote(name)} has a style that refers outside itself; {_NAMES_WHAT}")
