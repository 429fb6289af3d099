"""The Watch it learn page's first question as a room can ask it: in which layer does an
induction head form? Its answer key and its numbers are the film's own measurements.

A `Question` of kind "film": its `lesson` is the run's settings (LearnSettings.to_dict() as JSON,
not an AttentionConfig), its `numbers` the highest final induction score in each layer (then 0
for "no head"), its answer the layer of the head with the highest final score, or "no head" when
no head's final score is the threshold or more.

Its words say what its numbers are: a score "of 0.5 or more" (a head passes at the threshold), the
"highest at the end of the run" (the last snapshot's, not the highest any snapshot reached), and
"symbols" throughout (the sequences are written in letters, the space and marks).
"""

import json

from classroom import kinds
from classroom.question import Question, join_words
from core.film import INDUCTION_THRESHOLD, Film

LAYERS = 2  # the run's layers: a choice for each, then "no head"
LAYER_CHOICES = ("A head of layer 1", "A head of layer 2",
                 f"No head reaches an induction score of {INDUCTION_THRESHOLD:g} or more in this run")
TRAINED_ON = {"induction": "on sequences of random symbols in which a stretch repeats",
              "text": "to predict the next symbol (a letter, the space or a mark) of an English text; its heads are "
                      "then measured on sequences of random symbols in which a stretch repeats"}


def prompt(task: str) -> str:
    """The question as the room reads it: what the run was trained on follows its task."""
    return (f"A tiny Transformer of 2 layers of attention is trained {TRAINED_ON[task]}. In which layer will an "
            "induction head form: a head that, in the second copy, looks at the symbol that came just after the "
            "earlier copy of the current symbol?")


def which_layer_question(film: Film) -> Question:
    """The question about a two-layer film, with the film's measured answer."""
    if film.settings.layers != LAYERS:
        raise ValueError("the question is about a two-layer run")
    final = film.induction[-1]  # (L, H) at the end of the run
    best = [float(final[layer].max()) for layer in range(final.shape[0])]
    found = film.induction_head()
    answer = 2 if found is None else found[0] - 1
    if found is None:
        reason = (f"no head reached an induction score of {INDUCTION_THRESHOLD:g} or more in this run (highest at "
                  f"the end of the run: layer 1 {best[0]:.2f}, layer 2 {best[1]:.2f})")
    else:
        passing = [str(h) for la, h in sorted(film.induction_heads()) if la == found[0]]
        heads = f"head{'s' * (len(passing) > 1)} {join_words(passing)}"  # "head 3", "heads 1, 3 and 4"
        other = 2 if found[0] == 1 else 1
        reason = (f"in layer {found[0]}, {heads} reached an induction score of "
                  f"{INDUCTION_THRESHOLD:g} or more (the highest at the end of the run: {best[found[0] - 1]:.2f}); "
                  f"the highest in layer {other} at the end: {best[other - 1]:.2f}")
    return Question(kind=kinds.Film.name, lesson=json.dumps(film.settings.to_dict(), sort_keys=True), change="", head=0,
                    query=-1, prompt=prompt(film.settings.task), choices=LAYER_CHOICES, answer=(answer,),
                    multiple=False, reason=reason, numbers=(*best, 0.0))
