"""The handout's trained-model and film screens print what the projector shows (issue 48 item 13): the grid of every
head of all-MiniLM-L6-v2, the norm view of one head with its numbers checked against transformers' BertModel, and a
training film up to the step a screen shows, from a tiny film trained here; never only a repeated formula."""

import base64
import dataclasses
import io
import re
from xml.etree import ElementTree

import numpy as np
import pytest

from classroom.decks import default_deck, parse_deck
from classroom.handout import build_handout
from classroom.handout_film import NOT_TRAINED
from core.film import LearnSettings
from core.learn import train
from tests.classroom.test_handout import TOLERANCE, Page
from tests.core.conftest import load_reference, needs_model, reference_run

NUMBER = re.compile(r"−?\d+\.\d{3}")  # as the handout says it rounds: 3 decimals, never a power of ten


def section(text: str, number: int) -> str:
    return re.search(rf'<section class="screen" id="screen-{number}">(.*?)</section>', text, re.S).group(1)


def images(part: str) -> list[tuple[str, bytes]]:
    """(media type, bytes) of every <img> in `part`."""
    return [(kind, base64.b64decode(data)) for kind, data in re.findall(r'src="data:([^;]+);base64,([^"]+)"', part)]


@pytest.fixture(scope="module")
def trained(deck_names) -> tuple:
    """The default deck's Trained heads screens (the grid; the norm view), by their view's part, as its handout
    prints them: the handout of the deck's screens of that page only, numbered as in the deck."""
    deck = default_deck(deck_names)
    shown = tuple(s for s in deck.screens if s.page == "trained-heads")
    assert [dict(s.view)["part"] for s in shown] == ["grid", "norms"]
    return {dict(s.view)["part"]: s for s in shown}, build_handout(dataclasses.replace(deck, screens=shown))


@needs_model
def test_the_norm_views_screen_prints_layer_4_head_2s_it_row_as_bertmodel_computes_it(trained):
    """The norm view's screen: the weights beside the shares as one picture with the sentence's word pieces on its
    axes, and the row of "it": its weights (BertModel's eager attentions), each key's ‖f(x_j)‖ (BertModel's own
    value and output modules, tests/core/conftest.py) and each key's share α_ij‖f(x_j)‖ / Σ_l α_il‖f(x_l)‖, by
    hand from those."""
    screens, text = trained
    s = screens["norms"]
    assert dict(s.view) == {"part": "norms", "layer": "4", "head": "2", "piece": "9"}
    tokens, weights, norms = reference_run(load_reference(), [s.lesson.text])[s.lesson.text]
    it = tokens.index("it")
    assert it == 8  # piece 9, counted from 1 as the page's pills count it
    alpha, lengths = weights[3, 1, it], norms[3, 1]  # layer 4, head 2
    shares = alpha * lengths / (alpha * lengths).sum()
    part = section(text, s.number)
    table = Page(part).numbers("norms", s.number)
    assert table.shape == (len(tokens), 3)
    assert np.abs(table[:, 0] - lengths).max() <= TOLERANCE
    assert np.abs(table[:, 1] - alpha).max() <= TOLERANCE
    assert np.abs(table[:, 2] - shares).max() <= TOLERANCE
    cat = tokens.index("cat")
    assert 0.45 < alpha[cat] < 0.55 and shares[cat] > 0.6 and alpha[0] > 0.15 > 0.02 > shares[0]  # the deck's notes
    cells = re.findall(r"<td>([^<]*)</td>", part)
    assert cells and all(NUMBER.fullmatch(c) for c in cells)
    (kind, svg), = images(part)
    assert kind == "image/svg+xml"
    labels = {t.text for t in ElementTree.fromstring(svg).iter() if t.tag.endswith("text")}
    assert {"weights α_ij", "share of ‖α_ij f(x_j)‖ in row i", "9 it", "3 cat", "1 [CLS]"} <= labels
    said = re.search(r"‖f\(x\)‖ is (\d+\.\d{3}) for \[CLS\], (\d+\.\d{3}) for \[SEP\]", part)  # the page's caption
    assert np.abs(np.array(said.groups(), float) - lengths[[0, -1]]).max() <= TOLERANCE
    assert part.count("<math") == 1 and "Kobayashi" in part  # the norm formula, what the screen is about


@needs_model
def test_the_grid_screen_draws_every_head_of_the_model_as_a_grid_of_maps_and_no_formula(trained):
    """The grid's screen: one picture of 6 rows (layers) of 12 maps (heads), all equal, with the sentence the page reads
    (the lesson's) and its word pieces as BertModel's tokenizer cuts it; no formula: the heads are what it shows."""
    from PIL import Image

    screens, text = trained
    sentence = screens["grid"].lesson.text
    part = section(text, screens["grid"].number)
    assert "<math" not in part and f"reading “{sentence}”" in part
    tokens = reference_run(load_reference(), [sentence])[sentence][0]
    assert f'<span class="tokens">{", ".join(tokens)}</span>' in part
    (kind, png), = images(part)
    assert kind == "image/png"
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    coloured = pixels.max(-1) - pixels.min(-1) > 40  # viridis, never grey: a map's cells, not text or the page
    assert any(_equal_runs(row, 12) for row in coloured)  # a row of pixels across 12 maps
    assert any(_equal_runs(column, 6) for column in coloured.T)  # a column down 6 maps


def _equal_runs(line: np.ndarray, count: int) -> bool:
    """The line crosses exactly `count` coloured stretches, all of one length (± 1 pixel)."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], line.astype(int), [0]])))
    lengths = edges[1::2] - edges[::2]
    return len(lengths) == count and lengths.max() - lengths.min() <= 1 and lengths.min() >= 20


# -- films ------------------------------------------------------------------------------------------------
SETTINGS = LearnSettings(layers=2, heads=1, d_model=16, steps=60)


def film_deck(deck_names, midway: int):
    """Three screens of the run: at step 0, at `midway`, and at its end (no `at`)."""
    run = "film = { layers = 2, heads = 1, d_model = 16, steps = 60 }\n"
    screens = "".join(f'[[screen]]\nkind = "film"\ntitle = "{title}"\nminutes = 1\n{at}{run}'
                      for title, at in (("Before", "at = 0\n"), ("Midway", f"at = {midway}\n"), ("After", "")))
    return parse_deck(f'title = "Films"\n{screens}', "films.toml", deck_names)


@pytest.fixture(scope="module")
def film():
    return train(SETTINGS)  # a few seconds: 60 steps of a 16-wide model


def test_a_film_screens_curves_stop_at_the_step_it_shows(film, deck_names):
    """Each screen draws the loss of steps 1 to its step and the scores of the snapshots up to it, nothing later
    (its step: the last snapshot at or before its `at`, as the projector shows it), and prints that step's numbers."""
    snapshots = [int(x) for x in film.snapshots]
    midway = next(x for x in range(2, 60) if x not in snapshots)  # a step between two snapshots: the one before it
    deck = film_deck(deck_names, midway)
    text = build_handout(deck, film_of=lambda settings: film if settings == SETTINGS else None)
    for number, at in ((1, 0), (2, midway), (3, 60)):
        shown = max(x for x in snapshots if x <= at)
        part = section(text, number)
        assert f"Training step {shown} of 60." in part
        (_, loss), *scores = images(part)
        assert len(scores) == 2
        line = re.search(r'aria-roledescription="line mark" d="M([^"]*)"', loss.decode())
        if shown == 0:
            assert line is None and "No step is trained yet" in part
        else:  # steps 1..shown, placed at x = step × (width / 60): the last point's x is `shown` times the first's
            xs = [float(p.split(",")[0]) for p in line.group(1).split("L")]
            assert len(xs) == shown and xs[-1] / xs[0] == pytest.approx(shown, rel=1e-3)
            assert f"The loss at step {shown} is {film.loss[shown - 1]:.3f} nats" in part
        recorded = [x for x in snapshots if x <= shown]
        for _, svg in scores:  # a line per head (2 layers of 1) through the snapshots up to `shown`, at x ∝ step
            heads = re.findall(r'aria-roledescription="line mark" d="M([^"]*)"', svg.decode())
            assert len(heads) == 2
            for head in heads:
                xs = np.array([float(p.split(",")[0]) for p in head.split("L")])
                assert len(xs) == len(recorded)
                assert shown == 0 or np.allclose(xs / xs[-1], np.array(recorded) / shown)
        k = snapshots.index(shown)
        table = Page(part).numbers("film", number)
        expected = np.stack([film.previous_token[k].reshape(-1), film.induction[k].reshape(-1)], axis=1)
        assert np.abs(table - expected).max() <= TOLERANCE


def test_a_film_screen_whose_run_is_not_trained_says_so_in_one_line(deck_names):
    text = build_handout(film_deck(deck_names, 30), film_of=lambda settings: None)
    for number in (1, 2, 3):
        part = section(text, number)
        assert NOT_TRAINED in part and "<img" not in part and "make lecture" not in part


def test_the_grids_png_is_vl_converts_picture_pixel_for_pixel():
    """`smaller_png` re-encodes vl-convert's PNG without loss (in a fraction of its bytes)."""
    from PIL import Image

    from classroom import handout_chart

    weights = np.random.default_rng(0).dirichlet(np.ones(9), size=(6, 12, 9))  # (L, H, T, T), rows sum to 1
    drawn = handout_chart.vlc.vegalite_to_png(handout_chart.grid_spec(weights, "A grid"), scale=2)
    small = handout_chart.smaller_png(drawn)
    pixels = [np.asarray(Image.open(io.BytesIO(png)).convert("RGBA")) for png in (drawn, small)]
    assert (pixels[0] == pixels[1]).all() and len(small) < len(drawn) / 4


def test_the_films_chance_is_the_projectors():
    from classroom.handout_film import CHANCE
    from dashboard.charts.training import CHANCE as PROJECTOR_CHANCE

    assert CHANCE == PROJECTOR_CHANCE
