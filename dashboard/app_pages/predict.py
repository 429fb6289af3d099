"""Predict, then reveal: a page hides what gives the answer away until the student commits.

Students who predict before a demonstration understand it better than those who only watch
it (Crouch et al., Am. J. Phys. 72:835, 2004). A page that takes part:

    if controls.predict_first("masking"):               # the "Predict first" toggle
        question = predict.lesson_question("masking", cfg, ("blocked",), mask=kind)
        shown = question is None or predict.hide_until_committed(question, "masking")
    if shown: ...draw the charts that show the answer...

`hide_until_committed(question, slot)` takes any `classroom.question.Question` (the trained-heads
page can pass its own): before the commit it draws the question and its answer widgets; after
it, the truth beside the student's answer, the one sentence why, the chart that decides the
answer (`reveal_chart`), and the session's running score. Nothing about the student is kept
outside their session; the score has no name.
"""

import numbers

import streamlit as st

from classroom.kinds import kind_of, suggest
from classroom.question import Question, QuestionError
from dashboard import data
from dashboard.charts import questions as qc
from dashboard.charts.draw import look, set_look, spec_without_data
from dashboard.data import MemoryLRU
from dashboard.process import Held
from dashboard.room import session as room_session
from dashboard.text import plain

SCORE = "predict_score"  # session: the running score
_CHARTS = MemoryLRU(budget=float("inf"), max_items=128)  # reveal charts (≤ 64 rows of data each), by question
MAX_QUESTIONS = 512  # cached per server; a question is at most ~40 kB as JSON (RoomLimits), so <= ~20 MB


_questions = Held(lambda: MemoryLRU(budget=float("inf"), max_items=MAX_QUESTIONS))  # no arrays: counted


# -- the question -------------------------------------------------------------------------
def seed(slot: str) -> int:
    """Which question of its kind the slot shows; "Another question" moves it on."""
    return st.session_state.setdefault(f"predict_seed_{slot}", 0)


def lesson_question(slot: str, cfg, kinds: tuple, head: int = 0, change: str = "", mask: str = ""):
    """A question of one of `kinds` (their names: classroom/kinds.py) about the lesson, made by that
    module's `suggest`; or None, with a note saying why there is none."""
    kind = kinds[0]
    if len(kinds) > 1:
        kind = st.segmented_control("Question", list(kinds), key=f"predict_kind_{slot}", default=kinds[0],
                                    format_func=lambda name: kind_of(name).label) or kinds[0]
    n = seed(slot)
    try:
        return _questions().get_or_make((cfg.key(), kind, head, n, change, mask),
                                        lambda: suggest(cfg, kind, head=head, seed=n, change=change, mask=mask))
    except QuestionError as err:
        st.info(f"Nothing to predict here: {plain(err)}")
        return None


# -- ask, then reveal -----------------------------------------------------------------------
def hide_until_committed(question: Question, slot: str) -> bool:
    """Ask `question` (False: the page keeps the answer hidden) or reveal it (True: the page may show it)."""
    st.session_state[f"predict_question_{slot}"] = question  # the one on screen (the server side of the session)
    done = st.session_state.get(f"predict_done_{slot}")
    box = st.container(border=True)
    with box:
        if done and done[0] == question.key():
            _reveal(question, done[1], slot)
            return True
        _ask(question, slot)
    return False


def _ask(question: Question, slot: str):
    pick = f"predict_pick_{slot}_{question.key()}"
    st.markdown(f"**Predict:** {plain(question.prompt)}")
    if question.kind_class.picks_a_key:
        _click_row(question, pick)
    answer_widget(question, pick, "Your prediction")
    left, right = st.columns([1, 1])
    left.button("Commit and reveal", key=f"predict_commit_{slot}", type="primary", on_click=_commit,
                args=(question, slot, pick))
    right.button("Another question", key=f"predict_next_{slot}", on_click=_next, args=(slot,))
    if room_session.teacher_key() is not None:
        st.button("Ask my room this question", key=f"predict_room_{slot}", on_click=room_session.ask,
                  args=(question,), help="Every student in your room gets it, with the answer hidden.")
    if msg := st.session_state.pop(f"predict_msg_{slot}", ""):
        st.warning(msg)


def answer_widget(question_or_view, key: str, label: str, disabled: bool = False, lettered: bool = False):
    """Pills for tokens (tick several where the question takes several), a radio for ranges or long choices.
    `question_or_view`: a Question, or a room's StudentView (its kind, choices and `multiple`, no answer key).
    `lettered`: each choice after its letter (A, B, ...), as the projector shows a room's question."""
    choices = question_or_view.choices
    options = list(range(len(choices)))
    shown = [f"{qc.letter(i)}. {c}" if lettered else c for i, c in enumerate(choices)]
    fmt = lambda i: plain(shown[i])  # noqa: E731 (tokens may hold Markdown characters)
    if kind_of(question_or_view.kind).ranges or max(map(len, choices)) > 30:
        return st.radio(label, options, key=key, format_func=fmt, index=None, disabled=disabled)
    mode = "multi" if question_or_view.multiple else "single"
    return st.pills(label, options, key=key, format_func=fmt, selection_mode=mode, disabled=disabled)


def _click_row(question: Question, pick: str):
    """The asked row as cells: a click on one picks that key (the pills below follow)."""
    chart = qc.pick_row(question, data.trace(question.config))
    st.altair_chart(chart, theme=None, width="stretch", key=f"{pick}_chart", on_select=lambda: _clicked(pick),
                    selection_mode=qc.PICK)


def _clicked(pick: str):
    chosen = clicked_column(st.session_state.get(f"{pick}_chart"))
    if chosen is not None:
        st.session_state[pick] = chosen


def clicked_column(event) -> int | None:
    """The key a chart click chose: Streamlit reports a point selection as [{"col": 3}]."""
    try:
        points = event["selection"][qc.PICK]
    except (KeyError, TypeError):
        return None
    if isinstance(points, dict):
        points = points.get("col", points.get("fields", []))
    for point in points or []:
        value = point.get("col") if isinstance(point, dict) else point
        if isinstance(value, numbers.Real) and not isinstance(value, bool) and float(value).is_integer():
            return int(value)
    return None


def _commit(question: Question, slot: str, pick: str):
    ss = st.session_state
    picked = ss.get(pick)
    if picked is None or picked == []:
        ss[f"predict_msg_{slot}"] = "Pick an answer first: the reveal comes after your prediction."
        return
    try:
        answer = question.check(picked)
    except QuestionError as err:
        ss[f"predict_msg_{slot}"] = str(err)
        return
    ss[f"predict_done_{slot}"] = (question.key(), answer)
    score = ss.setdefault(SCORE, {"right": 0, "asked": 0})
    score["asked"] += 1
    score["right"] += question.is_correct(answer)


def _next(slot: str):
    st.session_state[f"predict_seed_{slot}"] = seed(slot) + 1
    st.session_state.pop(f"predict_done_{slot}", None)


def _reveal(question: Question, answer: tuple, slot: str):
    st.markdown(f"**Question:** {plain(question.prompt)}")
    show_truth(question, answer)
    reveal_chart(question, f"predict_reveal_{slot}")
    score = st.session_state.get(SCORE, {"right": 0, "asked": 0})
    st.caption(f"Your predictions this session: {score['right']} right of {score['asked']} (kept only in this "
               "browser tab, with no name).")
    st.button("Another question", key=f"predict_next_{slot}", on_click=_next, args=(slot,))


def show_truth(question: Question, answer, lettered: bool = False):
    """The student's answer beside the truth, and the one sentence why (from the numbers). `lettered`: each
    choice by its letter too, as a room's phones and projector list them."""
    if answer is None:
        st.markdown(f"**The answer:** {plain(question.truth)}")
        return
    right = question.is_correct(answer)
    def named(i: int, choice: str) -> str:
        return f"{qc.letter(i)}. {choice}" if lettered else choice
    mine = ", ".join(named(i, question.choices[i]) for i in answer)
    truth = question.right_answer(named)
    left, right_col = st.columns(2)
    left.markdown(f"**You predicted:** {plain(mine)}")
    right_col.markdown(f"**The answer:** {plain(truth)}")
    box, icon = (st.success, ":material/check_circle:") if right else (st.warning, ":material/cancel:")
    box(plain(question.explain(answer)), icon=icon)


def reveal_chart(question: Question, key: str):
    """The chart whose numbers decide the answer, from the lessons its kind's reveal shows."""
    def make():
        return qc.reveal(question, [data.trace(cfg) for cfg in question.kind_class.reveal_lessons(question)])

    name = ("reveal", question.key())  # every student of a room polls the same chart
    draw(name, _CHARTS.get_or_make(name, make), key)


def draw(name: tuple, chart, key: str):
    """A chart as wide as its column, its spec (Altair's to_dict is slow) built once per `name`.

    A room's pages redraw their charts on every poll; only the numbers change between polls, so
    the spec without data is kept (bounded) and this run's table travels as Arrow."""
    this = look()
    spec = spec_without_data(chart, name, this.key_beside)
    spec["datasets"] = {"cells": chart.data}
    set_look(spec, this)  # its type grows on a projector (the projector's window of a deck is one)
    st.vega_lite_chart(spec, theme=None, width="stretch", key=key)
