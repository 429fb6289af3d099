"""The deck's new kinds of question on a student's page (made for a phone): the prompt, the choices,
Send, then the truth and the reveal chart, as the page draws any kind (dashboard/room/student.py)."""

import numpy as np
import pytest

from classroom.kinds import suggest
from classroom.layers_question import second_layer_question
from core import AttentionConfig
from dashboard.charts.questions import letter
from dashboard.room import session as room_session
from tests.core.conftest import needs_model

from ..classroom.test_new_questions import film_with
from .conftest import chart_data, no_exception
from .test_room_pages import student, teacher, texts


@pytest.fixture(autouse=True)
def fresh_registry():
    room_session.registry.clear()
    yield
    room_session.registry.clear()


def send(at, choice: int, widget: str):
    [mine] = [w for w in getattr(at, widget) if w.label == "Your answer"]
    mine.set_value(choice).run()
    at.button(key=[b.key for b in at.button if b.key and b.key.startswith("room_send_")][0]).click().run()
    no_exception(at)


def seen(at) -> str:
    return texts(at).replace("\\", "")  # Markdown's escapes


def reveal_charts(at) -> list:
    return [meta["lab"] for meta, _ in chart_data(at) if meta.get("lab", "").startswith("reveal")]


def test_a_student_answers_the_second_layer_question_and_sees_both_runs_scores(make_app):
    t, key = teacher(make_app)
    s = student(make_app, key.code)
    q = second_layer_question(film_with(1, 0.06, 3.0), film_with(2, 0.73, 0.84))
    room_session.registry().ask(key, q)
    s.run()
    assert q.prompt in seen(s) and not reveal_charts(s)
    [pills] = [p for p in s.pills if p.label == "Your answer"]  # four short choices: pills, as a "film" question's
    assert [o.replace("\\", "") for o in pills.options] == [f"{letter(i)}. {c}" for i, c in enumerate(q.choices)], \
        "the projector's letters, then the choices"  # long choices would be a list of rows, not pills
    send(s, 1, "pills")
    assert "Sent: B. Only the two-layer model" in seen(s)
    room_session.registry().reveal(key)
    s.run()
    assert "Right:" in seen(s) and reveal_charts(s) == ["reveal-layers"]
    [(_, df)] = [(m, d) for m, d in chart_data(s) if m.get("lab") == "reveal-layers"]
    np.testing.assert_allclose(df["score"], [0.06, 0.73], rtol=1e-6)
    assert list(df["right"]) == [False, True]


@needs_model
def test_a_student_answers_a_trained_heads_question_and_sees_the_models_row(make_app):
    t, key = teacher(make_app)
    s = student(make_app, key.code)
    cfg = AttentionConfig.trained("The cat sat on the mat because it was tired.").replace(layer=4)
    q = suggest(cfg, "trained", head=1)
    room_session.registry().ask(key, q)
    s.run()
    assert "layer 4, head 2" in seen(s)
    send(s, q.answer[0], "pills")
    room_session.registry().reveal(key)
    s.run()
    assert "Right:" in seen(s) and reveal_charts(s) == ["reveal-focus"]
