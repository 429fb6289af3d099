"""What a second layer buys, as a room asks it: the same tiny Transformer trained on repeats with one
layer of attention and with two; in which run does a head become an induction head?

A one-layer, attention-only model cannot build an induction head: finding "the token after the earlier
copy of the current token" needs a key that already holds its previous token, which only an earlier
layer's previous-token head can write (K-composition; Elhage et al. 2021, Olsson et al. 2022). The
answer key is not that argument but the two runs' own measurements, so a run that contradicts it is
reported as it is.

A `Question` of kind "layers": its `lesson` is the two-layer run's settings (LearnSettings.to_dict() as
JSON; the one-layer run is the same with `layers` 1), its `numbers` each run's highest final induction
score (one layer, then two) and each run's final loss (the mean of its last steps, in the same order).
"""

import json

import numpy as np

from classroom import kinds
from classroom.question import Question
from core.film import ALPHABET, INDUCTION_THRESHOLD, Film, LearnSettings

RUNS = (1, 2)  # the layers of the two runs, in the order of the choices and of `numbers`
CHOICES = ("Only the one-layer model", "Only the two-layer model", "Both models", "Neither model")
FORMED = ((True, False), (False, True), (True, True), (False, False))  # per choice: (one layer, two layers) formed one
LAST_STEPS = 10  # the final loss is the mean over these last steps (one step's loss is noisy)
CHANCE = float(np.log(len(ALPHABET)))  # the loss of a uniform guess among the symbols


def runs(settings: LearnSettings) -> tuple[LearnSettings, LearnSettings]:
    """The one-layer and the two-layer run of the question about `settings` (whatever its own layers)."""
    return tuple(settings.replace(layers=n) for n in RUNS)


def prompt(settings: LearnSettings) -> str:
    return (f"The same tiny Transformer ({settings.heads} heads a layer, attention only) is trained twice for "
            f"{settings.steps} steps on sequences of random symbols in which a stretch repeats: once with one layer "
            "of attention, once with two. In which run does a head become an induction head, one that in the second "
            "copy looks at the symbol that came just after the earlier copy of the current symbol?")


def final_loss(film: Film) -> float:
    return float(np.mean(film.loss[-LAST_STEPS:]))


def second_layer_question(one: Film, two: Film) -> Question:
    """The question about a one-layer and a two-layer run of otherwise equal settings, answered by their films."""
    if (one.settings.layers, two.settings.layers) != RUNS or one.settings.replace(layers=2) != two.settings:
        raise ValueError("the question compares a one-layer and a two-layer run of the same settings")
    best = [float(f.induction[-1].max()) for f in (one, two)]  # each run's highest final induction score
    loss = [final_loss(f) for f in (one, two)]
    formed = [b >= INDUCTION_THRESHOLD for b in best]
    answer = FORMED.index(tuple(formed))
    said = {True: "reached", False: "did not reach"}
    # "highest at the end": the last snapshot's scores (the run's highest over all its steps can be larger)
    reason = (f"the one-layer model {said[formed[0]]} an induction score of {INDUCTION_THRESHOLD:g} or more (its "
              f"highest at the end of the run: {best[0]:.2f}) and the two-layer model {said[formed[1]]} it (its "
              f"highest at the end: {best[1]:.2f}); their loss ended at {loss[0]:.2f} and "
              f"{loss[1]:.2f}, where guessing among {len(ALPHABET)} symbols scores {CHANCE:.2f}")
    return Question(kind=kinds.Layers.name, lesson=json.dumps(two.settings.to_dict(), sort_keys=True), change="",
                    head=0, query=-1, prompt=prompt(two.settings), choices=CHOICES, answer=(answer,), multiple=False,
                    reason=reason, numbers=(*best, *loss))
