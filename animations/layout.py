"""The text a frame shows, for tests: each string with its box, size, colour and what lies under it.

A scene records this at the end of every step (`LessonScene.record_layout`), so that tests can
check margins, overlaps, sizes and contrast on what is actually on stage, after every scaling
and every Transform, rather than on the sizes the code asked for.
"""

from dataclasses import dataclass

from manim import DL, UR, MarkupText, Text, VMobject

from animations.legibility import BACKGROUND, digit_height
from animations.mobjects import Label

COVERING = 0.5  # a shape drawn over a text with at least this fill opacity hides it (a mask's cover)


@dataclass(frozen=True)
class Drawn:
    text: str
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in frame units
    height: float  # of a digit or capital at the text's current size, in frame units
    tier: str  # "number" (inside a grid cell or above a bar) or "text"
    color: str  # the text's fill, hex
    backdrop: str  # the fill it is read against: a cell, a bar or the background, hex


def _is_text(mob) -> bool:
    return isinstance(mob, Label | Text | MarkupText)


def _box(mob) -> tuple[float, float, float, float]:
    (x0, y0, _), (x1, y1, _) = mob.get_corner(DL), mob.get_corner(UR)
    return x0, y0, x1, y1


def _contains(box, x, y) -> bool:
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def _in_drawing_order(mobjects) -> list:
    """Every text and every filled shape, in the order manim paints them (later on top)."""
    order = []

    def walk(mob):
        if _is_text(mob):
            order.append(mob)  # its glyphs are its own, not shapes under or over it
            return
        if isinstance(mob, VMobject) and mob.has_points() and mob.get_fill_opacity() > 0:
            order.append(mob)
        for sub in mob.submobjects:
            walk(sub)

    for mob in mobjects:
        walk(mob)
    return order


def _hex(mob) -> str:
    return mob.get_fill_color().to_hex().upper()


def texts_on_stage(mobjects) -> list[Drawn]:
    """The visible texts among `mobjects`: skipped are transparent ones and ones under a cover."""
    order = _in_drawing_order(mobjects)
    shapes = [(n, m, _box(m)) for n, m in enumerate(order) if not _is_text(m)]
    drawn = []
    for n, mob in enumerate(order):
        if not _is_text(mob) or mob.get_fill_opacity() == 0 or not mob.text.strip():
            continue
        x, y = mob.get_center()[:2]
        under = [m for k, m, box in shapes if k < n and _contains(box, x, y)]
        over = [m for k, m, box in shapes if k > n and _contains(box, x, y) and m.get_fill_opacity() >= COVERING]
        if over:
            continue
        backdrop = _hex(under[-1]) if under else BACKGROUND
        size = mob.font_size
        drawn.append(Drawn(mob.text, _box(mob), digit_height(size), getattr(mob, "tier", "text"),
                           _hex(mob), backdrop))
    return drawn
