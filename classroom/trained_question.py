"""A trained model's head, as a room asks it: in layer L, head H of the model reading a sentence,
which word piece does one piece attend to most? Its answer key is the model's measured attention.

The row is drawn as a focus question's is (one with a clear winner, by the seed); the question then
names the model and the layer, since "head 2" alone means nothing in a model of 6 layers × 12 heads,
and says that these weights were learned, not drawn at random.
"""

import dataclasses
import random

from classroom.question import Question, QuestionError
from classroom.questions import fair_focus_question
from core.config import AttentionConfig

NOT_TRAINED = ("This question is about a trained model's heads, and this lesson has {has}: open the Trained heads "
               "page (its lesson is the trained model reading a sentence), then ask it.")


def said(text: str) -> str:
    """A sentence quoted at the end of ours: its own full stop (or ? or !) ends ours too, as in “… tired.”; a
    text without one gets ours after the quote."""
    text = text.strip()
    return f"“{text}”" if text[-1:] in (".", "?", "!", "…") else f"“{text}”."


def trained_head_question(cfg: AttentionConfig, head: int, rng: random.Random, kind: str) -> Question:
    """The question of kind `kind` about head `head` of layer `cfg.layer` of the trained lesson `cfg`."""
    if cfg.source != "trained":
        has = "hand-entered Q, K and V" if cfg.source == "manual" else "random weights"
        raise QuestionError(NOT_TRAINED.format(has=has))
    q = fair_focus_question(cfg, head, rng)
    model = cfg.trained_lesson.model.name
    query = q.choices[q.query]
    prompt = (f"The trained model {model} reads {said(cfg.text)} In layer {cfg.layer}, head {head + 1}, which word "
              f"piece does “{query}” attend to most?")
    return dataclasses.replace(q, kind=kind, prompt=prompt, reason=f"in layer {cfg.layer} of {model}, {q.reason}")
