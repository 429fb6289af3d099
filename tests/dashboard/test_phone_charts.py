"""Charts a student's phone draws, at a phone's width: no text runs past the chart's edge.

Vega clips what runs past its view, and never wraps a title or a label. vl-convert lays each chart
out as Vega does in the browser (its scenegraph: every text's anchor, in the chart's own pixels, at
the width Streamlit gives it); each text's width is measured here with PIL in the chart's own font,
DejaVu Sans (a phone without it falls back to a narrower one)."""

from pathlib import Path

import numpy as np
import pytest
import vl_convert as vlc
from PIL import ImageFont

from classroom.kinds import suggest
from core import AttentionConfig, run_trace
from core.film import decode
from core.learn_tasks import probe
from core.trace import token_labels
from dashboard.charts import lines, model_view, questions, sizing, training
from dashboard.charts.draw import set_look

PHONE = 358  # px: a 390 px wide phone's main column (Streamlit's 16 px padding either side)
FONTS = Path("/usr/share/fonts/truetype/dejavu")


def texts(chart, width: int) -> list[tuple[str, float, float]]:
    """Every unrotated text of `chart` laid out `width` px wide: (text, left, right) in the view's px. A text
    that Vega cuts short ("…", at its `limit`) reaches past the view: it is not shown whole either."""
    if not (FONTS / "DejaVuSans.ttf").exists():
        pytest.skip("the DejaVu fonts are not installed")
    spec = chart.to_dict()
    spec["width"] = width  # what Streamlit's width="stretch" sets: the column's width
    set_look(spec, sizing.ORDINARY)
    laid = vlc.vegalite_to_scenegraph(spec)
    assert laid["width"] == width
    found = []

    def mark(node, dx: float):
        for item in node.get("items", []):
            if node["marktype"] == "group":
                for child in item.get("items", []):
                    mark(child, dx + item.get("x", 0))
            elif node["marktype"] == "text" and item.get("text") not in (None, "") and not item.get("angle"):
                lines = item["text"] if isinstance(item["text"], list) else [item["text"]]
                bold = item.get("fontWeight") == "bold"
                font = ImageFont.truetype(str(FONTS / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")),
                                          item.get("fontSize", 11))
                w = max(font.getlength(str(line)) for line in lines)
                x = dx + item.get("x", 0) + item.get("dx", 0)
                align = item.get("align", "left")
                left = x - w if align == "right" else x - w / 2 if align == "center" else x
                cut = 0 < item.get("limit", 0) < w
                found.append((" / ".join(map(str, lines)), left, float("inf") if cut else left + w))

    mark(laid["scenegraph"], laid["origin"][0])
    return found


def assert_within(chart, width: int = PHONE):
    out = [(t, round(a), round(b)) for t, a, b in texts(chart, width) if a < 0 or b > width]
    assert not out, f"past the chart's edges (0..{width} px): {out}"


@pytest.mark.parametrize("formed", [20, 140, 300, 480, 590])
def test_the_loss_chart_s_induction_label_stays_inside_a_phone_s_chart(formed):
    """The rule's label ("first induction score ≥ 0.5: step 140") ran 19 px past a phone's chart. Drawn at the
    run's last step: the label shows only once the step shown has reached it (issue 47 item 4)."""
    chart = training.loss_chart(np.arange(1, 601), np.linspace(3.6, 0.4, 600), 600, 600, formed)
    assert any("first induction" in t for t, *_ in texts(chart, PHONE))
    assert_within(chart)


def test_the_measure_finds_a_title_too_wide_for_a_phone():
    """The check itself: a one-line title as long as the blocked reveal's old one runs past 358 px."""
    chart = questions.blocked_bars(suggest(AttentionConfig(), "blocked"), run_trace(AttentionConfig()))
    chart = chart.properties(title="keys each query row may attend to (0 = fully blocked)")
    with pytest.raises(AssertionError, match="past the chart's edges"):
        assert_within(chart)


@pytest.mark.parametrize("kind", ["focus", "change", "blocked"])
def test_a_reveal_chart_s_title_and_labels_stay_inside_a_phone_s_chart(kind):
    question = suggest(AttentionConfig(), kind, change="heads*2" if kind == "change" else "")
    chart = questions.reveal(question, [run_trace(cfg) for cfg in question.kind_class.reveal_lessons(question)])
    assert_within(chart)


def test_the_open_head_s_phone_row_keeps_its_48_labels_and_title_inside_a_phone_s_chart():
    labels = token_labels(decode(probe("induction").tolist()))
    chart = lines.row_bars_down(np.full(48, 1 / 48), labels, "Where letter 39, “v”, looks", "film-row")
    found = texts(chart, PHONE)
    assert sum(t in labels for t, *_ in found) == 48
    assert_within(chart)


def test_the_phone_grid_s_names_stay_inside_a_phone_s_chart():
    weights = np.full((6, 12, 6, 6), 1 / 6)
    chart = model_view.phone_view(weights, np.ones((6, 12), dtype=bool))
    assert {"layer", "1", "6", "12"} <= {t for t, *_ in texts(chart, PHONE)}  # (the "head" title is turned)
    assert_within(chart)


def _label_and_curve(chart, width: int, look) -> tuple[tuple, list]:
    """The loss chart laid out `width` px wide in `look`: the box of its rule's label (left, top, right, bottom,
    in the view's px; Vega stacks a label's lines down from its first, each `lineHeight` below) and the curve's
    points."""
    spec = chart.to_dict()
    spec["width"] = width
    set_look(spec, look)
    laid = vlc.vegalite_to_scenegraph(spec)
    box, curve = None, []

    def walk(node, dx: float, dy: float):
        for item in node.get("items", []):
            if node["marktype"] == "group":
                for child in item.get("items", []):
                    walk(child, dx + item.get("x", 0), dy + item.get("y", 0))
            elif node["marktype"] == "line":
                curve.append((dx + item["x"], dy + item["y"]))
            elif node["marktype"] == "text" and "first induction" in (item.get("text") or ()):
                nonlocal box
                size, lines = item["fontSize"], item["text"]
                w = max(ImageFont.truetype(str(FONTS / "DejaVuSans.ttf"), size).getlength(t) for t in lines)
                x, y = dx + item["x"] + item.get("dx", 0), dy + item["y"] + item.get("dy", 0)
                left = x - w if item.get("align") == "right" else x
                box = (left, y - size, left + w, y + (len(lines) - 1) * item.get("lineHeight", size))

    walk(laid["scenegraph"], laid["origin"][0], laid["origin"][1])
    return box, curve


@pytest.mark.parametrize("formed", [20, 95, 300, 590])
@pytest.mark.parametrize("width, look", [(PHONE, "ORDINARY"), (1750, "SLIDE")])
def test_the_loss_chart_s_induction_label_keeps_clear_of_the_curve(formed, width, look):
    """On screen 26 (the default run's end) the label "step 95: first induction score ≥ 0.5" ran across the loss
    curve's drop (a fresh-eyes lecturer). A run's loss stays near chance until its induction heads form, drops
    there, and is still well above 0 soon after: here a plateau at 3.4, a fall to 2.0 over 20 steps from the step
    the head formed, then a decay towards 0.3. No point of the curve, nor of the segments between its points,
    lies inside the label's box, on a phone and on a 1080p slide."""
    if not (FONTS / "DejaVuSans.ttf").exists():
        pytest.skip("the DejaVu fonts are not installed")
    steps = np.arange(1, 601)
    loss = np.where(steps < formed, 3.4, np.maximum(3.4 - (steps - formed) / 20 * 1.4,
                                                     1.7 * np.exp(-(steps - formed) / 300) + 0.3))
    box, curve = _label_and_curve(training.loss_chart(steps, loss, 600, 600, formed), width, getattr(sizing, look))
    assert box is not None and len(curve) == 600
    left, top, right, bottom = box
    inside = [(round(x), round(y)) for (x0, y0), (x1, y1) in zip(curve[:-1], curve[1:], strict=True)
              for t in np.linspace(0, 1, 8) for x, y in [(x0 + t * (x1 - x0), y0 + t * (y1 - y0))]
              if left <= x <= right and top <= y <= bottom]
    assert not inside, (box, inside[:5])
