"""label()/formula() draw their outlines without building manim's per-glyph objects
(animations/outline.py); here every kind of string the scenes print is compared with what manim's
own `Text` / `MarkupText` hold: the same points in the same order, the same extent."""

import numpy as np
import pytest
from manim import MarkupText, Text

from animations import mobjects, outline, style
from animations.mobjects import MINUS_INF, fmt

NUMBERS = [fmt(v) for v in np.linspace(-2.5, 2.5, 41)] + [
    fmt(float("-inf")), fmt(0.005), fmt(-0.004), fmt(123.456), "−0.53", "−1.00", "(−0.53)",
    "53%", "100%", "0.5%", "1e-05", "3.2e+04", "−2.1e-3", "× 0.35", "÷ 2", "0.58 × 1.73",
]
WORDS = [
    "The", "cat", "sat on the mat", "##ing", "[CLS]", "[SEP]", "<s>", "⟨.⟩", "“quoted”", "'s", '"',
    "it’s", "a — b", "√d", "Q·K", "Kᵀ", "W_Q", "d₁ x₂ h₁₂", "猫が座った", "字", "🙂", "👍🏽 ok", "naïve café",
    "Σ softmax(x)ᵢ", "≈ 1.00", "→", "½", "", " ", "a  b", "two\nlines", "tab\there",
    "Olsson et al. (2022), “In-context Learning and Induction Heads”", MINUS_INF,
]
# no font here has these glyphs: Pango draws a stroked box for each, outside its glyph symbols, and
# label() leaves such strings to manim's Text (they are compared all the same)
NO_GLYPH = {"猫が座った", "字", "🙂", "👍🏽 ok"}
# (size, mono, bold): the sizes the scenes and tests use, in each face
FACES = [(16, False, False), (19, False, True), (20, True, False), (24, False, False),
         (26, True, True), (48, False, False)]
MARKUPS = [
    "Q·K<sup>T</sup>", "Q·K<sup>T</sup> / √d<sub>k</sub>", "Q·K<sup>T</sup> / √d<sub>k</sub> / 0.5",
    "weights = softmax(Q·K<sup>T</sup> / √d<sub>k</sub>, blocked pairs −∞)",
    "weights = softmax(Q·K<sup>T</sup> / 2)", "Q·K<sup>T</sup> / √d<sub>k</sub>   (× 0.35)",
    "Q, K, V as entered", "Q = x·W<sub>Q</sub>   K = x·W<sub>K</sub>   V = x·W<sub>V</sub>",
    "score = mean<sub>i</sub> w<sub>i, i−1</sub>", "score = mean<sub>i</sub> w<sub>i, i−d+1</sub>",
    "mean<sub>i</sub> w<sub>i, 0</sub>", "<b>bold</b> and <i>italic</i>", "a &lt; b &amp; c",
]


def _manim(mob):
    """What manim's own object holds: its glyphs' points in family order, and its extent."""
    points = [glyph.points for glyph in mob.family_members_with_points()]
    points = np.concatenate(points) if points else np.zeros((0, 3))
    return points, (max(mob.width, mob.height) if len(points) else 0.0)


def _same(ours, theirs, text, size):
    points, extent = theirs
    assert ours.points.shape == points.shape, text
    np.testing.assert_allclose(ours.points, points, rtol=0, atol=1e-9, err_msg=text)
    assert ours.built_extent == pytest.approx(extent, abs=1e-9), text
    assert (ours.text, ours.built_size) == (text, size)
    assert ours.get_stroke_width() == 0 and ours.get_fill_opacity() == 1


@pytest.mark.parametrize("size,mono,bold", FACES)
def test_label_outlines_match_manims_text(size, mono, bold):
    font, weight = (style.MONO_FONT if mono else style.FONT), ("BOLD" if bold else "NORMAL")
    # every string in the first face, a sample in the others (each Text costs milliseconds)
    strings = NUMBERS + WORDS if (size, mono, bold) == FACES[0] else NUMBERS[::10] + WORDS[::4]
    for text in strings:
        # the fast path is taken (else this would compare Text with itself)
        assert text in NO_GLYPH or outline.text_points(text, font, size, weight) is not None, text
        theirs = _manim(Text(text, font=font, font_size=size, weight=weight))
        _same(mobjects._template(text, size, font, weight), theirs, text, size)


@pytest.mark.parametrize("size", [20, 26])
def test_formula_outlines_match_manims_markup_text(size):
    for markup in MARKUPS:
        assert outline.markup_points(markup, style.FONT, size) is not None, markup
        theirs = _manim(MarkupText(markup, font=style.FONT, font_size=size))
        _same(mobjects._formula(markup, size), theirs, markup, size)


def test_a_copy_keeps_the_template_untouched():
    """label() hands out copies: recolouring one must not recolour the cached outlines."""
    first = mobjects.label("0.53", 20, color=style.QUERY)
    again = mobjects.label("0.53", 20)
    assert first.points is not again.points
    np.testing.assert_array_equal(first.points, again.points)
