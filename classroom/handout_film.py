"""A film screen in the students' handout: the training run at the step the screen shows, as the projector draws
it (dashboard/present/projector.py's film screen, dashboard/charts/training.py's charts): the loss up to that step,
and each head's previous-token and induction scores at the snapshots up to it, nothing later (a screen before its
question must not show where the curves go). The step is the last snapshot at or before the screen's `at`, as
there. The film is the one on disk (`film_of`): a handout never trains one, and says so when there is none.
"""

import html
import math

from classroom import handout_chart as chart
from classroom.handout_text import number
from core.film import ALPHABET, INDUCTION_THRESHOLD, PREVIOUS_THRESHOLD

e = html.escape
CHANCE = math.log(len(ALPHABET))  # a uniform guess among the symbols: dashboard/charts/training.py's CHANCE
NOT_TRAINED = "The run is not printed here: it was not trained when this handout was made."
SCORES = (("previous_token", "previous-token score", PREVIOUS_THRESHOLD), ("induction", "induction score",
                                                                           INDUCTION_THRESHOLD))


class FilmRun:
    """The run's loss and its heads' scores up to the step shown, with that step's numbers."""

    name = "film"

    @staticmethod
    def key(s) -> tuple:
        return s.film.key(), s.at

    @staticmethod
    def html(s, film_of) -> str:
        film = film_of(s.film)
        if film is None:
            return f'<p class="meta">{NOT_TRAINED}</p>'
        k = film.snapshot_index(s.at)
        at, total = int(film.snapshots[k]), film.settings.steps
        top = max(CHANCE, float(film.loss.max())) * 1.08  # the whole run's scale, as the projector's
        loss = chart.loss_spec(film.loss, total, at, top, CHANCE, film.formed_at(), "Loss while it learns")
        scores = ""
        for field, name, threshold in SCORES:  # side by side, as on the projector
            spec = chart.scores_spec(film.snapshots, getattr(film, field), at, total, threshold, name,
                                     f"{name.capitalize()} per head")
            scores += chart.image(spec, f"Each head's {name} at the recorded steps up to step {at}")
        return (f'{_said(film, at, total)}<div>{chart.image(loss, f"The training loss from step 1 to step {at}")}</div>'
                f'<div class="charts">{scores}</div>{_scores(s.number, film, k)}')


def _said(film, at: int, total: int) -> str:
    """The step shown and the loss there, in words."""
    if at == 0:
        loss = "No step is trained yet, so there is no loss to draw; the model's weights are random."
    else:
        loss = f"The loss at step {at:,} is {number(float(film.loss[at - 1]))} nats (chance: {number(CHANCE)})."
    formed = film.formed_at()
    if formed is not None and formed <= at:
        loss += f" A head's induction score first reached {INDUCTION_THRESHOLD:g} at step {formed:,}."
    return (f'<p class="lesson">Training step {at:,} of {total:,}. {loss} The curves stop at the step shown; the '
            f"lab's Watch it learn page plays the whole run.</p>")


def _scores(screen: int, film, k: int) -> str:
    """Every head's two scores at snapshot `k` (the step shown)."""
    L, H = film.induction.shape[1:]
    rows = "".join(f'<tr><th scope="row">layer {la + 1}, head {h + 1}</th><td>{number(film.previous_token[k, la, h])}'
                   f"</td><td>{number(film.induction[k, la, h])}</td></tr>" for la in range(L) for h in range(H))
    return (f'<table class="numbers" data-lab="film" data-screen="{screen}"><caption>Each head\'s scores at step '
            f"{int(film.snapshots[k]):,}</caption><tr><th>head</th><th scope=\"col\">previous-token score</th>"
            f'<th scope="col">induction score</th></tr>{rows}</table>')
