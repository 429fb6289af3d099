"""Predict, then reveal, on the pages: nothing that gives the answer away before the commit, and
after it, the answer key is what the revealed chart shows (read back from the AppTest element)
and what the page's own charts show (which test_sweep holds to core's numbers)."""

import numpy as np
import pytest
from markdown_it import MarkdownIt

from classroom.kinds import KINDS, suggest
from classroom.question import QuestionError
from classroom.questions import BUCKETS
from core import ConfigError
from dashboard.app_pages.predict import clicked_column
from dashboard.charts import questions as qc
from dashboard.lesson.state import url_params
from dashboard.text import plain

from .conftest import chart, chart_data, no_exception
from .test_sweep import random_lessons


def bucket(delta: float) -> int:
    """The range of BUCKETS a change falls in, read off their labels: below 0.01 it "stays"; then
    0.01 to 0.1, 0.1 to 0.3, 0.3 or more, up or down, each range holding its lower end."""
    steps = sum(abs(delta) >= edge for edge in (0.01, 0.1, 0.3))
    return 3 if steps == 0 else 3 + steps if delta > 0 else 3 - steps


def labs(at) -> list[str]:
    return [meta.get("lab") for meta, _ in chart_data(at)]


def on_screen(at, slot: str):
    """The question on screen (made in the app's thread: torch's thread count there is the app's)."""
    return at.session_state[f"predict_question_{slot}"]


def commit(at, slot: str, question, answer):
    widget = at.radio if question.kind == "change" else at.pills
    widget(key=f"predict_pick_{slot}_{question.key()}").set_value(answer).run()
    at.button(key=f"predict_commit_{slot}").click().run()
    no_exception(at)


def lessons_with(kind: str, n: int, seed: int, **kwargs):
    """Random lessons that have a question of `kind` (one-token lessons have no focus question)."""
    out = []
    for cfg in random_lessons(4 * n, seed=seed):
        try:
            suggest(cfg, kind, head=0, seed=0, **kwargs)
        except (QuestionError, ConfigError):
            continue
        out.append(cfg)
    return out[:n]


@pytest.mark.parametrize("cfg", lessons_with("focus", 4, seed=11), ids=lambda c: f"T{c.num_tokens}-{c.mask}")
def test_which_key_wins_is_what_the_revealed_weights_show(make_app, cfg):
    at = make_app(query={**url_params(cfg), "predict": "1"})
    assert "weights" not in labs(at) and "reveal-focus" not in labs(at), "hidden until the commit"
    q = on_screen(at, "softmax")
    assert q.kind == "focus" and q.config == cfg
    commit(at, "softmax", q, q.answer[-1])
    shown = chart(at, "reveal-focus")["weight"].to_numpy()
    assert set(np.flatnonzero(shown >= shown.max() - 0.005)) == set(q.answer)
    page = chart(at, "weights", 0)
    row = page[page["row"] == q.query].sort_values("col")["weight"].to_numpy()
    np.testing.assert_allclose(shown, row, rtol=1e-6)  # the reveal is the page's own heatmap row
    assert at.success and "Right" in at.success[0].value


@pytest.mark.parametrize("cfg", lessons_with("change", 4, seed=12), ids=lambda c: f"T{c.num_tokens}-{c.mask}")
def test_after_a_change_the_answer_is_the_revealed_rows_difference(make_app, cfg):
    at = make_app(query={**url_params(cfg), "predict": "1"})
    at.segmented_control(key="predict_kind_softmax").set_value("change").run()
    q = on_screen(at, "softmax")
    assert q.kind == "change" and "weights" not in labs(at)
    assert q.prompt.replace("\\", "") in " ".join(m.value for m in at.markdown).replace("\\", "")
    wrong = (q.answer[0] + 3) % len(BUCKETS)
    commit(at, "softmax", q, wrong)
    df = chart(at, "reveal-change")
    before, after = (df[df["lesson"] == w]["weight"].to_numpy() for w in ("before", "after"))
    assert bucket(after.max() - before.max()) == q.answer[0]
    assert at.warning and at.warning[0].value.replace("\\", "").startswith(f"You chose “{BUCKETS[wrong]}”")


@pytest.mark.parametrize("kind", ["causal", "padding", "window", "custom"])
def test_blocked_rows_are_the_rows_the_revealed_chart_and_the_mask_leave_empty(make_app, kind):
    cfg = random_lessons(1, seed=ord(kind[0]))[0].replace(mask="none", custom_mask=())
    at = make_app(query={**url_params(cfg), "predict": "1", "show": kind}, page="masking")
    q = on_screen(at, "masking")
    assert (q.kind, q.change) == ("blocked", kind)
    assert not {"masked", "weights", "reveal-blocked"} & set(labs(at)), "the mask's effect is hidden"
    commit(at, "masking", q, list(q.answer))
    keys = chart(at, "reveal-blocked")["keys"].to_numpy()
    rows = tuple(np.flatnonzero(keys == 0)) or (len(q.choices) - 1,)  # none: "no row is fully blocked"
    assert rows == q.answer
    masked = chart(at, "masked", 0)
    fully = masked.groupby("row")["masked"].all()
    assert tuple(fully[fully].index) == tuple(np.flatnonzero(keys == 0))


def test_the_why_scale_demonstration_waits_for_the_prediction_and_the_score_counts(make_app):
    at = make_app(query={"predict": "1"}, page="why_scale")
    assert not [lab for lab in labs(at) if lab.startswith(("saturation", "row-"))]
    q = on_screen(at, "why_scale")
    assert (q.kind, q.change) == ("change", "scale:off")
    commit(at, "why_scale", q, q.answer[0])
    assert {"saturation-entropy", "row-scaled", "reveal-change"} <= set(labs(at))
    at.button(key="predict_next_why_scale").click().run()
    q2 = on_screen(at, "why_scale")
    commit(at, "why_scale", q2, (q2.answer[0] + 1) % len(BUCKETS))
    assert "1 right of 2" in " ".join(c.value for c in at.caption)


def test_every_kind_of_question_has_the_chart_that_decides_it():
    assert set(qc.REVEALS) == set(KINDS.values())


def test_nothing_is_hidden_with_the_switch_off(make_app):
    at = make_app()
    assert "weights" in labs(at) and not at.get("pills")


def test_a_commit_without_an_answer_says_what_to_do(make_app):
    at = make_app(query={"predict": "1"})
    at.button(key="predict_commit_softmax").click().run()
    assert "Pick an answer first" in at.warning[0].value and "weights" not in labs(at)


def test_a_chart_click_reads_as_the_clicked_key():
    assert clicked_column({"selection": {"pick": [{"col": 3}]}}) == 3
    assert clicked_column({"selection": {"pick": [{"col": np.int64(2), "key": "3 sat"}]}}) == 2
    for nothing in (None, {}, {"selection": {}}, {"selection": {"pick": []}}, {"selection": {"pick": [{"col": "x"}]}}):
        assert clicked_column(nothing) is None


@pytest.mark.parametrize("text", ["*bold* _it_ `code`", "[link](http://x)", "$x^2$ :red[alarm]", "<b>html</b> &amp;",
                                  "# heading", "1. not a list", "\\back\\slash", "| a | b |", "~~gone~~"])
def test_question_text_reaches_markdown_as_plain_text(text):
    html = MarkdownIt("commonmark").render(plain(text)).replace("\u2060", "")  # invisible: keeps autolinks off
    assert html == f"<p>{MarkdownIt('commonmark').utils.escapeHtml(text)}</p>\n"
