"""Numbers as a heatmap prints them (cells, tooltips, legend), at any magnitude a lesson can reach.

Hand-entered q and k (up to ±1e4 each, core.limits.MAX_ENTRY), d_model up to 1,024 and a temperature
down to 0.01 give scores up to about ±1e13, and entries of 0.001 give ±1e-6. Written with two
decimals, "−20000000000.00" fits no cell (the chart then prints no number at all, and its cells near
0 look blank) and "0.00" says nothing of a cell the colour scale paints dark. So past BIG, or in a
chart whose largest number is under SMALL, a number is written with 3 significant digits and a
power of ten: "2e10", "−1.23e4", "5e−7". Every other number prints exactly as before ('.2f'), so
an ordinary lesson's heatmaps do not change.

These are Vega expressions (the browser formats the numbers; the spec stays the same for every
lesson), built only from our own constants: nothing a visitor types reaches them.
"""

BIG = 1e4  # from here on "12345.68" (8 characters, 9 with its sign) is "1.23e4"
SMALL = 0.01  # a chart whose every number is under this would print them all as 0.00 (or −0.00)


def powered(value: str, digits: int) -> str:
    """`value` (a Vega expression) with `digits` significant digits and a power of ten, as "−1.23e4"
    or "5e−7": d3's "e+4" and "e-7" lose their "+" and take the minus sign the other numbers use."""
    text = f"format({value}, '.{digits - 1}~e')"
    return f"replace(replace({text}, 'e+', 'e'), 'e-', 'e\u2212')"


def printed(value: str, fmt: str, largest: str) -> str:
    """A cell's number: `fmt` (as '.2f'), or `powered` past BIG or when `largest` (an expression: the
    chart's largest magnitude) is under SMALL; 0 stays as `fmt` writes it."""
    wide = f"abs({value}) >= {BIG:g} || ({largest} < {SMALL:g} && {value} != 0)"
    return f"{wide} ? {powered(value, 3)} : format({value}, '{fmt}')"


def tooltip(value: str) -> str:
    """A tooltip's number: three decimals, or 4 significant digits where those would read 0.000
    or run past BIG."""
    wide = f"abs({value}) >= {BIG:g} || ({value} != 0 && abs({value}) < 0.0005)"
    return f"{wide} ? {powered(value, 4)} : format({value}, '.3f')"


def extent(field: str) -> list[dict]:
    """Transforms giving each row `lab_largest`: the chart's largest |field|."""
    return [{"joinaggregate": [{"op": "min", "field": field, "as": "lab_low"},
                               {"op": "max", "field": field, "as": "lab_high"}]},
            {"calculate": "max(abs(datum.lab_low), abs(datum.lab_high))", "as": "lab_largest"}]


def legend_labels(scale: str = "color") -> dict:
    """A colour legend's labels: Vega's own ("−6,000", "0.5"), or, when the scale's domain reaches
    BIG or stays under SMALL, `powered` with 2 digits ("−2e10", "5e−7"), so that three labels fit
    under the shortest gradient (120 px); a domain of 0 alone (B − A of equal lessons) reads "0", not
    Vega's "0.000000"."""
    ends = f"max(abs(domain('{scale}')[0]), abs(peek(domain('{scale}'))))"
    wide = f"{ends} >= {BIG:g} || {ends} < {SMALL:g}"
    return {"labelExpr": f"!({wide}) ? datum.label : datum.value == 0 ? '0' : {powered('datum.value', 2)}"}
