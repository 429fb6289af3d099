"""Numbers as a heatmap prints them (cells, tooltips, legend), at any magnitude a lesson can reach.

Hand-entered q and k (up to ±1e4 each, core.limits.MAX_ENTRY), d_model up to 1,024 and a temperature
down to 0.01 give scores up to about ±1e13, and entries of 0.001 give ±1e-6. Written with two
decimals, "−20000000000.00" fits no cell (the chart then prints no number at all, and its cells near
0 look blank) and "0.00" says nothing of a cell the colour scale paints dark. So past BIG, or in a
chart whose largest number is under SMALL, a number is written with 3 significant digits and a
power of ten: "2e10", "−1.23e4", "5e−7". Every other number prints exactly as before ('.2f'), so
an ordinary lesson's heatmaps do not change.

A cell's number and a tooltip's are written here, on the server, into the chart's table (`printed`,
`tooltip`, `fixed`), exactly as Vega's own formatting (d3-format) would write them: the browser's
Vega evaluates an expression per cell on every redraw with an interpreter, which cost a slider move
more than the server's formatting does (docs/performance.md). A legend's labels depend on the
scale's domain, which only the browser computes: they stay Vega expressions (`legend_labels`),
built only from our own constants: nothing a visitor types reaches them.
"""

import math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np

BIG = 1e4  # from here on "12345.68" (8 characters, 9 with its sign) is "1.23e4"
SMALL = 0.01  # a chart whose every number is under this would print them all as 0.00 (or −0.00)


MINUS = "\u2212"  # d3-format's minus sign, and the one every other number of the lab uses


def powered(value: str, digits: int) -> str:
    """`value` (a Vega expression) with `digits` significant digits and a power of ten, as "−1.23e4"
    or "5e−7": d3's "e+4" and "e-7" lose their "+" and take the minus sign the other numbers use."""
    text = f"format({value}, '.{digits - 1}~e')"
    return f"replace(replace({text}, 'e+', 'e'), 'e-', 'e{MINUS}')"


def _fixed(x: float, digits: int) -> str:
    """d3-format's '.{digits}f': JavaScript's toFixed, which rounds a tie away from 0 (Python rounds
    it to even: 0.125 is "0.13" there, "0.12" here), and no sign on a number that rounds to 0. A cell
    with no number (the cosine similarity of a zero vector) reads "NaN", as it did when Vega wrote it."""
    if not math.isfinite(x):
        return _unbounded(x)
    a = abs(x)
    scaled = a * 10.0 ** digits
    if scaled - math.floor(scaled) == 0.5:  # every exact tie lands here (n + 0.5 is exact): decide exactly
        text = str(Decimal(a).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))
    else:
        text = f"{a:.{digits}f}"
    return MINUS + text if x < 0 and float(text) != 0 else text


def _powered(x: float, digits: int) -> str:
    """The Python side of `powered`: d3-format's '.{digits - 1}~e' (toExponential, a tie away from 0,
    insignificant zeros trimmed), "e+" written "e", "e-" written "e−"."""
    if not math.isfinite(x):
        return _unbounded(x)
    if x == 0:
        return "0e0"
    exact = Decimal(abs(x))
    power = exact.adjusted()
    step = Decimal(1).scaleb(1 - digits)
    mantissa = exact.scaleb(-power).quantize(step, rounding=ROUND_HALF_UP)
    if mantissa >= 10:  # 9.995 with 3 digits: 1.00e+1
        power += 1
        mantissa = exact.scaleb(-power).quantize(step, rounding=ROUND_HALF_UP)
    text = str(mantissa)
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return f"{MINUS if x < 0 else ''}{text}e{MINUS if power < 0 else ''}{abs(power)}"


def _unbounded(x: float) -> str:
    """What d3-format writes for NaN and ±Infinity, in any of its formats."""
    return "NaN" if math.isnan(x) else f"{MINUS if x < 0 else ''}Infinity"


def fixed(values, digits: int) -> list[str]:
    """Each of `values` as d3-format's '.{digits}f' writes it ("0.13", "−1.50"): `_fixed`, with Python's own
    formatting for all but the rare ties, NaN and Infinity (a 64-token lesson's tooltips format 4,096 a chart)."""
    flat = np.asarray(values, dtype=float).reshape(-1)
    magnitude = np.abs(flat)
    with np.errstate(invalid="ignore"):
        scaled = magnitude * 10.0 ** digits
        exact = ~np.isfinite(flat) | (scaled - np.floor(scaled) == 0.5)  # every exact tie lands here: `_fixed`
        signed = (flat < 0) & (scaled > 0.5)  # a number that rounds to 0 has no sign (ties are `exact`'s)
    texts = [f"{m:.{digits}f}" for m in magnitude.tolist()]
    for i in np.flatnonzero(signed):
        texts[i] = MINUS + texts[i]
    for i in np.flatnonzero(exact):
        texts[i] = _fixed(float(flat[i]), digits)
    return texts


def _either(flat: np.ndarray, wide: np.ndarray, digits: int, powered_digits: int) -> list[str]:
    """`_powered` where `wide`, `fixed` elsewhere."""
    texts = fixed(flat, digits)
    for i in np.flatnonzero(wide):
        texts[i] = _powered(float(flat[i]), powered_digits)
    return texts


def printed(values) -> list[str]:
    """Each cell's number: two decimals, or 3 significant digits and a power of ten past BIG, or in a
    chart whose largest magnitude is under SMALL; 0 stays "0.00"."""
    flat = np.asarray(values, dtype=float).reshape(-1)
    known = np.abs(flat[~np.isnan(flat)])  # Vega's largest, as its max does, leaves NaN out
    tiny = known.size > 0 and float(known.max()) < SMALL
    magnitude = np.abs(flat)
    return _either(flat, (magnitude >= BIG) | (tiny & (flat != 0)), 2, 3)


def tooltip(values) -> list[str]:
    """A tooltip's number: three decimals, or 4 significant digits where those would read 0.000 or
    run past BIG."""
    flat = np.asarray(values, dtype=float).reshape(-1)
    magnitude = np.abs(flat)
    return _either(flat, (magnitude >= BIG) | ((flat != 0) & (magnitude < 0.0005)), 3, 4)


def legend_labels(scale: str = "color") -> dict:
    """A colour legend's labels: Vega's own ("−6,000", "0.5"), or, when the scale's domain reaches
    BIG or stays under SMALL, `powered` with 2 digits ("−2e10", "5e−7"), so that three labels fit
    under the shortest gradient (120 px); a domain of 0 alone (B − A of equal lessons) reads "0", not
    Vega's "0.000000"."""
    ends = f"max(abs(domain('{scale}')[0]), abs(peek(domain('{scale}'))))"
    wide = f"{ends} >= {BIG:g} || {ends} < {SMALL:g}"
    return {"labelExpr": f"!({wide}) ? datum.label : datum.value == 0 ? '0' : {powered('datum.value', 2)}"}
