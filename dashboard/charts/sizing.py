"""How a heatmap fills the width it is given, in the browser, at any screen size and zoom.

Streamlit hands a `width="stretch"` chart the pixel width of its container; `autosize: fit-x`
makes Vega fit the whole chart (axes included) into it. Square cells then come from two Vega
signals: `lab_cell`, the cell size that fits the plot's width (and, for "one idea per screen",
85 % of the window's height), and `height`, which replaces Vega-Lite's own height signal
(a top-level param of that name does) with `lab_cell × rows`.

Cell numbers are printed as large as they fit (all at one size per chart) and only when that
size is at least the look's minimum; below it the tooltip carries them. Their ink is black or
white, whichever contrasts more with the cell's own colour, computed by Vega from the colour
scale itself (`contrast()` is WCAG's formula): one of the two always reaches 4.58:1.

The look (ordinary or projector) is a set of signal values that `draw.draw` sets per session
(`draw.set_look`), so a chart's spec, and its cached template, are the same for every look.

Projector mode is sized to the window (`lab_fit`): a projected picture is as large on the wall at
1280×720 as at 1920×1080, so its type is as large a share of the window's height at both (the
page's CSS does the same, display.page_css). Its sizes are those of a window `fit_height` px
high, and shrink with smaller windows; and a heatmap's plot takes at most `window_share` of the
window's height, what the page's title, controls and caption above it leave (one step per screen).
"""

import json
from dataclasses import dataclass
from functools import cached_property

INK_DARK, INK_LIGHT = "#000000", "#FFFFFF"  # the pair whose better choice always passes 4.5:1
DIGIT_EM = 0.64  # width of a digit, "." or "−" in DejaVu Sans, in ems (on average over "−0.43")
MAX_NUMBER_CELLS = 1024  # above this many cells no number can fit any screen: no text layer at all
# Cells drawn as SVG up to 16 × 16 (every element readable by the browser tests: cell text, its
# size and contrast); Canvas beyond (embed_options), which redraws a 23 × 23 heatmap (the Trained
# heads' open head) faster (docs/performance.md).
SVG_UP_TO = 256
AUTOSIZE = {"type": "fit-x", "contains": "padding"}
# A slide's heatmap: at most this share of the window's height; its title, controls, captions and key labels take
# the rest (measured in tests/dashboard/test_projector_slides.py at 1920×1080 and 1280×720, with the projector's
# text at 24 px or more at 1080p).
SLIDE_SHARE = 0.28
SLIDE_PANEL_CELL = 32  # px: a slide's panels sit side by side while each gives a cell this much (draw.panel_px)
PROJECTED_MIN_PX = 24  # a projector's smallest chart text at 1080p (scaled with the window): read from the back
KEY_BESIDE_PX = 70  # px at 1080p: a colour key beside a grid (its gradient, labels like "−1.0" and title at 24 px)
CELL_STEP = 64  # a cell's size is a whole number of 1/64 px: sums of such sizes are exact in floating point


@dataclass(frozen=True)
class Look:
    """Type sizes of the charts: `scale` multiplies every font; cell numbers between min and max px."""

    name: str
    scale: float
    min_number_px: float
    max_number_px: float
    max_cell_px: float
    window_share: float = 0.85  # a heatmap's plot is at most this share of the window's height
    fit_height: float = 0  # px: sizes are for a window this high, smaller in a lower one (0: fixed sizes)
    legible: bool = True  # projector mode: a cell never shrinks below what prints its number (False: a slide)
    # A heatmap's colour key beside its grid, not under it: a projected screen is wider than it is high, and the
    # height a key under the grid took is what lets the cells print their numbers at 24 px at 1080p (issue 48)
    key_beside: bool = False

    @cached_property  # the same values on every chart drawn: made once per look
    def signals(self) -> dict:
        return {"lab_type": self.scale, "lab_min_font": self.min_number_px, "lab_max_font": self.max_number_px,
                "lab_max_cell": self.max_cell_px, "lab_share": self.window_share, "lab_fit_height": self.fit_height,
                "lab_legible": self.legible}


ORDINARY = Look("ordinary", 1.0, 12, 20, 96)
# Under half the window: the title, the folded introduction, one row of controls and the step's caption
# take the rest (measured in tests/dashboard/test_projector.py at 1920×1080 and 1280×720).
PROJECTOR = Look("projector", 1.5, PROJECTED_MIN_PX, 32, 160, window_share=0.43, fit_height=1080, key_beside=True)
# A slide (the Trained heads' open head shown alone): the whole step in the window, whatever the sentence's
# length; a long sentence's cells may then be too small for their numbers (colour only; the tooltip has them).
SLIDE = Look("slide", 1.5, PROJECTED_MIN_PX, 32, 160, window_share=SLIDE_SHARE, fit_height=1080, legible=False,
             key_beside=True)
# 1 in a window fit_height high (or higher), less in a lower or narrower (than 16:9) one; never below half.
FIT = ("lab_fit_height > 0 && windowSize()[1] > 0 ? clamp(min(windowSize()[1], windowSize()[0] * 9 / 16) "
       "/ lab_fit_height, 0.5, 1) : 1")


def look_params(look: Look = ORDINARY) -> list[dict]:
    """The look's signals (values that draw.draw replaces per session) and `lab_fit`, which every
    size that grows with the look multiplies (`scaled`)."""
    return [*({"name": k, "value": v} for k, v in look.signals.items()), {"name": "lab_fit", "expr": FIT}]


def params(rows: int, cols: int, label_px: float, look: Look = ORDINARY) -> list[dict]:
    """The signals every heatmap shares; the look's values are defaults that draw.draw replaces.
    Sizes are values and the expressions never change, whatever the lesson (nothing typed reaches
    an expression: tests/classroom/test_hostile_text.py)."""
    window = "(windowSize()[1] > 0 ? windowSize()[1] * lab_share : 1e9)"
    # In projector mode the window's height never shrinks a cell below what prints "−0.43" at the
    # look's smallest size: a class reads the numbers, and scrolls for a long sentence's grid (not on a slide).
    # Rounded up to whole 1/CELL_STEP px, so that rounding the cell down below keeps it legible (at 720p the floor
    # of 20 px was 13.33 px, whose cell, 50.67 px, rounded down printed no number).
    legible = (f"(lab_fit_height > 0 && lab_legible ? ceil((lab_min_font * lab_fit * 5 * {DIGIT_EM} + 8) * {CELL_STEP})"
               f" / {CELL_STEP} : 0)")
    cell = f"max(2, min(width / lab_cols, lab_max_cell * lab_fit, max({window} / lab_rows, {legible})))"
    # Whole 1/CELL_STEP px: the plot (lab_cell × lab_cols) then ends exactly at or inside `width`. A cell of
    # width / lab_cols ends 1e-13 px past it for some widths, which fit-x rounds up to a pixel of overhang and
    # answers with a width 1 px narrower, whose plot fits; that width gives the pixel back, and so on: each
    # pass changes `height` (it follows the cell), which asks Vega to lay the chart out again, until the
    # stack overflows (a blank or half-drawn chart, a failed export).
    cell = f"floor({cell} * {CELL_STEP}) / {CELL_STEP}"
    values = {"lab_by_row": False, "lab_rows": rows, "lab_cols": cols, "lab_label_px": label_px}
    return [*look_params(look), *({"name": k, "value": v} for k, v in values.items()),
            {"name": "lab_cell", "expr": cell}, {"name": "height", "expr": "lab_cell * lab_rows"}]


def plot_width() -> dict:
    """The x range: square cells (narrower than the chart when the window's height caps the cell)."""
    return {"rangeMax": {"expr": "lab_cell * lab_cols"}}



def scaled(px: float) -> dict:
    """A font size that grows with the look; on a projector never below PROJECTED_MIN_PX (at 1080p)."""
    return {"expr": f"max({px} * lab_type * lab_fit, lab_fit_height > 0 ? {PROJECTED_MIN_PX} * lab_fit : 0)"}


def label_px(longest: int, px: float) -> float:
    """About how wide the longest key label is (DejaVu Sans, `px` high), plus a margin."""
    return round(longest * 0.6 * px + 8)


UPRIGHT = "lab_cell >= lab_label_px * lab_type * lab_fit"  # the key labels fit their cells standing upright


def label_angle(font: str = "0") -> dict:
    """Key labels stand upright while they fit their cell, and turn when they do not: by 50°, or straight up
    when the cell is too narrow for labels `font` px high (a Vega expression) turned by 50° to clear each other
    (their spacing across the text is the cell × sin 50°)."""
    return {"expr": f"{UPRIGHT} ? 0 : lab_cell * 0.766 >= ({font}) * 1.1 ? -50 : -90"}


def label_align() -> dict:
    """Upright labels centred under their cells, turned ones ending at their tick. Said outright: for an
    angle given by an expression, Vega-Lite's own alignment is null while the labels stand upright, and
    such labels then reach past the plot by an amount that follows the cell; fit-x answers each width with
    another, a pixel apart, until the stack overflows (in the browser: a chart left blank or half-drawn)."""
    return {"expr": f"{UPRIGHT} ? 'center' : 'right'"}


def js(text: str) -> str:
    """A Python string as a Vega expression string literal."""
    return json.dumps(text, ensure_ascii=False)


def ink(background: str) -> dict:
    """Black or white text, whichever contrasts more with `background` (a Vega expression)."""
    test = f"contrast({js(INK_DARK)}, {background}) >= contrast({js(INK_LIGHT)}, {background})"
    return {"condition": {"test": test, "value": INK_DARK}, "value": INK_LIGHT}


def number_transforms() -> list[dict]:
    """From the table's `lab_text` (the number as printed) and `lab_chars` (the longest one's length:
    cells.table), `lab_font` (one size for the whole chart: the largest at which the longest
    number fits its cell) and `lab_shown` (empty below the minimum, and then the cell has no text mark)."""
    return [
        {"calculate": f"min(lab_max_font * lab_fit, (lab_cell - 8) / (max(datum.lab_chars, 3) * {DIGIT_EM}))",
         "as": "lab_font"},
        {"calculate": "datum.lab_font >= lab_min_font * lab_fit ? datum.lab_text : ''", "as": "lab_shown"},
        # No mark at all for a number too small to print: each SVG text is its own paint chunk
        # (it has a transform), and a 23-token lesson's 529 empty texts a chart made the
        # browser's compositing cost more than all its script (Trained heads' head slider).
        {"filter": "datum.lab_shown !== ''"},
    ]


def number_encoding(background: str) -> dict:
    return {"text": {"field": "lab_shown", "type": "nominal"},
            "size": {"field": "lab_font", "type": "quantitative", "scale": None},
            "color": ink(background)}


def by_row_transforms(value: str, row: str) -> list[dict]:
    """`lab_shade`: the weight itself (0..1), or, with `lab_by_row`, the weight over its row's
    largest, so each row's strongest key is the brightest colour."""
    share = f"datum.lab_rowmax > 0 ? datum.{value} / datum.lab_rowmax : 0"
    return [{"joinaggregate": [{"op": "max", "field": value, "as": "lab_rowmax"}], "groupby": [row]},
            {"calculate": f"lab_by_row ? ({share}) : datum.{value}", "as": "lab_shade"}]


def by_row_legend() -> dict:
    """The weights' legend says which scale is on: 0, 0.5, 1 or 0, ½ of the row's largest, largest."""
    labels = "datum.value == 0 ? '0' : datum.value == 1 ? 'row max' : '½ row max'"
    return {"values": [0, 0.5, 1], "labelExpr": f"lab_by_row ? ({labels}) : datum.label"}


def config(cells: int) -> dict:
    """A heatmap's Vega-Lite config. Drawn on a Canvas (over SVG_UP_TO cells), its marks have no
    element a screen reader could reach, so Vega is spared their descriptions (aria off), which it
    would otherwise build per cell on every redraw; SVG cells keep theirs."""
    return {"view": {"stroke": None}, **({"mark": {"aria": False}} if cells > SVG_UP_TO else {})}


def embed_options(cells: int) -> dict:
    """SVG for a chart of up to SVG_UP_TO cells, Canvas beyond, said outright: Streamlit's own
    choice counts only the rows inside the spec, not a named dataset's, and so drew the Trained
    heads' model view (38,088 cells) as SVG, whose paint the browser then redid on every change
    anywhere on the page (tens of ms per head-slider move)."""
    return {"embedOptions": {"renderer": "svg" if cells <= SVG_UP_TO else "canvas"}}


def title(text: str, font: str = "DejaVu Sans") -> dict:
    """A chart's title, anchored left, growing with the look."""
    return {"text": text, "fontSize": scaled(16), "font": font, "anchor": "start"}
