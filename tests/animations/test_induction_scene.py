"""The induction scene under manim's dry run (class quality, shared with the other dry-run tests'
set-up): drawn from the default film, every number it draws or says is the film's, and its text
passes the projector rules every lecture scene passes."""

import math
import re

import numpy as np
import pytest

import animations.render as render_module
from animations import legibility
from animations.catalog import FILMS, LECTURE, SCENES, check_scene, scenes_for
from animations.legibility import MIN_CONTRAST, MIN_NUMBER_HEIGHT, MIN_TEXT_HEIGHT, contrast
from animations.scenes.induction import repeat
from animations.speech import SPEAKABLE, spoken
from core import PRESETS, AttentionConfig
from core.film import LearnSettings, encode
from core.trace import shown_token

from .test_scenes import FRAME_HALF_H, FRAME_HALF_W, _overlap

SECTIONS = ["the-task", "the-loss", "previous-head", "induction-head", "the-circuit", "shared-work"]


@pytest.fixture(scope="module")
def scene(dry_scene):
    return dry_scene("induction", "default")


@pytest.fixture(scope="module")
def film(scene):
    assert scene.film.settings == LearnSettings()  # the default film, as the class trains it
    return scene.film


def said(scene) -> dict[str, str]:
    return dict(zip(scene.section_names, scene.captions, strict=True))


# -- the repeat and the window, on sequences made by hand ----------------------------------------
def test_the_repeat_is_the_longest_stretch_seen_twice():
    assert repeat(encode("xyabcdefqrabcdefw")) == (2, 10, 6)
    assert repeat(encode("abab")) == (0, 2, 2)  # two copies side by side, not overlapping
    assert repeat(encode("abcabcabc")) == (0, 3, 3)  # 'abcabc' twice would overlap itself
    assert repeat(encode("abcd")) == (0, 0, 0)


def test_the_probes_repeat_is_where_core_wrote_it(film):
    import torch

    from core.learn_tasks import PROBE_SEED, clean_repeats

    made = clean_repeats(torch.Generator().manual_seed(PROBE_SEED), 1)  # how core makes the probe
    assert made.tokens[0].tolist() == film.probe.tolist()
    assert repeat(film.probe) == (made.first.item(), made.second.item(), made.length.item())


# -- what is drawn ------------------------------------------------------------------------------
def test_sections_each_with_a_caption_spoken_in_words(scene):
    assert scene.section_names == SECTIONS
    subs = scene.manager.file_writer.subcaptions
    assert [s.content for s in subs] == scene.captions and all(scene.captions)
    assert all(s.end > s.start for s in subs)
    for caption in scene.captions:
        words = spoken(caption)
        assert SPEAKABLE.fullmatch(words) and not re.search(r"\d[.,]\d", words), words
        assert "_" not in caption and "ln " not in caption  # no code names or symbols read out
    assert 40 <= scene.time <= 150, f"{scene.time:.1f} s"  # silent: each step at least its reading time


def test_the_heads_drawn_are_the_measured_ones(scene, film):
    prev, ind = film.previous_token, film.induction  # (K, L, H)
    best = {kind: tuple(int(v) + 1 for v in np.unravel_index(np.argmax(s[-1]), s[-1].shape))
            for kind, s in (("previous", prev), ("induction", ind))}
    assert best["previous"][0] == 1 and best["induction"][0] == 2  # the circuit: layer 1 feeds layer 2
    assert scene.heads == best
    drawn = {(g.tag[2], g.tag[3]) for g in scene.grids}
    assert drawn == set(best.values())


def test_drawn_weights_are_the_films_at_before_phase_change_and_after(scene, film):
    first, second, n = scene.first, scene.second, scene.length
    rows = {(first, first + n), (second, second + n - 1)}  # the first copy; the second's predicted letters
    steps = set()
    for grid in scene.grids:
        _, k, layer, head, r0, r1 = grid.tag
        assert (r0, r1) in rows and grid.values.shape == (r1 - r0, len(film.probe))
        np.testing.assert_array_equal(grid.values, film.weights[k, layer - 1, head - 1, r0:r1])
        assert [t.text for t in grid.row_labels] == [shown_token(t) for t in film.probe_labels[r0:r1]]
        # the columns are single letters on one baseline (induction_parts.column_letters): "," stays bare there
        assert [t.text for t in grid.col_labels] == film.probe_labels
        steps.add(int(film.snapshots[k]))
    formed = int(film.snapshots[[k for k in range(len(film.snapshots))
                                 if film.induction[k].max() >= 0.5][0]])  # the first snapshot scoring 0.5
    assert steps == {0, formed, int(film.snapshots[-1])} and int(film.snapshots[-1]) == film.settings.steps
    assert len(scene.grids) == 6 and scene.formed == formed
    assert [t.text for t in scene.probe.letters] == film.probe_labels


def test_the_cells_marked_are_the_ones_each_score_reads(scene, film):
    """Previous token: the key just before the query. Induction: the key whose previous token is the
    query's own token, an earlier occurrence of it, found by hand on the probe."""
    ids = film.probe.tolist()
    r0, _ = scene.rows["previous"]
    assert all(r0 + i - 1 == j for i, j in scene.cells("previous"))
    r0, r1 = scene.rows["induction"]
    marked = [(r0 + i, j) for i, j in scene.cells("induction")]
    assert [q for q, _ in marked] == list(range(r0, r1))
    for query, key in marked:
        assert key < query and ids[key - 1] == ids[query] and scene.first < key <= scene.first + scene.length


def test_scores_printed_are_the_films_to_the_printed_digit(scene, film):
    assert len(scene.scores_drawn) == 6
    for kind, step, text in scene.scores_drawn:
        layer, head = scene.heads[kind]
        k = list(film.snapshots).index(step)
        value = (film.previous_token if kind == "previous" else film.induction)[k, layer - 1, head - 1]
        assert text == f"{value:.2f}"
        percent = f"{round(100 * float(value))}%"
        assert percent in said(scene)[f"{kind}-head"]


def test_the_loss_chart_marks_the_phase_change_and_chance(scene, film):
    chart = scene.chart
    formed = scene.formed
    assert chart.marker[1].text == f"step {formed}: induction score ≥ 0.5"
    assert chart.chance[1].text == "chance: ln 32 ≈ 3.47"  # ln 32 = 3.4657...
    x0, x1 = chart.axes[0][0].get_start()[0], chart.axes[0][0].get_end()[0]
    assert chart.marker[0].get_start()[0] == pytest.approx(x0 + (x1 - x0) * formed / film.settings.steps)
    points = np.asarray(chart.curve.get_anchors())
    assert len(np.unique(points[:, 0].round(6))) == len(film.loss) == film.settings.steps
    loss = said(scene)["the-loss"]
    P = next(i + 1 for i, v in enumerate(film.loss) if v < 3.1191)  # 90 % of ln 32 = 3.1191...
    Q = next(i + 1 for i, v in enumerate(film.loss) if v < 1.7329)  # half of ln 32 = 1.7329...
    assert all(v >= 3.1191 for v in film.loss[: P - 1]) and film.loss[P - 1] < 3.1191
    assert "about 3.5: chance" in loss and f"For the first {P - 1} steps, the loss stays above 3.1. A plateau" in loss
    assert all(v >= 1.7329 for v in film.loss[: Q - 1]) and f"in {Q - P + 1} steps, it falls to half of chance" in loss
    # the Watch it learn page's "final loss": the mean of the last 10 steps, two decimals
    assert f"Over its last 10 steps it averages {film.loss[-10:].mean():.2f}." in loss
    assert f"line marks step {formed}: there, a head's induction score is first recorded at 50% or more" in loss


def test_every_number_said_is_the_films(scene, film):
    """Each number in the captions, against the values a reader can check: the settings, the probe's
    repeat (found by hand below), the snapshot steps, scores, losses, chance, and the paper's year."""
    s, T = film.settings, len(film.probe)
    ids = list(film.probe)
    first, second, n = scene.first, scene.second, scene.length
    assert ids[first:first + n] == ids[second:second + n] and first + n <= second
    P = next(i + 1 for i, v in enumerate(film.loss) if v < 0.9 * math.log(32))  # the plateau ends
    Q = next(i + 1 for i, v in enumerate(film.loss) if v < 0.5 * math.log(32))  # half of chance
    allowed = {s.layers, s.heads, s.layers * s.heads, s.steps, T, n, first + 1, second + 1, second - first - 1,
               32, 2021, 2022, 16, P - 1, Q - P + 1, Q, 10, 256}
    allowed |= {len(film.previous_token_heads()), len(film.induction_heads())}
    allowed |= {v for head in film.induction_heads() for v in head}
    allowed |= {int((scores[-1] >= 0.5).sum()) for scores in (film.previous_token, film.induction)}
    allowed |= {v for head in scene.heads.values() for v in head} | {int(v) for v in film.snapshots}
    allowed_decimals = {f"{math.log(32):.1f}", f"{0.9 * math.log(32):.1f}", f"{film.loss[-10:].mean():.2f}"}
    (l1, h1), (l2, h2) = scene.heads["previous"], scene.heads["induction"]
    values = [*film.previous_token[:, l1 - 1, h1 - 1], *film.induction[:, l2 - 1, h2 - 1]]
    scores = {f"{round(100 * float(v))}%" for v in values} | {"50%", "3%"}
    scores |= {scene.prediction.split(", ")[-1].removeprefix("over ")}  # "over 99%": held to the model's
    scores |= {text for _, text in scene.ablation_drawn}  # held to a hand ablation in test_the_work_is_shared
    scores |= {f"{round(100 * float(scene.ablation['previous'][1]))}%"}  # no previous-token head: held there too
    for caption in scene.captions:
        for number in re.findall(r"(?<![\w.])\d+(?:\.\d+)?%?", caption):
            if number.endswith("%"):
                assert number in scores, (number, caption)
            elif "." in number:
                assert number in allowed_decimals, (number, caption)
            else:
                assert int(number) in allowed, (number, caption)


def test_text_in_frame_legible_and_apart(scene):
    """The rules every lecture scene keeps (tests/animations/test_legibility.py, test_scenes.py)."""
    assert len(scene.layouts) == len(SECTIONS)
    for step, texts in scene.layouts:
        for d in texts:
            x0, y0, x1, y1 = d.box
            assert -FRAME_HALF_W < x0 and x1 < FRAME_HALF_W and -FRAME_HALF_H < y0 and y1 < FRAME_HALF_H, \
                (step, d.text)
            least = MIN_NUMBER_HEIGHT if d.tier == "number" else MIN_TEXT_HEIGHT
            assert d.height >= least - 1e-6, f"{step}: '{d.text}' {legibility.px_at_1080(d.height):.1f} px"
            assert contrast(d.color, d.backdrop) >= MIN_CONTRAST, (step, d.text, d.color, d.backdrop)
        for n, a in enumerate(texts):
            assert not any(_overlap(a.box, b.box) for b in texts[n + 1:]), (step, a.text)
    grids = {step for step, texts in scene.layouts if any("colour only" in d.text for d in texts)}
    assert grids == {"previous-head", "induction-head"}  # 48 columns: colour only, and the footnote says so


def test_counting_pass_matches_the_render(scene, manim_media):
    from manim import tempconfig

    with tempconfig({"dry_run": True, "disable_caching": True, "media_dir": str(manim_media)}):
        counted = type(scene).counted(scene.cfg)
    assert counted.animations_done == scene.animations_done and counted.captions == scene.captions


# -- the catalogue: a film's scene, not a lesson's -------------------------------------------------
def test_the_film_scene_is_no_lessons_scene():
    assert FILMS == ("induction",) and "induction" in SCENES and "induction" not in LECTURE
    trained = AttentionConfig.trained("Hi!")
    for cfg in (PRESETS["default"], PRESETS["article-2x2"], trained):
        assert "induction" not in scenes_for(cfg)
        check_scene("induction", cfg)  # any lesson is accepted
    assert scenes_for(PRESETS["default"]) == ("scores", "masking", "multihead", "scaling")
    assert scenes_for(trained) == ("trained",)


def test_a_render_ignores_the_lesson_and_caches_one_video(monkeypatch, tmp_path):
    jobs = []

    def fake_worker(work, name, cfg, quality, on_progress, timeout, voice, tts_dir):
        jobs.append(cfg)
        (work / "manim" / "videos" / "x").mkdir(parents=True)
        (work / "manim" / "videos" / "x" / f"{name}.mp4").write_bytes(b"\0")

    monkeypatch.setattr(render_module, "_run_worker", fake_worker)
    one = render_module.render("induction", PRESETS["article-2x2"], media_dir=tmp_path, voice=None)
    two = render_module.render("InductionScene", AttentionConfig(seq_len=5), media_dir=tmp_path, voice=None)
    assert one == two and jobs == [PRESETS["default"]]  # one render, the second a cache hit


def test_the_circuit_said_is_what_the_heads_do_on_the_probe(scene, film):
    """'‘b’ carries ‘a’' and 'at the second copy's ‘a’ ... finds ‘b’': at the end, the previous-token
    head's row of the first copy's token after ‘a’ peaks on ‘a’, and the induction head's row of the
    second copy's ‘a’ peaks on the token after the earlier ‘a’, at the place the scene tells."""
    (l1, h1), (l2, h2) = scene.heads["previous"], scene.heads["induction"]
    a, second = scene.first + scene.at, scene.second + scene.at
    assert 0 <= scene.at < scene.length - 1
    assert np.argmax(film.weights[-1, l1 - 1, h1 - 1, a + 1]) == a
    assert np.argmax(film.weights[-1, l2 - 1, h2 - 1, second]) == a + 1


def test_the_circuit_is_told_where_the_model_predicts_the_copy(scene, film):
    """The place told is the copy's first where both heads do what is said, the trained model's
    likeliest next token is the copied one (at the copy's first token the default film gives it little),
    and both tokens are letters, which a narrator can say."""
    from core.learn import run

    _, probs = run(film, film.probe.tolist())  # (T, V)
    (l1, h1), (l2, h2) = scene.heads["previous"], scene.heads["induction"]
    w = film.weights[-1]

    def told(i):
        a, q = scene.first + i, scene.second + i
        return (np.argmax(w[l1 - 1, h1 - 1, a + 1]) == a and np.argmax(w[l2 - 1, h2 - 1, q]) == a + 1
                and np.argmax(probs[q]) == film.probe[a + 1])

    def letters(i):
        return all(film.probe_labels[scene.first + j].isalpha() for j in (i, i + 1))

    assert told(scene.at) and letters(scene.at)
    assert not any(told(i) and letters(i) for i in range(scene.at))


def test_the_prediction_shown_is_the_trained_models(scene, film):
    from core.learn import run

    _, probs = run(film, film.probe.tolist())  # (T, V)
    a, b = film.probe_labels[scene.first + scene.at], film.probe_labels[scene.first + scene.at + 1]
    p = float(probs[scene.second + scene.at, film.probe[scene.first + scene.at + 1]])  # the copy's next letter
    share = f"{round(100 * p)}%" if round(100 * p) < 100 else "over 99%"  # never 100% for less than all
    assert p > 0.5 and scene.prediction == f"predicted: ‘{b}’, {share}"
    circuit = said(scene)["the-circuit"]
    assert f"At the second copy's character ‘{a}’" in circuit
    assert f"It finds the character ‘{b}’, and passes it on: the trained model gives the character ‘{b}’ " \
           f"{share} there" in circuit
    assert "Elhage and colleagues described this circuit in 2021" in circuit
    assert "Olsson and colleagues studied how it forms, in 2022" in circuit


def test_narrated_a_step_lasts_its_speech_and_a_look(scene, tmp_path, monkeypatch):
    """With a voice, a step lasts at least its speech with the narrator's lead and tail (the base
    scene's rule, tests/animations/test_narration.py), and `look` seconds more for the class to read
    the picture; silent, nothing is added (speech of known lengths stands in for Piper)."""
    import animations.narration as narration_module
    from animations.narration import HOLD, LEAD, TAIL, Narration
    from animations.voice import NARRATOR

    from .test_narration import FakeSynthesis

    monkeypatch.setattr(FakeSynthesis, "lengths", [20.0] + [1.0] * (len(scene.captions) - 1))
    monkeypatch.setattr(narration_module, "Synthesis", FakeSynthesis)
    cls = type(scene)
    narrated = cls(narration=Narration(scene.captions, scene.section_seconds, NARRATOR, tmp_path))
    narrated.captions.append(scene.captions[0])  # as step() does before it speaks
    assert narrated._speak(scene.captions[0]) == pytest.approx(LEAD + 20.0 + max(TAIL, HOLD * 20.0) + cls.look)
    assert cls(narration=None)._speak(scene.captions[0]) == 0.0

