"""Every scene under manim's dry_run, for three lessons: what is drawn is run_trace's numbers."""

import math

import numpy as np
import pytest

from animations import style
from core import run_trace
from core.analysis import score_row

FRAME_HALF_W, FRAME_HALF_H = 64 / 9, 4.0  # manim's 16:9 frame, in units


def as_text(value: float) -> str:
    """Two decimals, −∞ for a blocked score: how the lab prints every number."""
    return "−∞" if value == -math.inf else f"{value:.2f}"


def source_array(scene, grid):
    """The run_trace array a grid claims to draw, sliced to the shape drawn."""
    variant, field, head, *row = grid.tag
    arr = getattr(run_trace(scene.variants[variant]), field)
    if head is not None:
        arr = arr[head]
    if getattr(grid, "columns", None) is not None:  # a wide matrix shows chosen columns
        arr = arr[..., grid.columns]
    start = getattr(grid, "offset", 0)  # a grid that shows the last tokens of a (T, T) array
    if start:
        arr = arr[start:, start:]
    if row:
        arr = arr[row[0]]
    r, c = grid.values.shape
    return arr[: r * c].reshape(r, c) if arr.ndim == 1 else arr[:r, :c]


def attention_grids(scene):
    return [g for g in scene.grids if g.tag[0] != "score_row"]


def test_drawn_numbers_equal_run_trace(scene):
    checked = 0
    for grid in attention_grids(scene):
        expected = source_array(scene, grid)
        if grid.show_numbers:
            assert grid.texts() == [[as_text(v) for v in row] for row in expected], grid.tag
            checked += 1
        np.testing.assert_array_equal(grid.values, expected)
    for bars in (g for g in scene.grids if g.tag[0] == "score_row"):
        _, d_k, scaled = bars.tag
        weights = score_row(d_k, scene.T, scene.cfg.seed, scaled)
        assert [t.text for t in bars.texts_drawn] == [as_text(w) for w in weights]
        checked += 1
    assert checked > 0, "the scene drew no numbers at all"


def test_weight_colours_follow_the_palette(scene):
    for grid in attention_grids(scene):
        variant, field, head, *row = grid.tag
        if field != "weights" or row:
            continue
        tr = run_trace(scene.variants[variant])
        r, c = grid.values.shape
        o = getattr(grid, "offset", 0)
        expected = [[(style.interpolate(style.WEIGHT_STOPS, tr.weights[head, o + i, o + j]) if tr.mask[o + i, o + j]
                      else style.MASKED).upper() for j in range(c)] for i in range(r)]
        assert grid.fills() == expected, grid.tag


def test_masked_cells_show_zero(scene):
    blocked_seen = 0
    for grid in attention_grids(scene):
        variant, field, head, *row = grid.tag
        tr = run_trace(scene.variants[variant])
        if row or field not in ("weights", "masked") or not grid.show_numbers:
            continue
        r, c = grid.values.shape
        o = getattr(grid, "offset", 0)
        for i in range(r):
            for j in range(c):
                if not tr.mask[o + i, o + j]:
                    blocked_seen += 1
                    assert grid.texts()[i][j] == ("0.00" if field == "weights" else "−∞")
    if type(scene).__name__ == "MaskingScene" or scene.cfg.mask != "none" and type(scene).__name__ == "ScoresScene":
        assert blocked_seen > 0


def test_a_blocked_row_is_all_zero(dry_scene):
    scene = dry_scene("masking", "default")
    grid = next(g for g in scene.grids if g.tag[0] == "blocked" and g.tag[1] == "weights")
    assert run_trace(scene.variants["blocked"]).blocked_rows[0]
    assert set(grid.texts()[0]) == {"0.00"}


@pytest.mark.parametrize("lesson", ["default", "causal-5x4", "article-2x2", "eight-heads", "wide"])
def test_one_grid_per_head(dry_scene, lesson):
    scene = dry_scene("multihead", lesson)
    h = scene.trace.num_heads
    assert len(scene.head_grid_list) == min(h, 8)
    assert [g.tag[2] for g in scene.head_grid_list] == list(range(min(h, 8)))


def test_sections_and_subcaptions(scene):
    names = scene.section_names
    assert len(names) >= 4 and len(set(names)) == len(names)
    subs = scene.manager.file_writer.subcaptions
    assert [s.content for s in subs] == scene.captions and all(scene.captions)
    assert all(s.end > s.start for s in subs)
    assert all(a.end <= b.start for a, b in zip(subs, subs[1:], strict=False))  # one subtitle at a time
    assert 20 <= scene.time <= 120, f"{scene.time:.1f} s"  # silent: each step at least as long as its reading


def _overlap(a, b, tol=0.01):
    return min(a[2], b[2]) - max(a[0], b[0]) > tol and min(a[3], b[3]) - max(a[1], b[1]) > tol


def test_text_stays_in_frame_and_does_not_overlap(scene):
    assert scene.layouts, "no layout recorded"
    for step, texts in scene.layouts:
        for drawn in texts:
            x0, y0, x1, y1 = drawn.box
            assert -FRAME_HALF_W < x0 and x1 < FRAME_HALF_W and -FRAME_HALF_H < y0 and y1 < FRAME_HALF_H, \
                f"'{drawn.text}' runs off the frame in step {step}"
        for n, a in enumerate(texts):
            for b in texts[n + 1 :]:
                assert not _overlap(a.box, b.box), f"'{a.text}' overlaps '{b.text}' in step {step}"


@pytest.mark.parametrize("name", ["scores", "masking", "multihead", "scaling"])
def test_counting_pass_matches_the_render(dry_scene, name, manim_media):
    """The worker's progress total (a construct that plays nothing) equals the animations played."""
    from manim import tempconfig

    scene = dry_scene(name, "default")
    with tempconfig({"dry_run": True, "disable_caching": True, "media_dir": str(manim_media)}):
        assert type(scene).counted(scene.cfg).animations_done == scene.animations_done  # as _worker._count counts
