"""Text a projector can show: every text on stage at least the least size, at least 4.5:1 against
what it is read on, and colour-only grids said so. The scenes' checks read the dry runs shared
with test_scenes.py (run at class quality); the palette's checks need no scene."""

import numpy as np
import pytest

from animations import legibility, style
from animations.catalog import QUALITIES
from animations.legibility import BACKGROUND, MIN_CONTRAST, MIN_NUMBER_HEIGHT, MIN_TEXT_HEIGHT, contrast
from animations.mobjects import ink_for, label
from animations.scenes.footnote import COLOUR_ONLY
from animations.scenes.multihead import HEAD_COLORS

ROLES = (style.QUERY, style.KEY, style.VALUE, style.OUTPUT, style.HIGHLIGHT, style.MASKED)


def test_wcag_contrast_matches_known_values():
    assert contrast("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert contrast("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)  # WCAG's well-known near miss
    assert contrast("#767676", "#FFFFFF") == pytest.approx(4.54, abs=0.01)  # and the lightest grey that passes
    assert contrast(style.MASKED, BACKGROUND) == pytest.approx(4.72, abs=0.01)  # the "~4.6": it passes


def test_a_digit_is_as_high_as_the_size_rule_says():
    for size in (16, 20, 30):
        assert label("0", size).height == pytest.approx(legibility.digit_height(size), rel=0.01)


@pytest.mark.parametrize("stops", [style.WEIGHT_STOPS, style.SCORE_STOPS], ids=["weights", "scores"])
def test_numbers_on_every_cell_colour_reach_4_5(stops):
    colours = list(stops) + [style.interpolate(stops, t) for t in np.linspace(0, 1, 321)]
    for fill in colours:
        assert contrast(ink_for(fill), fill) >= MIN_CONTRAST, fill


def test_numbers_on_role_and_blocked_cells_reach_4_5():
    for fill in ROLES:
        assert contrast(ink_for(fill), fill) >= MIN_CONTRAST, fill


def test_text_colours_on_the_background_reach_4_5():
    colours = [style.TEXT_LIGHT, style.NOTE_TEXT, *[style.text_color(c) for c in ROLES + HEAD_COLORS]]
    for colour in colours:
        assert contrast(colour, BACKGROUND) >= MIN_CONTRAST, colour
    assert contrast(style.QUERY, BACKGROUND) < MIN_CONTRAST  # why QUERY needs its text variant


def test_class_quality_is_1080p30_on_the_same_frame(scene):
    """The dry runs use a class render's camera: 1920 x 1080 pixels, 30 frames a second, and the
    frame is 8 units high as at 480p, so the sizes checked here are the sizes drawn in class."""
    camera = scene.camera
    assert (camera.pixel_width, camera.pixel_height, camera.frame_rate) == (1920, 1080, 30)
    assert QUALITIES["class"][:3] == (1920, 1080, 30)
    assert (camera.frame_width, camera.frame_height) == pytest.approx((128 / 9, 8.0))


def test_every_text_is_large_enough(scene):
    small = []
    for step, texts in scene.layouts:
        for drawn in texts:
            least = MIN_NUMBER_HEIGHT if drawn.tier == "number" else MIN_TEXT_HEIGHT
            if drawn.height < least - 1e-6:
                small.append(f"{step}: '{drawn.text}' {legibility.px_at_1080(drawn.height):.1f} px")
    assert not small, small


def test_every_text_contrasts_with_what_it_is_read_on(scene):
    faint = [f"{step}: '{d.text}' {d.color} on {d.backdrop}: {contrast(d.color, d.backdrop):.2f}"
             for step, texts in scene.layouts for d in texts if contrast(d.color, d.backdrop) < MIN_CONTRAST]
    assert not faint, faint
    on_cells = [d for _, texts in scene.layouts for d in texts if d.backdrop != BACKGROUND]
    assert on_cells or type(scene).__name__ == "ScalingScene"  # the check saw numbers on their cells


def test_a_grid_in_colour_only_is_said_so(scene):
    said = {step for step, texts in scene.layouts if any(COLOUR_ONLY in d.text for d in texts)}
    assert set(scene.colour_only_steps) <= said
    assert said <= set(scene.colour_only_steps)  # and never where every grid shows its numbers


def test_column_labels_stand_all_upright_or_none():
    """One long word stands every column label upright: a row with one label turned reads as a slip."""
    from animations.mobjects import AttentionGrid

    grid = AttentionGrid(np.full((3, 3), 1 / 3), ["mat", "elephants", "on"], ["mat", "elephants", "on"], cell=0.5)
    assert all(m.height > m.width for m in grid.col_labels)
    short = AttentionGrid(np.full((2, 2), 0.5), ["on", "a"], ["on", "a"], cell=0.74)
    assert not short.upright_labels
