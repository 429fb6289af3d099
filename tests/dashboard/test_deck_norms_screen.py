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


def test_the_weight_is_not_contribution_notes_say_what_the_head_measures():
    """The screen's notes, in words: in the row of "it", [CLS] takes "about a fifth" of the weight and makes
    "almost none" of what the head passes on; "cat" takes "about half" and makes "about two thirds". The
    shares are ‖α_ij f(x_j)‖ over the row's sum, f(x_j) = v_j W_O (Kobayashi et al. 2020), computed here
    from the trace's own v and W_O rows, not by core.value_norms."""
    deck = default_deck(decks.names())
    screen = next(s for s in deck.screens if s.title == "Weight is not contribution")
    for words in ("about a fifth of the weight", "almost none", "about half of the weight", "about two thirds"):
        assert words in " ".join(screen.notes.split())
    layer, head = int(dict(screen.view)["layer"]), int(dict(screen.view)["head"]) - 1
    trace = trained_trace(screen.lesson.text).layers[layer - 1]
    tokens = list(trained_trace(screen.lesson.text).tokens)
    it, cls, cat = tokens.index("it"), tokens.index("[CLS]"), tokens.index("cat")
    d_k = trace.v.shape[-1]
    f = np.asarray(trace.v[head], np.float64) @ np.asarray(trace.w_o, np.float64)[head * d_k:(head + 1) * d_k]
    weights = np.asarray(trace.weights[head, it], np.float64)  # (T,)
    passed = weights * np.linalg.norm(f, axis=-1)
    share = passed / passed.sum()
    assert 0.17 <= weights[cls] <= 0.23 and share[cls] <= 0.02
    assert 0.45 <= weights[cat] <= 0.55 and 0.62 <= share[cat] <= 0.71
