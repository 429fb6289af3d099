"""A teacher's deck folder for the tests of text and image slides: small pictures made here (a PNG written by
hand: its bytes are the format's, no imaging library), and a deck file of one screen of each kind."""

import struct
import zlib
from pathlib import Path

PAGE = 'kind = "page"\ntitle = "Masking"\nminutes = 2\npage = "masking"\nnotes = "The page screen\'s notes."'
QUESTION = ('kind = "question"\ntitle = "Predict the focus"\nminutes = 2\nquestion = "focus"\n'
            'notes = "The question screen\'s notes."')
VIDEO = 'kind = "video"\ntitle = "The scores video"\nminutes = 2\nscene = "scores"\nnotes = "The video\'s notes."'
BODY = "# Why attention\\n- every token **looks** at the others\\n- the weights sum to $1$\\n\\nSee `softmax`."
TEXT = (f'kind = "text"\ntitle = "What we saw"\nminutes = 1\nbody = "{BODY}"\n'
        'notes = "Recap slowly, then ask who has seen a softmax."')
IMAGE = ('kind = "image"\ntitle = "The block"\nminutes = 1\nimage = "dot.png"\nalt = "A red dot on white"\n'
         'notes = "Point at the dot."')


def png(width: int = 4, height: int = 3, pad: int = 0) -> bytes:
    """A red RGB PNG of `width` × `height` pixels (`pad` bytes of a private chunk make it as large as a test
    needs; a decoder skips it)."""
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    padding = chunk(b"prVt", b"\x00" * pad) if pad else b""
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + padding + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def deck(*screens: str, title: str = "Week 3") -> str:
    return f'title = "{title}"\n' + "".join(f"\n[[screen]]\n{s}\n" for s in screens)


def teachers_deck(folder: Path, name: str = "week-3") -> Path:
    """The acceptance deck: text, image, page, question and video screens, and its picture beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dot.png").write_bytes(png())
    path = folder / f"{name}.toml"
    path.write_text(deck(TEXT, IMAGE, PAGE, QUESTION, VIDEO), encoding="utf-8")
    return path
