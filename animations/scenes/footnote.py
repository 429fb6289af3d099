"""The footnote at the foot of every frame: what the picture leaves out, in small grey text.

One line at NOTE_SIZE, or two (split between its " · " parts) when one would run wider than
the content; never shrunk to fit, since that is what made it unreadable on a projector. When a
grid of the step shows colour only, because its cells are too small for legible numbers, the
footnote says so (COLOUR_ONLY).
"""

from manim import DOWN, LEFT, VGroup

from animations import style
from animations.mobjects import label

NOTE_SIZE = 20  # a digit 0.21 units high: 28 px at 1080p (animations/legibility.py sets the least sizes)
COLOUR_ONLY = "colour only where numbers would be too small to read"
SEPARATOR = " · "
LINE_GAP = 0.06
BOTTOM_BUFF, LEFT_BUFF = 0.15, 0.3


def join(*parts: str) -> str:
    return SEPARATOR.join(p for p in parts if p)


def lines(text: str, width: float) -> list[str]:
    """`text` as one line, or as two split at a separator, so that each fits `width`."""
    if label(text, NOTE_SIZE).width <= width:
        return [text]
    parts = text.split(SEPARATOR)
    for cut in range(len(parts) - 1, 0, -1):
        first, rest = SEPARATOR.join(parts[:cut]), SEPARATOR.join(parts[cut:])
        if label(first, NOTE_SIZE).width <= width and label(rest, NOTE_SIZE).width <= width:
            return [first, rest]
    return [text]  # no split fits: one line, scaled down below (the legibility tests flag it)


def build(text: str, width: float) -> VGroup:
    """The footnote, placed at the bottom left of the frame."""
    note = VGroup(*[label(line, NOTE_SIZE, color=style.NOTE_TEXT) for line in lines(text, width)])
    note.arrange(DOWN, aligned_edge=LEFT, buff=LINE_GAP)
    if note.width > width:
        note.scale_to_fit_width(width)
    note.text = text
    return note.to_edge(DOWN, buff=BOTTOM_BUFF).to_edge(LEFT, buff=LEFT_BUFF)
