"""The default deck's "Weight is not contribution" screen (issue 48, item 5) shows the norm view of the head the
question before it asked, on that question's sentence: it drew layer 1, head 1 of "The cat sat on the mat." (no
"it" in it) right after a question about where "it" looks in layer 4, head 2 of another sentence."""

import numpy as np

from classroom.deck_questions import screen_question
from classroom.decks import default_deck
from core import trained_trace
from core.value_norms import value_norms
from dashboard.present import deck as decks

from .test_present import present, text


def test_the_weight_is_not_contribution_screen_shows_the_head_the_question_before_it_asked():
    deck = default_deck(decks.names())
    number = next(s.number for s in deck.screens if s.title == "Weight is not contribution")
    before = deck.screens[number - 2]
    asked = screen_question(before, lambda settings: None)
    cfg = asked.config  # the trained lesson: its sentence and layer
    assert before.question == "trained" and asked.choices[asked.query].endswith(" it")  # where "it" looks
    at = present({"deck": "default", "screen": str(number), "projector": "1"})
    # the norm view's caption reads ‖f(x)‖ of [CLS] and [SEP] for the open head: the question's head, sentence
    lengths = value_norms(trained_trace(cfg.text).layers)[cfg.layer - 1, asked.head]  # (T,)
    said = f"Here ‖f(x)‖ is {lengths[0]:.2f} for [CLS], {lengths[-1]:.2f} for [SEP]"
    assert said in text(at), text(at)[:2000]
    others = value_norms(trained_trace("The cat sat on the mat.").layers)[0, 0]
    assert not np.isclose(others[0], lengths[0], atol=0.005)  # what the screen drew before is told apart
