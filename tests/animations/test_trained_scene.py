"""The trained scene: all-MiniLM-L6-v2's heads under manim's dry_run. Every number drawn is core's,
every sentence says what is measured and what is a reading, and the scene and the lessons that
cannot go together are refused in words (before any process starts)."""

import json

import numpy as np
import pytest

import animations.render as render_module
from animations import legibility
from animations.__main__ import main as cli
from animations.catalog import FILMS, LECTURE, SCENES, TRAINED, check_scene, scenes_for
from animations.legibility import MIN_CONTRAST, MIN_NUMBER_HEIGHT, MIN_TEXT_HEIGHT, contrast
from animations.render import render
from animations.scenes.trained import KOBAYASHI_HERE, PIECES_SHOWN
from animations.scenes.words import RANDOM_WEIGHTS
from core import HEADS_WORTH_A_LOOK, PRESETS, AttentionConfig, ConfigError, run_trace, trained_trace
from core.minilm import INSTALL_HINT
from tests.core.conftest import needs_model

from .conftest import ARTIFACTS, SKIP
from .test_scenes import FRAME_HALF_H, FRAME_HALF_W, _overlap, as_text, source_array

SENTENCE = "The cat sat on the mat because it was tired."  # 13 word pieces, all shown
WORD_PIECES = ["[CLS]", "the", "cat", "sat", "on", "the", "mat", "because", "it", "was", "tired", ".", "[SEP]"]
TEXTS = {"cat": SENTENCE, "hi": "Hi!"}  # the second: two word pieces between [CLS] and [SEP]
_rendered: dict = {}


def _dry_run(lesson: str, media_dir):
    if lesson not in _rendered:
        from manim import tempconfig

        from animations.scenes.trained import TrainedScene

        options = {"dry_run": True, "disable_caching": True, "quality": "low_quality", "progress_bar": "none",
                   "verbosity": "WARNING", "media_dir": str(media_dir)}
        with tempconfig(options):
            # every animation jumps to its end, as in the other dry runs (conftest.SKIP)
            scene = TrainedScene(AttentionConfig.trained(TEXTS[lesson]), skip_animations=SKIP)
            scene.record_layout = True
            scene.snapshot_dir = ARTIFACTS / "steps" / f"trained-{lesson}"
            scene.snapshot_dir.mkdir(parents=True, exist_ok=True)
            scene.render()
        _rendered[lesson] = scene
    return _rendered[lesson]


@pytest.fixture(params=list(TEXTS))
def scene(request, manim_media):
    return _dry_run(request.param, manim_media)


@pytest.fixture
def cat(manim_media):
    return _dry_run("cat", manim_media)


def _note(pattern):
    return next(n for n in HEADS_WORTH_A_LOOK if n.pattern == pattern)


# -- what is drawn ----------------------------------------------------------------------------
@needs_model
def test_drawn_weights_are_core_s_for_the_guided_heads(scene):
    """Each grid is its head's weights from run_trace of that head's layer, which are trained_trace's."""
    model = trained_trace(scene.cfg.text)
    drawn = {}
    for grid in scene.grids:
        expected = source_array(scene, grid)
        if grid.show_numbers:  # a short sentence: its numbers fit the cells
            assert grid.texts() == [[as_text(v) for v in row] for row in expected], grid.tag
        else:  # the whole of a longer one, in colour only, and the footnote says so (base scene)
            assert grid.numbers_dropped and len(expected) > 8, grid.tag
        np.testing.assert_array_equal(grid.values, expected)
        variant, field, head = grid.tag
        layer = scene.variants[variant].layer
        np.testing.assert_array_equal(run_trace(scene.variants[variant]).weights, model.weights[layer - 1])
        drawn[variant] = (layer, head + 1)
    assert drawn == {"previous": (1, 3), "cls": (_note("cls").layer, _note("cls").head)}  # core's list says which
    assert (_note("previous").layer, _note("previous").head) == (1, 3)  # the head: layer 1, head 3
    T = len(model.tokens)
    assert all(g.values.shape == (min(T, PIECES_SHOWN),) * 2 for g in scene.grids)


def _within(text: str, value: float) -> bool:
    """Is `text` (as measure_text prints) a true statement of `value`?"""
    if text.startswith("over "):
        return float(text[5:]) < value < 1
    if text.startswith("under "):
        return 0 < value < float(text[6:])
    digits = len(text.partition(".")[2])
    return abs(float(text) - value) <= 0.5 * 10**-digits and (0 < float(text) < 1 or float(text) == value)


@needs_model
def test_measured_pattern_is_the_mean_of_the_drawn_head(scene):
    """The value on screen, against a hand computation on the head's weights: rows 1..T-2 (the word
    pieces), their weight on the previous piece or on [CLS]."""
    model = trained_trace(scene.cfg.text)
    T = len(model.tokens)
    hand = {"previous": np.mean([model.weights[0, 2, i, i - 1] for i in range(1, T - 1)])}
    n = _note("cls")
    hand["cls"] = np.mean([model.weights[n.layer - 1, n.head - 1, i, 0] for i in range(1, T - 1)])
    assert {p for p, _ in scene.measure_labels} == {"previous", "cls"}
    for pattern, mob in scene.measure_labels:
        assert _within(mob.text, hand[pattern]), (pattern, mob.text, hand[pattern])
        step = scene.captions[scene.section_names.index(f"layer-{_note(pattern).layer}-head-{_note(pattern).head}")]
        assert (f"the weight a row puts on the piece just before it is {mob.text} (" if pattern == "previous" else
                f"{mob.text} of a row's weight") in step  # the caption says the number drawn
    assert ("on [CLS], its previous piece." in scene.captions[scene.section_names.index("layer-1-head-3")]) == (T == 4)


@needs_model
def test_what_the_cls_head_passes_on_is_measured_against_bert_modules(cat):
    """The norm-weighted share drawn and said: from transformers' BertModel modules (tests/core/conftest.py)."""
    from core.value_norms import norm_patterns
    from tests.core.conftest import load_reference, reference_run

    n = _note("cls")
    tokens, weights, norms = reference_run(load_reference(), [SENTENCE])[SENTENCE]
    expected = norm_patterns(weights, norms)
    share, shorter = expected["cls_share"][n.layer - 1, n.head - 1], expected["cls_shorter"][n.layer - 1, n.head - 1]
    ((_, drawn),) = cat.passed_on_labels
    assert _within(drawn.text, share) and share < 0.3 < 0.7 < cat.measured["cls"]
    said = dict(zip(cat.section_names, cat.captions, strict=True))["passed-on"]
    assert f"{shorter:.0f} times shorter" in said
    assert f"here the value of [CLS] is {shorter:.0f} times shorter" in said
    assert f"lengths: the share of [CLS] is only {drawn.text}, that of the word pieces " in said
    assert "The weight is parked on [CLS]; the other pieces supply the rest." in said


@needs_model
@pytest.mark.parametrize("text", ["Yes.", "It.", "What is it?"])
def test_on_short_sentences_the_cls_head_is_not_said_to_pass_on_little(text, manim_media):
    """Where [CLS]'s share is above the note's bound (short sentences), the video says so, with the
    shares from transformers' BertModel, and names the kind of sentence (no render: the caption only)."""
    from manim import tempconfig

    from animations.scenes.trained import TrainedScene
    from core.value_norms import contribution_shares
    from tests.core.conftest import load_reference, reference_run

    n = _note("cls")
    tokens, weights, norms = reference_run(load_reference(), [text])[text]
    shares = contribution_shares(weights, norms)[n.layer - 1, n.head - 1, 1:-1].mean(0)  # (T,) the pieces' rows
    cls, words, sep = shares[0], shares[1:-1].sum(), shares[-1]
    with tempconfig({"dry_run": True, "disable_caching": True, "media_dir": str(manim_media)}):
        said = TrainedScene(AttentionConfig.trained(text)).passed_on_caption()
    assert cls > 0.3 and f"[CLS] is {cls:.2f}, that of the word pieces {words:.2f} and that of [SEP] {sep:.2f}." in said
    assert "parked" not in said and "supply the rest" not in said and "only" not in said.split("Kobayashi")[0]
    assert "not on this one, nor on most sentences of 4 word pieces or fewer." in said
    assert ("Here [CLS] supplies most of what the head passes on." in said) == (cls > 0.5)
    assert KOBAYASHI_HERE in said and n.caveat not in said and "measured the same" not in said


@needs_model
def test_the_word_pieces_and_what_is_left_out(cat):
    assert cat.model.tokens == WORD_PIECES
    texts = [part.text for box in cat.pieces for part in box.get_family() if hasattr(part, "text")]
    assert texts == WORD_PIECES  # the whole sentence: its point ("because it was tired") is at its end
    said = dict(zip(cat.section_names, cat.captions, strict=True))
    assert "This sentence becomes 13 pieces" in said["word-pieces"]
    notes = dict(zip(cat.section_names, cat.footnotes, strict=True))
    assert notes["word-pieces"] == "all 13 word pieces shown"
    assert notes["passed-on"] == "weight × value length, as Kobayashi et al. (2020) measure it"


@needs_model
def test_layout_sections_and_subtitles(scene):
    names = scene.section_names
    assert len(names) >= 4 and len(set(names)) == len(names)
    subs = scene.manager.file_writer.subcaptions
    assert [s.content for s in subs] == scene.captions and all(s.end > s.start for s in subs)
    # a video of about two minutes, not a lecture of its own (its narration says where each claim fails: a bound
    # of 120 s was set before it did)
    assert 20 <= scene.time <= 150, f"{scene.time:.1f} s"
    for step, texts in scene.layouts:
        for drawn in texts:
            x0, y0, x1, y1 = drawn.box
            assert -FRAME_HALF_W < x0 and x1 < FRAME_HALF_W and -FRAME_HALF_H < y0 and y1 < FRAME_HALF_H, \
                (step, drawn.text)
        for n, a in enumerate(texts):
            assert not any(_overlap(a.box, b.box) for b in texts[n + 1 :]), (step, a.text)


@needs_model
def test_every_text_is_projector_sized_and_contrasts_with_what_it_is_read_on(scene):
    """The least sizes and WCAG contrast every lecture scene keeps (tests/animations/test_legibility.py),
    here too: the frame is 8 units high at every quality, so the sizes are those drawn in class."""
    small = [f"{step}: '{d.text}' {legibility.px_at_1080(d.height):.1f} px at 1080p"
             for step, texts in scene.layouts for d in texts
             if d.height < (MIN_NUMBER_HEIGHT if d.tier == "number" else MIN_TEXT_HEIGHT) - 1e-6]
    assert not small, small
    faint = [f"{step}: '{d.text}' {d.color} on {d.backdrop}: {contrast(d.color, d.backdrop):.2f}"
             for step, texts in scene.layouts for d in texts if contrast(d.color, d.backdrop) < MIN_CONTRAST]
    assert not faint, faint
    if any(g.show_numbers for g in scene.grids):  # the weights were checked too (a long sentence: colour only)
        assert any(d.tier == "number" for _, texts in scene.layouts for d in texts)


# -- what is said -----------------------------------------------------------------------------
@needs_model
def test_it_says_trained_not_random_and_what_the_model_reads(cat):
    said = " ".join(cat.captions)
    assert RANDOM_WEIGHTS not in said
    assert "Unlike the lecture videos on random weights, this one shows a model trained on real text: " \
        "all-MiniLM-L6-v2" in cat.captions[0]
    assert "has to be tested, not assumed (Jain and Wallace 2019; Wiegreffe and Pinter 2019)." in said
    assert "word pieces, not words" in said and "[CLS] at the start and [SEP] at the end" in said
    assert "layer 1, head 3 “Previous word piece”" in said
    n = _note("cls")
    assert f"layer {n.layer}, head {n.head} “{n.name}”" in said
    assert n.caveat in cat.captions[-1] and "Kobayashi" in n.caveat
    assert "distilled: MiniLM (Wang et al. 2020)" in cat.captions[0] and "fine-tuned" in cat.captions[0]
    assert "match only a larger teacher's last-layer self-attention, its attention weights and value relations" \
        in cat.captions[0]
    assert "Jain and Wallace 2019" in cat.captions[-1]
    assert "the piece ‘cat’ puts 0.9999 on ‘the’." in said  # the row of 'cat', rounded to 4 places
    w = trained_trace(SENTENCE).weights[0, 2, 2, 1]
    assert 0.99985 <= w < 0.99995


@needs_model
def test_counting_pass_matches_the_render(cat, manim_media):
    from manim import tempconfig

    with tempconfig({"dry_run": True, "disable_caching": True, "media_dir": str(manim_media)}):
        assert type(cat).counted(cat.cfg).animations_done == cat.animations_done  # as _worker._count counts


# -- which scene draws which lesson -----------------------------------------------------------
def _no_process(*args, **kwargs):
    raise AssertionError("a process was started")


def test_the_lecture_is_the_random_weight_scenes():
    assert "trained" in SCENES and "trained" not in LECTURE and TRAINED == ("trained",)
    assert set(LECTURE) | set(TRAINED) | set(FILMS) == set(SCENES)  # FILMS: tests/animations/test_induction_scene.py
    assert scenes_for(PRESETS["default"]) == LECTURE == scenes_for(PRESETS["article-2x2"])


def test_the_trained_scene_refuses_a_random_lesson(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(render_module.subprocess, "Popen", _no_process)
    with pytest.raises(ConfigError, match="needs a trained lesson .*; this lesson has random weights"):
        render("trained", PRESETS["default"], media_dir=tmp_path)
    with pytest.raises(ConfigError, match="this lesson has hand-entered Q, K and V"):
        check_scene("trained", PRESETS["article-2x2"])
    with pytest.raises(SystemExit) as exit_:
        cli(["render", "--scene", "trained", "--preset", "default", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "needs a trained lesson" in err and "Traceback" not in err
    assert not (tmp_path / "renders").exists()


@needs_model
def test_the_other_scenes_refuse_a_trained_lesson(monkeypatch, tmp_path):
    monkeypatch.setattr(render_module.subprocess, "Popen", _no_process)
    cfg = AttentionConfig.trained(SENTENCE, layer=2)
    assert scenes_for(cfg) == ("trained",)
    for name in LECTURE:
        with pytest.raises(ConfigError, match=f"The '{name}' video is about lessons with random or hand-entered "
                                              "weights and says so; this lesson is the trained model: render the "
                                              "'trained' video for it."):
            render(name, cfg.to_json(), media_dir=tmp_path)
    from animations.scenes.trained import TrainedScene

    with pytest.raises(ConfigError, match="needs a trained lesson"):
        TrainedScene(PRESETS["default"])


def test_without_the_model_the_render_says_how_to_install_it(monkeypatch, tmp_path, capsys):
    import core.pretrained

    def missing():
        raise ConfigError(INSTALL_HINT, "source")

    monkeypatch.setattr(core.pretrained, "model_dir", missing)
    monkeypatch.setattr(render_module.subprocess, "Popen", _no_process)
    lesson = tmp_path / "lesson.json"
    lesson.write_text(json.dumps({"source": "trained", "text": SENTENCE, "d_model": "384", "num_heads": "12"}))
    with pytest.raises(SystemExit) as exit_:
        cli(["render", "--scene", "trained", "--config", str(lesson), "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.strip() == f"Bad lesson settings: {INSTALL_HINT}"


@needs_model
def test_scene_file_loads_by_path_with_its_default_sentence():
    """What `manim -ql animations/scenes/trained.py TrainedScene` does: import the file alone, no arguments."""
    import importlib.util

    from manim import tempconfig

    path = render_module.PACKAGE_DIR / "scenes" / "trained.py"
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with tempconfig({"dry_run": True, "disable_caching": True}):
        scene = module.TrainedScene()
    assert scene.cfg.source == "trained" and scene.model.tokens == WORD_PIECES
