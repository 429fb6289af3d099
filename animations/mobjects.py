"""Shared manim pieces: text without LaTeX, attention grids, bar rows and formula boxes.

Every number is drawn from an array handed in (a slice of `run_trace`'s arrays); nothing
here computes attention. Text is built once per string and copied, because building a
Pango `Text` costs milliseconds and a scene draws hundreds of cells.
"""

import math
from functools import lru_cache

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, MarkupText, Rectangle, Text, VGroup, VMobject

from . import style

MAX_SHOWN = 8  # tokens (rows/columns) a grid shows; more would not be legible at 480p
MIN_NUMBER_FONT = 14  # below this a number is a smudge at 480p: show colour only
MINUS_INF = "−∞"


def fmt(value: float) -> str:
    """How every number is printed: two decimals, and −∞ for a blocked score."""
    if math.isinf(value) and value < 0:
        return MINUS_INF
    return f"{value:.2f}"


class Label(VMobject):
    """The outlines of a Pango `Text` as one plain VMobject, with the string in `.text`.

    A `Text` is a group of glyph objects whose copy (every Transform and FadeIn copies)
    costs ~2 ms; one VMobject holding the same outlines copies ~100 times faster.
    """

    def __init__(self, text: str = "", **kwargs):
        super().__init__(**kwargs)
        self.text = text


@lru_cache(maxsize=4096)
def _template(text: str, size: int, font: str, weight: str) -> Label:
    glyphs = Text(text, font=font, font_size=size, weight=weight)
    mob = Label(text)
    for glyph in glyphs.family_members_with_points():
        mob.append_points(glyph.points)  # each glyph (and each hole) stays its own closed subpath
    return mob.set_stroke(width=0).set_fill(style.TEXT_LIGHT, opacity=1)


def label(text: str, size: int = 24, color: str = style.TEXT_LIGHT, mono: bool = False,
          bold: bool = False) -> Label:
    """Text without LaTeX, built once per (string, size) and copied afterwards."""
    font = style.MONO_FONT if mono else style.FONT
    return _template(str(text), int(size), font, "BOLD" if bold else "NORMAL").copy().set_fill(color, opacity=1)


def formula(markup: str, size: int = 26, color: str = style.TEXT_LIGHT) -> MarkupText:
    """A formula in Pango markup, e.g. `Q·K<sup>T</sup> / √d<sub>k</sub>` (no LaTeX)."""
    return MarkupText(markup, font=style.FONT, font_size=size, color=color)


def _luminance(color: str) -> float:
    r, g, b = style._hex_to_rgb(color)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ink_for(fill: str) -> str:
    """Dark text on light cells, light text on dark ones."""
    return style.TEXT_DARK if _luminance(fill) > 0.45 else style.TEXT_LIGHT


def weight_color(w: float) -> str:
    return style.interpolate(style.WEIGHT_STOPS, w)


def score_color(s: float, limit: float) -> str:
    """Diverging colour: blue below 0, orange above, symmetric around 0 up to ±limit."""
    if not math.isfinite(s):
        return style.MASKED
    return style.interpolate(style.SCORE_STOPS, 0.5 + 0.5 * s / (limit or 1.0))


def score_limit(values: np.ndarray) -> float:
    """The colour scale's half-range: the largest finite |score| shown (display only)."""
    finite = np.abs(values[np.isfinite(values)])
    return float(finite.max()) if finite.size else 1.0


class AttentionGrid(VGroup):
    """A grid of coloured squares with token labels, and `Text` numbers where they fit.

    `kind` picks the colour scale: "weights" (viridis, 0..1), "scores" (diverging),
    or a role colour ("vector") for Q/K/V rows. `tag` says which array the values came
    from, so tests can compare what is drawn with `run_trace`.
    """

    def __init__(self, values, row_labels=(), col_labels=(), kind="weights", cell=0.74,
                 show_numbers=None, color=style.QUERY, limit=None, tag=None, label_size=20, mask=None):
        super().__init__()
        self.values = np.asarray(values, dtype=float)
        if self.values.ndim == 1:
            self.values = self.values[None, :]
        self.kind, self.tag = kind, tag
        cell_w, cell_h = cell if isinstance(cell, tuple) else (cell, cell)  # a pair: wide matrices
        self.cell = cell_w
        rows, cols = self.values.shape
        self.font_size = min(20, round(min(cell_w, cell_h * 1.4) * 23))
        self.show_numbers = self.font_size >= MIN_NUMBER_FONT if show_numbers is None else show_numbers
        limit = limit if limit is not None else score_limit(self.values)
        self.squares, self.numbers = VGroup(), VGroup()
        self.square_rows, self.number_rows = [], []
        for i in range(rows):
            row_sq, row_num = VGroup(), VGroup()
            for j in range(cols):
                blocked = mask is not None and not mask[i][j]
                fill = style.MASKED if blocked else self._fill(self.values[i, j], limit, color)
                sq = Rectangle(width=cell_w, height=cell_h, stroke_width=1 if cell_w > 0.2 else 0.5,
                               stroke_color=style.TEXT_DARK)
                sq.set_fill(fill, opacity=1).move_to(RIGHT * j * cell_w + DOWN * i * cell_h)
                row_sq.add(sq)
                if self.show_numbers:
                    row_num.add(label(fmt(self.values[i, j]), self.font_size, ink_for(fill)).move_to(sq))
            self.squares.add(row_sq)
            self.numbers.add(row_num)
            self.square_rows.append(row_sq)
            self.number_rows.append(row_num)
        self.add(self.squares, self.numbers)
        label_size = min(label_size, round(cell_h * 40))  # a row label never outgrows its row
        self.row_labels = VGroup(*[label(t, label_size).next_to(self.square_rows[i], LEFT, buff=0.12)
                                   for i, t in enumerate(row_labels)])
        self.col_labels = VGroup(*[self._col_label(t, j, label_size) for j, t in enumerate(col_labels)])
        self.add(self.row_labels, self.col_labels)
        # the colours as built: a later Transform of this grid into another one changes the squares
        self.built_fills = [[sq.get_fill_color().to_hex().upper() for sq in row] for row in self.square_rows]

    def _fill(self, v, limit, color):
        if self.kind == "weights":
            return weight_color(v)
        if self.kind == "scores":
            return score_color(v, limit)
        return color

    def _col_label(self, text, j, size):
        mob = label(text, size)
        if mob.width > self.cell * 0.8:  # long words stand upright above their column
            mob.rotate(math.pi / 2)
        return mob.next_to(self.square_rows[0][j], UP, buff=0.12)

    def row(self, i) -> VGroup:
        return VGroup(self.square_rows[i], self.number_rows[i])

    def cell_at(self, i, j) -> VGroup:
        nums = self.number_rows[i]
        return VGroup(self.square_rows[i][j], *([nums[j]] if len(nums) else []))

    def texts(self) -> list[list[str]]:
        """The strings drawn in the cells (what a viewer reads)."""
        return [[t.text for t in row] for row in self.number_rows]

    def fills(self) -> list[list[str]]:
        """The cell colours as drawn when the grid was shown."""
        return self.built_fills


def bar_row(weights, width=4.0, height=1.6, color=style.KEY, size=16, tag=None) -> VGroup:
    """Vertical bars of `weights` (0..1), each labelled with its value where it fits."""
    n = len(weights)
    slot = width / n
    group = VGroup()
    group.bars, group.texts_drawn, group.tag, group.values = VGroup(), VGroup(), tag, np.asarray(weights)
    for j, w in enumerate(weights):
        bar = Rectangle(width=slot * 0.7, height=max(float(w) * height, 0.01), stroke_width=0)
        bar.set_fill(color, opacity=1).move_to(RIGHT * j * slot, aligned_edge=DOWN)
        group.bars.add(bar)
        if slot >= 0.45:
            group.texts_drawn.add(label(fmt(w), size).next_to(RIGHT * j * slot + UP * height, UP, buff=0.05))
    base = Rectangle(width=width, height=0.02, stroke_width=0).set_fill(style.TEXT_LIGHT, opacity=1)
    base.next_to(group.bars, DOWN, buff=0).align_to(group.bars, LEFT).shift(LEFT * slot * 0.15)
    group.add(group.bars, group.texts_drawn, base)
    return group


def cell_size(n: int, room: float = 5.6, largest: float = 0.74) -> float:
    """The side of a cell so that n of them fit in `room` units."""
    return min(largest, room / max(n, 1))


def shown(n: int) -> int:
    """How many tokens a grid shows."""
    return min(n, MAX_SHOWN)


def shown_note(n: int, what="tokens") -> str:
    """A footnote when only the first tokens fit on screen."""
    return f"first {MAX_SHOWN} of {n} {what} shown" if n > MAX_SHOWN else ""
