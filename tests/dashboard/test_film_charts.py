"""Issue 47, item 4: a film's charts at a step draw the run up to that step and nothing later. The deck's
"before training" screen (step 0, before the question "Which layer forms an induction head?") drew every
head's whole induction curve, the answer included."""

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from classroom.decks import default_deck
from core.film import Film, LearnSettings
from dashboard.charts import training
from dashboard.present import deck as decks
from dashboard.present import projector
from dashboard.text import deck_markdown

from .conftest import APP, _register_pages, chart, no_exception

SNAPSHOTS = np.array([0, 20, 40])
FORMED = 40  # the one snapshot at which a head's induction score reaches 0.5


def film(settings: LearnSettings | None = None) -> Film:
    """A two-layer run of 40 steps whose layer 2, head 3 becomes an induction head at its last snapshot."""
    layers, heads, T, steps = 2, 4, 4, 40
    induction = np.zeros((3, layers, heads), np.float32)
    induction[:, 1, 2] = (0.05, 0.3, 0.8)
    return Film(settings=settings or LearnSettings(), loss=np.linspace(3.4, 0.5, steps, dtype=np.float32),
                accuracy=np.linspace(0.0, 0.9, steps, dtype=np.float32), baseline=np.full(steps, 3.0, np.float32),
                held_out=np.zeros(1, np.float32), probe=np.zeros(T, np.int64), snapshots=SNAPSHOTS,
                weights=np.zeros((3, layers, heads, T, T), np.float32), previous_token=induction * 0.5,
                induction=induction)


def steps_drawn(chart) -> set[int]:
    """Every step a chart's data holds, whatever its table is called."""
    spec = chart.to_dict()
    return {int(row["step"]) for rows in spec.get("datasets", {}).values() for row in rows if "step" in row}


def texts(chart) -> str:
    return json.dumps(chart.to_dict()["layer"], ensure_ascii=False)


@pytest.mark.parametrize("at", [0, 20])
def test_a_films_charts_at_a_step_hold_no_point_after_it_and_name_no_later_step(at):
    run = film()
    total = run.settings.steps
    charts = {"loss": training.loss_chart(range(1, 41), run.loss, total, at, run.formed_at(), 3.0),
              "accuracy": training.accuracy_chart(range(1, 41), run.accuracy, total, "induction", at),
              "induction": training.scores_chart(SNAPSHOTS, run.induction, "induction", total, at),
              "previous": training.scores_chart(SNAPSHOTS, run.previous_token, "previous_token", total, at)}
    assert run.formed_at() == FORMED > at
    for name, c in charts.items():
        assert max(steps_drawn(c), default=at) <= at, name
        assert f"step {FORMED}" not in texts(c), name
    assert steps_drawn(charts["induction"]) == {int(s) for s in SNAPSHOTS if s <= at}  # the snapshots until then
    assert steps_drawn(charts["loss"]) == set(range(1, at + 1))


def test_at_the_end_the_charts_draw_the_whole_run_and_the_step_the_head_formed():
    run = film()
    loss = training.loss_chart(range(1, 41), run.loss, 40, 40, run.formed_at())
    assert steps_drawn(loss) == set(range(1, 41)) and f"step {FORMED}:" in texts(loss)
    assert steps_drawn(training.scores_chart(SNAPSHOTS, run.induction, "induction", 40, 40)) == {0, 20, 40}


def test_the_decks_film_screen_at_step_0_shows_no_later_point(monkeypatch):
    deck = default_deck(decks.names())
    screen = next(s for s in deck.screens if s.kind == "film" and s.at == 0)
    made = film(screen.film)
    monkeypatch.setattr(projector, "films", lambda: type("Store", (), {"cached": lambda self, s: made})())
    at = AppTest.from_file(str(APP), default_timeout=60)
    _register_pages(at)
    at.switch_page("app_pages/present.py")
    at.query_params = {"deck": "default", "screen": str(screen.number), "projector": "1"}
    at.run()
    no_exception(at)
    assert at.title[0].value == deck_markdown(screen.title, inline=True)  # a deck's title, as the projector escapes it
    for lab in ("learn-loss", "learn-previous_token", "learn-induction"):
        data = chart(at, lab)
        assert (data["step"] <= 0).all(), lab
    specs = " ".join(e.proto.spec for e in at.get("vega_lite_chart"))
    assert f"step {FORMED}" not in specs and "first induction" not in specs
