"""Heatmaps at the magnitudes a link can reach (issue 28, item 9): scores of ±2e10 from hand-entered q and k,
±1e-6, a one-token lesson. Drawn by Vega itself (vl-convert's SVG, no browser): every cell prints its
number, the legend's labels stay short, and every cell's colour is on its own sign's side of the scale.
"""

import re

import pytest

from animations import style
from core import PRESETS, AttentionConfig, run_trace
from dashboard.charts import draw
from dashboard.charts import heatmaps as charts


def _group(svg: str, role: str) -> str:
    """The inside of the SVG group whose class holds `role` (e.g. "layer_1_marks", "role-legend-label")."""
    found = re.search(rf'<g class="[^"]*{role}[^"]*"[^>]*>(.*?)</g>', svg, re.S)
    return found.group(1) if found else ""


def cell_numbers(svg: str) -> list[str]:
    """The numbers printed in the cells (the text layer: empty when none fits)."""
    return re.findall(r"<text[^>]*>([^<]*)</text>", _group(svg, "layer_1_marks"))


def legend_labels(svg: str) -> list[str]:
    """The legend's labels that Vega shows (it hides overlapping ones with opacity 0)."""
    return [text for attrs, text in re.findall(r"<text([^>]*)>([^<]*)</text>", _group(svg, "role-legend-label"))
            if 'opacity="0"' not in attrs]


def cells(svg: str) -> list[tuple[str, str]]:
    """Each cell's (description, fill): the description lists its tooltip's fields."""
    return re.findall(r'<path aria-label="([^"]*)"[^>]*aria-roledescription="rect mark"[^>]*fill="([^"]*)"', svg)


def _rgb(colour: str) -> tuple[int, ...]:
    if colour.startswith("#"):
        return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return tuple(int(float(x)) for x in re.findall(r"[\d.]+", colour)[:3])


def _near(a: str, b: str) -> bool:
    return max(abs(x - y) for x, y in zip(_rgb(a), _rgb(b), strict=True)) <= 6


def manual(q, k, **settings) -> AttentionConfig:
    """A one-dimension hand-entered lesson: token i's q and k are q[i] and k[i]."""
    return AttentionConfig(source="manual", d_model=1, num_heads=1, q=tuple((x,) for x in q),
                           k=tuple((x,) for x in k), v=tuple((1.0,) for _ in q), **settings)


# q·k = 1e4 × 1e4 = 1e8 at most (the lab's largest entry), ÷ temperature 0.01 (its lowest): 1e10.
HUGE = manual([1e4, 1.0, -3.0], [1e4, -1e4, 1.0], temperature=0.01, scale=False)
HUGE_SCALED = ["1e10", "−1e10", "1e6", "1e6", "−1e6", "100.00", "−3e6", "3e6", "−300.00"]  # hand-computed


@pytest.mark.parametrize("show_mask", [False, True])
def test_scores_of_1e10_print_in_every_cell_with_a_short_legend(show_mask):
    """Before: "−10000000000.00" fit no cell, so the chart printed no number at all (its cells near 0 looked
    blank), and the legend read "−10,000,000,000"; the tooltip read "10000000000.000"."""
    svg = draw.chart_svg(charts.scores_heatmap(run_trace(HUGE), 0, "scaled", show_mask=show_mask))
    assert cell_numbers(svg) == HUGE_SCALED
    labels = legend_labels(svg)
    assert len(labels) >= 3 and all(len(label) <= 5 for label in labels), labels
    assert {"−1e10", "0", "1e10"} <= set(labels)
    described = [description for description, _ in cells(svg)]
    assert "q·k: 1e8;" in described[0] and "q·k: −1e8;" in described[1], described[:2]


def test_the_weights_tooltip_gives_the_scores_as_powers_of_ten_too():
    svg = draw.chart_svg(charts.weights_heatmap(run_trace(HUGE), 0))
    assert "q·k: 1e8;" in cells(svg)[0][0]
    assert cell_numbers(svg) == ["1.00", "0.00", "0.00", "1.00", "0.00", "0.00", "0.00", "1.00", "0.00"]


def test_scores_of_1e_6_print_as_such_not_as_zeros():
    """Before: every cell read 0.00 (or −0.00) while its colour was the scale's darkest."""
    svg = draw.chart_svg(charts.scores_heatmap(run_trace(manual([1e-3, 5e-4], [1e-3, -1e-3])), 0, "qk"))
    assert cell_numbers(svg) == ["1e−6", "−1e−6", "5e−7", "−5e−7"]
    assert {"−1e−6", "0", "1e−6"} <= set(legend_labels(svg))


def test_one_tokens_score_takes_the_colour_of_its_sign():
    """A lone score (or scores all of one sign) once took the colour of 0: Vega's domainMid lay outside the
    scores' domain. Now the domain always holds 0, so −7.8e3 is the scale's darkest blue."""
    trace = run_trace(AttentionConfig(text="Hi", d_model=1024, num_heads=1, scale=False, temperature=0.01))
    assert trace.scaled.shape == (1, 1, 1) and trace.scaled[0, 0, 0] < -1000
    (_, fill), = cells(draw.chart_svg(charts.scores_heatmap(trace, 0, "scaled")))
    assert _near(fill, style.SCORE_STOPS[0]), fill


def test_a_matrix_of_positive_numbers_paints_none_of_them_as_zero():
    """The article's output (6.70, 6.60, 3.30, 13.40): 3.30 was painted the colour of 0 and the legend's 0 blue."""
    trace = run_trace(PRESETS["article-2x2"])
    labels = charts.token_labels(trace.tokens)
    svg = draw.chart_svg(charts.matrix_heatmap(trace.output, labels, ["1", "2"], "output", "output"))
    zero = style.interpolate(style.SCORE_STOPS, 0.5)
    assert [fill for _, fill in cells(svg) if _near(fill, zero)] == []


def test_an_ordinary_lessons_numbers_print_as_before():
    """Two decimals, Vega's own legend labels: nothing of the above reaches an ordinary lesson."""
    trace = run_trace(PRESETS["default"])
    svg = draw.chart_svg(charts.scores_heatmap(trace, 0, "qk"))
    assert cell_numbers(svg) == [f"{x:.2f}".replace("-", "−") for x in trace.scores[0].reshape(-1)]
    assert all(re.fullmatch(r"−?\d+", label) for label in legend_labels(svg))


def test_the_flat_rows_note_tells_hand_entered_scores_from_random_weights():
    """Page 1's note on flat rows said "The weights are random: W_Q and W_K are drawn…" and "span 0.0" for
    hand-entered q and k whose scores span 2e-6 (a lesson has no W matrices then)."""
    from dashboard.app_pages.steps import why_flat

    cfg = manual([1e-3, 1e-3, 5e-4], [1e-3, -1e-3, 2e-4])  # scores span 2e-6, 2e-6 and 1e-6: 1.7e-6 on average
    note = why_flat(cfg, run_trace(cfg), 0)
    assert "span 2e−6 here on average" in note
    assert "entered by hand, not made by W matrices" in note and "W_Q and W_K are drawn" not in note
    default = why_flat(PRESETS["default"], run_trace(PRESETS["default"]), 0)
    assert "W_Q and W_K are drawn" in default and "entered by hand" not in default


def test_a_hand_entered_lesson_from_a_link_is_not_said_to_come_from_w_matrices(make_app):
    """Page 1's step 1 said "Each token's vector x (2 numbers) times W_Q, W_K and W_V gives its q, k and v", its
    note "The W matrices on this page are random, not trained", and the sidebar "as entered by the preset (the
    article's example)" for the crafted link's lesson."""
    from dashboard.app_pages.steps import STEPS
    from dashboard.lesson.state import url_params

    from .conftest import no_exception

    at = make_app(query={**url_params(HUGE), "step": "1"})
    no_exception(at)
    assert at.session_state["view_attention_step"] == STEPS[0]
    captions = " ".join(str(c.value) for c in at.caption)
    assert "Q, K and V are the numbers entered, used as they are (no W matrices): per head" in captions
    assert "times W_Q, W_K and W_V" not in captions
    assert "q, k and v are numbers **entered by hand**" in captions and "W matrices on this page are" not in captions
    sidebar = " ".join(str(c.value) for c in at.sidebar.caption)
    assert "or the link, used as they are: no W matrices make them." in sidebar
    default = make_app(query={"step": "1"})
    assert "The W matrices on this page are **random, not trained**" in " ".join(str(c.value) for c in default.caption)


# Ties (0.125 at two decimals, 0.0625 at three: JavaScript rounds them away from 0, Python to even), numbers that
# round to 0 from below, the edges of BIG and SMALL, and a mantissa that rounds up to 10 (9.995e3 at 3 digits).
TRICKY = [0.125, -0.125, 0.375, 2.675, 0.005, -0.005, 0.0625, -0.0625, 0.001, -0.001, -0.0049, 0.0, -0.0, 0.5,
          1e10, -1e10, 12345.678, 99999.5, 9999.995, 9995.0, 1e4, -1e4, 5e-7, -5e-7, 1e-6, 0.00049, 0.0005,
          -0.0005, 123.4565, 1.0005, 0.015, 0.025, 0.99995, 1e13, 9.995e-5, 1.2345e-6, 0.1 + 0.2]


def test_the_servers_numbers_are_written_as_vegas_own_format_writes_them():
    """The cells' and tooltips' numbers are written on the server (numbers.py); Vega's d3-format, run by
    vl-convert, is the reference: '.2f', '.3f', and the powers of ten at 3 and 4 digits."""
    import json

    import numpy as np
    import vl_convert as vlc

    from dashboard.charts import numbers

    values = TRICKY + [k / 16 for k in range(-24, 25)] + list(np.random.default_rng(0).standard_normal(60) * 10.0 **
                                                               np.arange(-6, 6).repeat(5))
    formats = ["format(datum.v, '.2f')", "format(datum.v, '.3f')", numbers.powered("datum.v", 3),
               numbers.powered("datum.v", 4)]
    spec = {"data": {"values": [{"v": v, "i": i} for i, v in enumerate(values)]},
            "transform": [{"calculate": " + '|' + ".join(formats), "as": "all"}],
            "mark": "text", "encoding": {"text": {"field": "all", "type": "nominal"},
                                         "y": {"field": "i", "type": "ordinal"}}}
    vega = [t for t in re.findall(r"<text[^>]*>([^<]*)</text>", vlc.vegalite_to_svg(json.dumps(spec))) if "|" in t]
    ours = ["|".join([numbers.fixed([v], 2)[0], numbers.fixed([v], 3)[0], numbers._powered(v, 3),
                      numbers._powered(v, 4)]) for v in values]
    assert len(vega) == len(values) and ours == vega
    # NaN (a zero vector's cosine similarity) and ±Infinity, which JSON cannot carry: made by Vega itself
    spec["data"]["values"] = [{"i": i} for i in range(3)]
    spec["transform"].insert(0, {"calculate": "[0 / 0, 1 / 0, -1 / 0][datum.i]", "as": "v"})
    vega = [t for t in re.findall(r"<text[^>]*>([^<]*)</text>", vlc.vegalite_to_svg(json.dumps(spec))) if "|" in t]
    ours = ["|".join([numbers.fixed([v], 2)[0], numbers.fixed([v], 3)[0], numbers._powered(v, 3),
                      numbers._powered(v, 4)]) for v in (float("nan"), float("inf"), float("-inf"))]
    assert ours == vega
    assert numbers.printed([float("nan"), 0.001]) == ["NaN", "1e−3"]  # NaN leaves the chart's largest alone
    assert numbers.fixed([0.125, -0.0001], 2) == ["0.13", "0.00"]  # a tie away from 0; no "−0.00"
