"""Every sentence in the videos true: the tests that would have caught each wrong sentence or
picture (dry runs shared with test_scenes.py)."""

import pytest

from animations.scenes.words import ARTICLE, RANDOM_WEIGHTS
from core import run_trace
from core.lesson import with_mask

from .conftest import LESSONS, SCENES


@pytest.mark.parametrize("lesson", ["default", "causal-5x4", "eight-heads"])
@pytest.mark.parametrize("name", SCENES[:3])
def test_random_weights_said_once_and_nothing_called_learned(dry_scene, name, lesson):
    captions = dry_scene(name, lesson).captions
    assert sum(c.count(RANDOM_WEIGHTS) for c in captions) == 1
    for caption in captions:
        rest = caption.replace(RANDOM_WEIGHTS, "")
        assert "learn" not in rest.lower(), caption  # "learned matrices", "each learns a pattern": untrue here


def test_multihead_splits_q_not_x(dry_scene):
    scene = dry_scene("multihead", "default")
    split = scene.captions[scene.section_names.index("split")]
    assert "Every head sees all 16 numbers of x" in split and "Q = x·W_Q" in split
    heads = [g for g in scene.grids if g.tag[1] == "q"]  # one block of Q per head, each drawn from tr.q[k]
    assert [g.tag[2] for g in heads] == list(range(4))
    x = next(g for g in scene.grids if g.tag[1] == "x")
    assert not any(g.tag[1] == "x" and g is not x for g in scene.grids)  # x is drawn whole, never cut in bands


def test_mixing_draws_a_row_of_weights_times_v(dry_scene):
    scene = dry_scene("scores", "default")
    w = next(g for g in scene.grids if g.tag[:2] == ("main", "weights") and len(g.tag) == 4)
    v = next(g for g in scene.grids if g.tag[1] == "v")
    out = next(g for g in scene.grids if g.tag[1] == "heads")
    assert w.values.shape == (1, v.values.shape[0]) and out.values.shape == (1, v.values.shape[1])  # (1×T)(T×d)=(1×d)
    assert w.squares.width > w.squares.height  # a row on screen, not a column
    caption = scene.captions[scene.section_names.index("mix-values")]
    assert "a row of 1 × 7, times V, 7 × 4, give its output, 1 × 4" in caption


def test_a_tokens_query_is_a_row_of_q(dry_scene):
    said = dict(zip(*(lambda s: (s.section_names, s.captions))(dry_scene("scores", "default")), strict=True))
    assert "token i's query is row q_i of Q" in said["project"] and "query Q (" not in said["project"]


def test_masking_sentences(dry_scene):
    scene = dry_scene("masking", "default")
    said = dict(zip(scene.section_names, scene.captions, strict=True))
    assert "and 0 elsewhere" in said["minus-infinity"]
    assert "lower than every finite score" in said["minus-infinity"]  # −∞ loses to every score, never wins
    blocked = said["blocked-row"]  # each PyTorch claim is checked against PyTorch in tests/core/test_torch_claims.py
    assert "F.scaled_dot_product_attention returns no weights; its output for this row is 0" in blocked
    assert "since PyTorch 2.5" in blocked and "gives NaN when it returns its weights" in blocked
    assert "0 before its output projection" in blocked and "adds up to 0, not 1" in blocked
    window = said["window"]
    assert "banded or sparse kernel" in window and "all 7 × 7 scores are still computed" in window


def test_masking_demos_follow_the_pages_rule(dry_scene):
    scene = dry_scene("masking", "default")
    cfg = LESSONS["default"]
    assert scene.variants["padding"] == with_mask(cfg, "padding")
    assert scene.variants["window"] == with_mask(cfg, "window")
    assert scene.variants["blocked"] == with_mask(cfg, "custom")
    padded = run_trace(scene.variants["padding"])
    assert padded.tokens[: len(cfg.tokens)] == cfg.tokens and padded.tokens[len(cfg.tokens):] == ["PAD", "PAD"]
    grid = next(g for g in scene.grids if g.tag[0] == "padding")
    assert [t.text for t in grid.col_labels][-2:] == ["PAD", "PAD"]  # the padded keys are in view


def test_scaling_states_its_assumptions_and_the_jacobian(dry_scene):
    captions = dry_scene("scaling", "default").captions
    assert "independent, with mean 0 and variance 1" in captions[0] and "a spread of about √d_k" in captions[0]
    assert "a single random draw, so its figures jump from size to size" in captions[0]
    assert "multiplied by √16 = 4, the same numbers spread exactly √16 times as wide" in captions[1]
    assert "almost no gradient to the scores, so W_Q and W_K nearly stop learning" in captions[-1]
    assert "diag(p) − p·pᵀ, goes to 0 in every entry" in captions[-1]
    assert "reaches W_V through the value the row picked" in captions[-1]  # tests/core/test_torch_claims.py
    assert "W_O comes after the sum: its gradient never passes through the softmax" in captions[-1]


def test_scaling_footnote_says_each_size_is_a_new_draw(monkeypatch):
    from animations.scenes.scaling import ScalingScene

    notes, step = [], ScalingScene.step
    monkeypatch.setattr(ScalingScene, "step", lambda self, name, caption, markup=None, note=None:
                        (notes.append((name, note)), step(self, name, caption, markup, note))[1])
    ScalingScene.counted(LESSONS["default"])
    sizes = [note for name, note in notes if name.startswith("d_k-")]
    assert sizes and all("one random draw per size" in n and "new vectors at each size" in n for n in sizes)


@pytest.mark.parametrize("name", SCENES[:3])
def test_the_article_is_cited_where_its_example_is_used(dry_scene, name):
    assert ARTICLE in " ".join(dry_scene(name, "article-2x2").captions)
    assert ARTICLE not in " ".join(dry_scene(name, "default").captions)
    assert "entered by hand" in " ".join(dry_scene(name, "article-2x2").captions)  # no W for a hand-made lesson


def test_the_softmax_formula_is_the_lessons_own():
    """The formula on screen was always softmax(Q·Kᵀ / √d_k), even without ÷√d_k, with a temperature or a mask."""
    from animations.scenes.scores import softmax_markup

    base = LESSONS["default"]
    assert softmax_markup(base, False) == "weights = softmax(Q·K<sup>T</sup> / √d<sub>k</sub>)"
    assert softmax_markup(base.replace(scale=False), False) == "weights = softmax(Q·K<sup>T</sup>)"
    assert softmax_markup(base.replace(temperature=0.5), True) == \
        "weights = softmax(Q·K<sup>T</sup> / √d<sub>k</sub> / 0.5, blocked pairs −∞)"


def test_the_scores_video_title_names_the_scene_not_the_scaled_formula(dry_scene):
    """The title stands over every step, the raw q·k before any division included: it read "Scores: Q·Kᵀ / √d_k"
    above a dot product not divided yet, and above lessons that never divide."""
    scene = dry_scene("scores", "default")
    assert "dot-product" in scene.section_names and scene._title in scene.mobjects  # on screen to the end
    assert scene._title.text == "Inside one head"
