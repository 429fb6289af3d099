"""Shared manim pieces: text without LaTeX, attention grids, bar rows and formula boxes.

Every number is drawn from an array handed in (a slice of `run_trace`'s arrays); nothing
here computes attention. Text is built once per string and copied, because building a
Pango `Text` costs milliseconds and a scene draws hundreds of cells.
"""

import math
import re
from functools import lru_cache

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, MarkupText, Rectangle, Text, VGroup, VMobject

from animations import outline, style
from animations.legibility import MIN_NUMBER_HEIGHT, MIN_TEXT_HEIGHT, contrast, digit_height, least_font_size
from core.trace import shown_token

MAX_SHOWN = 8  # tokens (rows/columns) a grid shows; more would not be legible on a projector
NUMBER_FONT = math.ceil(least_font_size(MIN_NUMBER_HEIGHT))  # 16: the least size of a number in a cell
TEXT_FONT = math.ceil(least_font_size(MIN_TEXT_HEIGHT))  # 19: the least size of any other text
NUMBER_ROOM = 0.88  # a number may fill this share of its cell's width (more and neighbours run together)
LABEL_BUFF = 0.12  # between a grid and its token labels
MINUS_INF = "−∞"


def fmt(value: float) -> str:
    """How every number is printed: two decimals, and −∞ for a blocked score."""
    if math.isinf(value) and value < 0:
        return MINUS_INF
    return f"{value:.2f}"


class Label(VMobject):
    """The outlines of a Pango `Text` as one plain VMobject, with the string in `.text`.

    A `Text` is a group of glyph objects, slow to copy (every Transform and FadeIn copies);
    one VMobject holding the same outlines copies about a hundred times faster.
    `font_size` follows any scaling since it was built (a quarter turn keeps it).
    """

    def __init__(self, text: str = "", size: float = 0.0, **kwargs):
        super().__init__(**kwargs)
        self.text, self.built_size, self.built_extent = text, size, 0.0

    @property
    def font_size(self) -> float:
        if not self.built_extent:
            return self.built_size
        return self.built_size * max(self.width, self.height) / self.built_extent


def _as_label(points: np.ndarray, text: str, size: int) -> Label:
    """Glyph outlines (each glyph and each hole its own closed subpath) as one Label."""
    mob = Label(text, size)
    mob.append_points(points)
    mob.built_extent = max(mob.width, mob.height) if mob.has_points() else 0.0
    return mob.set_stroke(width=0).set_fill(style.TEXT_LIGHT, opacity=1)


def _flat(glyphs, text: str, size: int) -> Label:
    """The glyphs' outlines as one Label."""
    points = [glyph.points for glyph in glyphs.family_members_with_points()]
    return _as_label(np.concatenate(points) if points else np.zeros((0, 3)), text, size)


@lru_cache(maxsize=4096)
def _template(text: str, size: int, font: str, weight: str) -> Label:
    # Text's outlines without its per-glyph objects (test_text_path: the same points as Text's)
    points = outline.text_points(text, font, size, weight)
    if points is None:
        return _flat(Text(text, font=font, font_size=size, weight=weight), text, size)
    return _as_label(points, text, size)


def label(text: str, size: int = 24, color: str = style.TEXT_LIGHT, mono: bool = False,
          bold: bool = False) -> Label:
    """Text without LaTeX, built once per (string, size) and copied afterwards. A role colour is
    drawn in its variant for text on the dark background (style.text_color: the query's blue is
    lightened to 4.5:1)."""
    font = style.MONO_FONT if mono else style.FONT
    mob = _template(str(text), int(size), font, "BOLD" if bold else "NORMAL").copy()
    return mob.set_fill(style.text_color(color), opacity=1)


def number(value: float, size: int, color: str = style.TEXT_LIGHT) -> Label:
    """A value as every grid prints it (see fmt), marked as a number for the legibility checks."""
    mob = label(fmt(value), size, color)
    mob.tier = "number"
    return mob


@lru_cache(maxsize=256)
def _formula(markup: str, size: int) -> Label:
    points = outline.markup_points(markup, style.FONT, size)
    if points is None:
        return _flat(MarkupText(markup, font=style.FONT, font_size=size), markup, size)
    return _as_label(points, markup, size)


def formula(markup: str, size: int = 26, color: str = style.TEXT_LIGHT) -> Label:
    """A formula in Pango markup, e.g. `Q·K<sup>T</sup> / √d<sub>k</sub>` (no LaTeX), as one Label
    (`.text` holds the markup): built once, copied afterwards, as label() does."""
    return _formula(markup, int(size)).copy().set_fill(color, opacity=1)


def ink_for(fill: str) -> str:
    """Black or white, whichever has the higher WCAG contrast with the cell (at least 4.58:1)."""
    dark, light = contrast(style.INK_DARK, fill), contrast(style.INK_LIGHT, fill)
    return style.INK_DARK if dark >= light else style.INK_LIGHT


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
    from, so tests can compare what is drawn with `run_trace`. `fit_height`: the height the
    squares and the column labels above them may take together; the cells shrink to fit it
    (a scene that shrank the whole grid afterwards would shrink its numbers below legibility).
    """

    def __init__(self, values, row_labels=(), col_labels=(), kind="weights", cell=0.74,
                 show_numbers=None, color=style.QUERY, limit=None, tag=None, label_size=20, mask=None,
                 fit_height=None):
        super().__init__()
        # a token of punctuation only is marked, "⟨.⟩", as on the dashboard's axes: a bare "." is a speck
        row_labels, col_labels = [shown_token(t) for t in row_labels], [shown_token(t) for t in col_labels]
        self.values = np.asarray(values, dtype=float)
        if self.values.ndim == 1:
            self.values = self.values[None, :]
        self.kind, self.tag = kind, tag
        cell_w, cell_h = cell if isinstance(cell, tuple) else (cell, cell)  # a pair: wide matrices
        rows, cols = self.values.shape
        label_size = max(TEXT_FONT, label_size)
        if fit_height is not None and len(col_labels):
            shrink = _shrink_to_fit(col_labels, label_size, cell_w, cell_h, rows, fit_height)
            cell_w, cell_h = cell_w * shrink, cell_h * shrink
        self.cell = cell_w
        self.font_size = number_size(self.values, cell_w, cell_h)
        self.show_numbers = self.font_size >= NUMBER_FONT if show_numbers is None else show_numbers
        self.numbers_dropped = not self.show_numbers and self.font_size < NUMBER_FONT  # the footnote says so
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
                    row_num.add(number(self.values[i, j], self.font_size, ink_for(fill)).move_to(sq))
            self.squares.add(row_sq)
            self.numbers.add(row_num)
            self.square_rows.append(row_sq)
            self.number_rows.append(row_num)
        self.add(self.squares, self.numbers)
        self.row_labels = VGroup(*[label(t, label_size).next_to(self.square_rows[i], LEFT, buff=LABEL_BUFF)
                                   for i, t in enumerate(row_labels)])
        # one long word stands every label upright: a row of labels half turned reads as a mistake
        self.upright_labels = any(_upright(label(t, label_size), cell_w) for t in col_labels)
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
        if self.upright_labels:
            mob.rotate(math.pi / 2)
        return mob.next_to(self.square_rows[0][j], UP, buff=LABEL_BUFF)

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


def _upright(mob, cell: float) -> bool:
    """Long words stand upright above their column."""
    return mob.width > cell * 0.8


def _shrink_to_fit(col_labels, size, cell_w, cell_h, rows, fit_height) -> float:
    """How much the cells shrink so that rows of them and the column labels (upright ones are
    taller) fit in `fit_height` (1: they fit as they are)."""
    labels = [label(t, size) for t in col_labels]
    shrink = 1.0
    for _ in range(2):  # smaller cells may stand more labels upright: look again once
        upright = any(_upright(m, cell_w * shrink) for m in labels)  # then all stand, as AttentionGrid draws them
        tallest = max(m.width if upright else m.height for m in labels)
        shrink = min(1.0, (fit_height - tallest - LABEL_BUFF) / (rows * cell_h))
    return shrink


def number_size(values, cell_w: float, cell_h: float, largest: int = 20) -> int:
    """The font size at which every number of `values` fits its cell (NUMBER_ROOM of its width,
    half its height), up to `largest`; below NUMBER_FONT the grid shows colour only."""
    shapes = {re.sub(r"\d", "0", fmt(v)) for v in np.unique(np.asarray(values, dtype=float))}  # tabular digits
    widest = max(label(shape, largest).width for shape in shapes)
    tallest = digit_height(largest)
    return min(largest, math.floor(largest * min(NUMBER_ROOM * cell_w / widest, 0.5 * cell_h / tallest)))


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
            group.texts_drawn.add(number(w, size).next_to(RIGHT * j * slot + UP * height, UP, buff=0.05))
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
