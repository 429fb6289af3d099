"""What a projector needs from the videos' text: a least size and a least contrast.

Sizes are the height of a capital or a digit, in frame units (the frame is 8 units high, so at
1080p one unit is 135 px). A character is read comfortably when it subtends at least 16 minutes
of arc (ISO 9241-3: "the minimum character height shall be 16 minutes of arc", 20-22'
preferred; NUREG-0700 says the same). 2.0 % of the picture's height (cell numbers) does so out
to about 4.4 picture heights, 2.4 % (everything else) out to about 5.2: for a picture 1.5 m
high, 6.5 m and 7.5 m. Contrast is WCAG 2.x's ratio of relative luminances, at least 4.5:1
(level AA for normal text), for text on the background and for a number on its cell.

Plain numbers and hex strings only: no manim here.
"""

from animations import style

BACKGROUND = "#111111"  # every scene's background
FRAME_HEIGHT = 8.0  # frame units, manim's default
PX_PER_UNIT_1080 = 1080 / FRAME_HEIGHT

MIN_NUMBER_PX = 22  # a digit inside a grid cell, at 1080p; smaller cells show colour only
MIN_TEXT_PX = 26  # every other text: labels, head labels, footnotes, formulas, titles
MIN_NUMBER_HEIGHT = MIN_NUMBER_PX / PX_PER_UNIT_1080  # 0.163 frame units
MIN_TEXT_HEIGHT = MIN_TEXT_PX / PX_PER_UNIT_1080  # 0.193 frame units
MIN_CONTRAST = 4.5

# The height of a digit of the lab's font (DejaVu Sans) per point of manim's font_size, in frame
# units, measured from Pango's outlines ("0" at font_size 100 is 1.051 units high); tests measure
# it again, so a change of font cannot pass unnoticed.
DIGIT_HEIGHT_PER_POINT = 0.01051


def digit_height(font_size: float) -> float:
    """The height of a digit (and nearly of a capital) at `font_size`, in frame units."""
    return font_size * DIGIT_HEIGHT_PER_POINT


def px_at_1080(height: float) -> float:
    return height * PX_PER_UNIT_1080


def least_font_size(height: float) -> float:
    """The smallest manim font_size whose digits are at least `height` frame units high."""
    return height / DIGIT_HEIGHT_PER_POINT


def _linear(channel: float) -> float:
    """sRGB to linear light (WCAG 2.x's formula; its 0.03928 threshold and sRGB's 0.04045 agree on
    every 8-bit value)."""
    return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4


def luminance(color: str) -> float:
    """WCAG relative luminance of a hex colour, 0 (black) to 1 (white)."""
    r, g, b = (_linear(c) for c in style._hex_to_rgb(color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two hex colours, 1 to 21."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)
