"""The lab's palette, shared by the dashboard (Altair) and the scenes (manim).

Plain hex strings and scheme names only: importing this module imports neither manim nor
Altair. Every colour is colour-blind safe (Okabe-Ito for roles, viridis for weights and a
blue-orange diverging scale for raw scores).
"""

# Roles (Okabe & Ito 2008)
QUERY = "#0072B2"  # blue
KEY = "#E69F00"  # orange
VALUE = "#009E73"  # bluish green
OUTPUT = "#CC79A7"  # reddish purple
HIGHLIGHT = "#F0E442"  # yellow
MASKED = "#7F7F7F"  # grey: a blocked cell
TEXT_DARK = "#1A1A1A"
TEXT_LIGHT = "#F5F5F5"
# The videos' text on their dark background (#111111), each at least 4.5:1 (WCAG AA; see
# animations/legibility.py): QUERY itself gives 3.6:1, so query-blue text is QUERY lightened 20 %
# toward white (5.2:1); footnotes are a light grey (7.2:1) rather than MASKED (4.7:1), since a
# projector in a lit room loses contrast that a screen keeps.
QUERY_TEXT = "#338EC1"
NOTE_TEXT = "#A0A0A0"
# Numbers on coloured cells: pure black or white, whichever contrasts more with the cell. Every
# colour has at least 4.58:1 (the square root of 21) with one of the two; #1A1A1A / #F5F5F5
# fall to 4.0:1 on viridis's middle teal.
INK_DARK = "#000000"
INK_LIGHT = "#FFFFFF"

# Altair / Vega scheme names, and the same scales as colour stops for manim to interpolate.
WEIGHT_SCHEME = "viridis"  # sequential, weights in 0..1
SCORE_SCHEME = "blueorange"  # diverging, raw and scaled scores around 0
# Vega's own colours at every sixteenth of the scale (read back from Vega in tests/dashboard/
# test_palette.py); five stops drifted up to 25/255 from Vega between them, sixteen stay within 5.
WEIGHT_STOPS = (  # viridis, weights 0 .. 1
    "#440154", "#48196B", "#472D7B", "#424086", "#3B528B", "#34638D", "#2C728E", "#27828E", "#21918D",
    "#1F9F88", "#28AE80", "#3EBC74", "#5DC963", "#82D34C", "#ABDC32", "#D5E21B", "#FDE725")
SCORE_STOPS = (  # blueorange, scores −limit (blue) .. 0 .. +limit (orange)
    "#134B85", "#2567A2", "#3B83B9", "#579DC8", "#7DB6D6", "#A4CDE3", "#C5DEEC", "#DEE9EE", "#F2F0EB",
    "#F8E6CC", "#FCD8A9", "#FBC37D", "#F2A952", "#E48E2B", "#CE7416", "#B55D0B", "#994A07")

FONT = "DejaVu Sans"  # present on Debian and legible on a projector
MONO_FONT = "DejaVu Sans Mono"


def text_color(color: str) -> str:
    """A role colour as text on the videos' dark background (the query's blue is lightened)."""
    return QUERY_TEXT if color.upper() == QUERY else color


def _hex_to_rgb(color: str) -> tuple[float, float, float]:
    color = color.lstrip("#")
    return tuple(int(color[i : i + 2], 16) / 255 for i in (0, 2, 4))


def interpolate(stops, t: float) -> str:
    """The colour at t in [0, 1] along evenly spaced stops, as a hex string."""
    t = min(max(float(t), 0.0), 1.0) * (len(stops) - 1)
    i = min(int(t), len(stops) - 2)
    a, b = _hex_to_rgb(stops[i]), _hex_to_rgb(stops[i + 1])
    rgb = (round(255 * (x + (y - x) * (t - i))) for x, y in zip(a, b, strict=True))
    return "#" + "".join(f"{c:02X}" for c in rgb)
