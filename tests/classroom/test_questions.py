"""Predict-then-reveal questions: every answer key is what the revealed chart shows, read
straight from `run_trace`'s arrays, and every number a student reads is in the trace."""

import dataclasses
import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from classroom.changes import apply_change, available_changes
from classroom.kinds import suggest
from classroom.question import NO_ROW, Question, QuestionError
from classroom.questions import blocked_question, change_question, focus_question
from core import AttentionConfig, run_trace
from core.lesson import with_mask
from core.trace import token_labels

FEW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
WORDS = ["the", "cat", "sat", ",", "on", "mat", ".", "dog"]


@st.composite
def lessons(draw, max_tokens=8):
    heads = draw(st.sampled_from([1, 2, 4]))
    T = draw(st.integers(1, max_tokens))
    mask = draw(st.sampled_from(["none", "causal", "padding", "window", "custom"]))
    return AttentionConfig(
        source=draw(st.sampled_from(["text", "random"])), seq_len=T,
        text=" ".join(draw(st.lists(st.sampled_from(WORDS), min_size=T, max_size=T))),
        d_model=heads * draw(st.sampled_from([2, 4])), num_heads=heads, mask=mask,
        pad_length=draw(st.integers(1, T)), window=draw(st.integers(1, T + 1)),
        custom_mask=tuple(tuple(draw(st.booleans()) for _ in range(T)) for _ in range(T)) if mask == "custom" else (),
        positional=draw(st.sampled_from(["none", "sinusoidal", "rotary"])), scale=draw(st.booleans()),
        temperature=draw(st.sampled_from([0.2, 1.0, 3.0])), seed=draw(st.integers(0, 1000)), device="cpu")


def decimals(text: str) -> list[float]:
    """The numbers with a decimal point in a sentence (token labels like "2 cat" have none)."""
    return [float(x) for x in re.findall(r"\d+\.\d+", text)]


# -- focus: which key does query q attend to most? ------------------------------------------------
@FEW
@given(lessons(), st.integers(0, 3), st.integers(0, 7))
def test_focus_answer_is_the_argmax_of_the_row_with_ties_within_0_005(cfg, head, query):
    head, query = head % cfg.num_heads, query % cfg.num_tokens
    trace = run_trace(cfg)
    if cfg.num_tokens == 1 or trace.blocked_rows[query]:
        with pytest.raises(QuestionError):
            focus_question(cfg, head, query)
        return
    q = focus_question(cfg, head, query)
    row = trace.weights[head, query]  # what the revealed heatmap's row shows
    assert int(np.argmax(row)) in q.answer
    assert set(q.answer) == {i for i, w in enumerate(row) if w >= row.max() - 0.005}
    assert q.choices == tuple(token_labels(trace.tokens))  # numbered as on the heatmap's axes
    for i in range(cfg.num_tokens):
        assert q.is_correct(i) == (i in q.answer)
    shown = {f"{w:.3f}" for w in row}
    assert decimals(q.truth) and all(f"{x:.3f}" in shown for x in decimals(q.truth) if x != 0.005)


def test_equal_keys_tie_and_either_is_right():
    cfg = AttentionConfig(text="the the", d_model=8, num_heads=2)  # no positions: the two keys are equal
    trace = run_trace(cfg)
    assert trace.weights[1, 0, 0] == trace.weights[1, 0, 1]
    q = focus_question(cfg, 1, 0)
    assert q.answer == (0, 1) and q.is_correct(0) and q.is_correct(1)
    assert "“1 the” (0.500) and “2 the” (0.500)" in q.truth and "each of them is right" in q.truth


def test_the_right_answer_reads_as_a_sentence_either_of_a_tie_all_of_a_ticked_set():
    """What the phones' reveal and the projector's reveal both print (one method: they joined their own way)."""
    tie = focus_question(AttentionConfig(text="the the", d_model=8, num_heads=2), 1, 0)
    assert tie.right_answer() == "1 the or 2 the"
    assert tie.right_answer(lambda i, choice: f"{'ABC'[i]}. {choice}") == "A. 1 the or B. 2 the"
    one = dataclasses.replace(tie, answer=(1,))
    assert one.right_answer() == "2 the"
    ticked = dataclasses.replace(tie, choices=("a", "b", "c", "none"), answer=(0, 1, 2), multiple=True)
    assert ticked.right_answer() == "a, b and c"


def test_a_tie_for_second_place_names_every_key_and_why():
    cfg = AttentionConfig()  # "The cat sat on the mat.": "The" and "the" share one vector (case is ignored)
    q = focus_question(cfg, 0, 0)
    row = run_trace(cfg).weights[0, 0]
    assert row[0] == pytest.approx(row[4], abs=1e-6) and q.answer == (int(np.argmax(row)),)
    assert "the next largest weights, equal to within 0.005, go to “1 The” (0.120), “5 the” (0.120) and “3 sat" \
           "” (0.118)" in q.truth  # each with its own weight: "sat" gets 0.1179, not the 0.120 of "The"
    assert "(“1 The” and “5 the” have the same key vector in this head, so every query that may see both gives " \
           "them the same weight)" \
        in q.truth


def test_the_next_largest_is_the_largest_other_weight_not_the_first_near_it():
    """Screen 20's row (a trained head, 0.997 one piece back): every other key is within 0.005 of the runner-up,
    so the reveal once printed the first such key's weight (0.000) as "the next largest". Here by hand: one
    query (q = 1) and six keys whose scores are their k, unscaled."""
    ks = (8.0, 0.0, 2.0, 0.5, 0.3, 0.1)
    cfg = AttentionConfig(source="manual", d_model=1, num_heads=1, q=tuple((1.0,) for _ in ks),
                          k=tuple((x,) for x in ks), v=tuple((1.0,) for _ in ks), scale=False)
    w = [math.exp(x) / sum(math.exp(y) for y in ks) for x in ks]  # by hand
    assert max(w[1:]) - min(w[1:]) < 0.005  # all five others "tie" within the lab's 0.005
    truth = focus_question(cfg, 0, 0).truth
    assert f"gives its largest weight, {w[0]:.3f}, to key “1 t1”" in truth
    assert f"the next largest, {w[2]:.3f}, goes to “3 t3”, and each of the other 4 keys gets at most " \
           f"{max(w[1], *w[3:]):.3f}" in truth and f"{w[2]:.3f}" == "0.002"


def test_a_tie_for_first_place_says_when_the_keys_share_a_vector():
    q = focus_question(AttentionConfig(), 0, 5)
    assert q.answer == (0, 4) and "have the same key vector in this head" in q.truth
    sinusoidal = AttentionConfig(positional="sinusoidal")  # positions make "The" and "the" two vectors
    assert all("same key vector" not in focus_question(sinusoidal, h, r).truth for h in range(4) for r in range(7)
               if not run_trace(sinusoidal).blocked_rows[r])


def test_a_mask_change_is_explained_by_renormalisation_not_by_an_unchanged_gap():
    cfg = AttentionConfig(mask="causal")
    q = change_question(cfg, "mask:window", 0, 5)  # row "mat": the window blocks "The", "cat" and "sat"
    before, after = run_trace(cfg), run_trace(cfg.replace(mask="window"))
    kept = after.mask[5]
    held = before.weights[0, 5][kept].sum()  # by hand: the share the keys left held before
    by_hand = np.exp(before.scaled[0, 5][kept]) / np.exp(before.scaled[0, 5][kept]).sum()
    np.testing.assert_allclose(after.weights[0, 5][kept], by_hand, rtol=1e-5)
    assert "gap" not in q.truth and "it blocks “1 The”, “2 cat” and “3 sat”" in q.truth
    assert f"held {held:.3f} of its weight and now hold 1.000" in q.truth
    j = int(after.weights[0, 5].argmax())
    assert f"{before.weights[0, 5, j]:.3f} × 1.000 / {held:.3f} ≈ {after.weights[0, 5, j]:.3f}" in q.truth


def test_a_padding_change_that_leaves_a_row_alone_says_so():
    q = change_question(AttentionConfig(), "mask:padding", 0, 3)
    assert "the same keys as before, with the same scores (the 2 tokens added are blocked for it)" in q.truth
    assert "gap" not in q.truth


def test_a_fully_blocked_row_is_not_asked_and_says_why():
    grid = ((False, False, False), (True, True, False), (True, True, True))
    cfg = AttentionConfig(source="random", seq_len=3, d_model=4, num_heads=1, mask="custom", custom_mask=grid)
    with pytest.raises(QuestionError, match="may attend to no key"):
        focus_question(cfg, 0, 0)
    with pytest.raises(QuestionError, match="may attend to no key"):
        change_question(AttentionConfig(source="random", seq_len=3, d_model=4, num_heads=1), "mask:custom", 0, 0)


def test_one_token_lesson():
    cfg = AttentionConfig(text="cat", d_model=4, num_heads=1)
    with pytest.raises(QuestionError, match="single key"):
        focus_question(cfg, 0, 0)
    with pytest.raises(QuestionError, match="single key"):
        suggest(cfg, "focus")
    q = change_question(cfg, "temperature*0.1", 0, 0)  # one key keeps weight 1 at any temperature
    assert q.choices[q.answer[0]].startswith("stays") and "does not change" in q.truth
    assert "1.000" in q.truth


# -- change: up, down or stay, by about how much? ---------------------------------------------------
INDEPENDENT = {  # the changed lesson, built here rather than by classroom.changes
    "temperature*0.1": lambda c: c.replace(temperature=c.temperature * 0.1),
    "scale:off": lambda c: c.replace(scale=False),
    "mask:causal": lambda c: with_mask(c, "causal"),
    "mask:none": lambda c: c.replace(mask="none", custom_mask=()),
    "heads*2": lambda c: c.replace(num_heads=c.num_heads * 2),
    "positional:sinusoidal": lambda c: c.replace(positional="sinusoidal"),
}


def expected_range(d: float) -> str:
    if abs(d) < 0.01:
        return "stays (changes by less than 0.01)"
    size = "0.01 to 0.1" if abs(d) < 0.1 else "0.1 to 0.3" if abs(d) < 0.3 else "0.3 or more"
    return f"{'up' if d > 0 else 'down'} by {size}"


@FEW
@given(lessons(), st.sampled_from(sorted(INDEPENDENT)), st.integers(0, 3), st.integers(0, 7))
def test_change_answer_is_the_range_of_the_largest_weights_difference(cfg, change, head, query):
    head, query = head % cfg.num_heads, query % cfg.num_tokens
    assume(change in available_changes(cfg))
    before, after = run_trace(cfg), run_trace(INDEPENDENT[change](cfg))
    assume(not (before.blocked_rows[query] or after.blocked_rows[query]))
    q = change_question(cfg, change, head, query)
    a, b = float(before.weights[head, query].max()), float(after.weights[head, query].max())
    assert q.choices[q.answer[0]] == expected_range(b - a) and not q.multiple
    assert f"{a:.3f}" in q.truth and f"{b:.3f}" in q.truth
    gaps = [np.diff(np.sort(t.scaled[head, query][t.mask[query]]))[-1:] for t in (before, after)]
    wa, wb = before.weights[head, query], after.weights[head, query]
    n = min(len(wa), len(wb))
    both = before.mask[query][:n] & after.mask[query][:n]  # a mask change: the shares of the keys seen both times
    distinct = [s.max() - s[s < s.max() - 1e-6].max() for t in (before, after)  # the gap below a shared top
                for s in [t.scaled[head, query][t.mask[query]].astype(float)] if (s < s.max() - 1e-6).any()]
    shares = [1 / k for k in range(2, 9)]  # "none of the k can get more than 1/k"
    allowed = [a, b, abs(b - a), *np.concatenate(gaps), *distinct, *shares, *wa, *wb, wa[:n][both].sum(),
               wb[:n][both].sum()]
    for x in decimals(q.truth):
        assert any(abs(x - v) <= 0.0005 + 1e-9 for v in allowed) or x == 0.01, (x, q.truth)
    if change == "temperature*0.1":  # a colder softmax never lowers a row's largest weight
        assert not q.choices[q.answer[0]].startswith("down")


def test_a_shared_key_at_the_top_is_named_with_the_bound_it_sets():
    """Screens 7 and 9: "The" and "the" share one key vector, so they split the row's top weight and neither can
    pass 0.5, while the gap from their score to the next lower one grows tenfold with a ten times colder softmax."""
    cfg = AttentionConfig()
    before, after = run_trace(cfg), run_trace(cfg.replace(temperature=0.1))
    s0, s1 = before.scaled[0, 6], after.scaled[0, 6]
    assert s0[0] == s0[4] and np.array_equal(before.k[0][0], before.k[0][4])  # one vector
    gap0, gap1 = s0[0] - np.sort(s0)[-3], s1[0] - np.sort(s1)[-3]  # the top two are the tie: the third is below
    assert gap1 == pytest.approx(10 * gap0, rel=1e-4)
    q = change_question(cfg, "temperature*0.1", 0, 6)
    assert after.weights[0, 6, 0] < 0.5 and q.choices[q.answer[0]] == "up by 0.1 to 0.3"
    assert "(keys “1 The” and “5 the”, 0.255 each)" in q.truth
    assert "“1 The” and “5 the” have the same key vector in this head, so they get the same score before and after " \
           "the change: they share the largest weight, and neither can get more than 1/2 = 0.500 of the row" in q.truth
    assert f"the gap between the largest scaled score and the next lower one goes from {gap0:.3f} to {gap1:.3f}" \
        in q.truth and "from 0.000 to 0.000" not in q.truth


def test_a_change_that_moves_the_top_to_another_key_says_so():
    """Screen 16: the largest weight moves from "The" to "on" (up), while "The" itself falls: the prompt asks about
    the row's largest weight whichever key holds it, and the reveal says both, naming each of the two keys that tied
    for it before (they share one key vector) with the weight it gets now."""
    cfg = AttentionConfig()
    after = run_trace(cfg.replace(positional="sinusoidal"))
    q = change_question(cfg, "positional:sinusoidal", 0, 6)
    assert "whichever key holds it" in q.prompt
    assert int(after.weights[0, 6].argmax()) == 3
    assert f"to {after.weights[0, 6, 3]:.3f} (key “4 on”), up by" in q.truth
    assert (f"(a different key: “1 The” and “5 the”, which shared it, now get {after.weights[0, 6, 0]:.3f} and "
            f"{after.weights[0, 6, 4]:.3f})") in q.truth


def test_change_at_a_range_edge_prints_enough_digits():
    from classroom.reasons import amount

    assert amount(0.0996) == "0.0996" and amount(-0.29996) == "0.29996" and amount(0.25) == "0.250"


# -- blocked: which rows may attend to no key? ------------------------------------------------------
@FEW
@given(lessons(), st.sampled_from(["none", "causal", "padding", "window", "custom"]))
def test_blocked_answer_is_exactly_the_rows_whose_weights_are_all_zero(cfg, mask):
    view = run_trace(with_mask(cfg, mask))
    q = blocked_question(cfg, mask)
    rows = [i for i in range(len(view.tokens)) if not view.mask[i].any() and (view.weights[:, i] == 0).all()]
    assert q.multiple and q.choices == (*token_labels(view.tokens), NO_ROW)
    assert set(q.answer) == (set(rows) or {len(view.tokens)})
    assert q.is_correct(q.answer)
    if rows:
        assert not q.is_correct([len(view.tokens)]) and all(f"“{q.choices[i]}”" in q.truth for i in rows)
    else:
        assert not q.is_correct([0]) and "no row is fully blocked" in q.truth


def test_custom_demo_blocks_the_first_row():
    q = blocked_question(AttentionConfig(), "custom")
    assert q.answer == (0,) and q.truth.endswith("row “1 The” may attend to no key, so its weights are all 0.")
    assert not q.is_correct([0, 1])


# -- answers, explanations, storage ----------------------------------------------------------------
def test_check_refuses_what_is_not_an_answer():
    q = focus_question(AttentionConfig(), 0, 1)
    assert q.check(np.int64(2)) == (2,) and type(q.check([np.int64(2)])[0]) is int  # a chart click's index
    for bad, words in (([], "exactly one"), ([0, 1], "exactly one"), ([7], "not one of"), ([True], "not one of"),
                       (["1"], "not one of"), (None, "not one of"), (2.0, "not one of")):
        with pytest.raises(QuestionError, match=words):
            q.check(bad)
    b = blocked_question(AttentionConfig(), "custom")
    with pytest.raises(QuestionError, match="together"):
        b.check([0, len(b.choices) - 1])
    with pytest.raises(QuestionError, match="at least one"):
        b.check([])


def test_explain_puts_the_students_answer_beside_the_truth():
    cfg = AttentionConfig()
    q = focus_question(cfg, 1, 3)
    wrong = next(i for i in range(len(q.choices)) if i not in q.answer)
    w = run_trace(cfg).weights[1, 3, wrong]
    assert q.explain(wrong) == f"You chose “{q.choices[wrong]}” ({w:.3f}), but {q.reason}."
    assert q.explain(q.answer[0]).startswith("Right: in head 2, query “4 on”")
    assert q.explain() == q.truth and q.truth.count(".") >= 1 and "\n" not in q.truth


def test_questions_round_trip_through_json_and_refuse_garbage():
    cfg = AttentionConfig()
    for q in (focus_question(cfg, 0, 2), change_question(cfg, "scale:off", 1, 0), blocked_question(cfg, "custom")):
        again = Question.from_json(q.to_json())
        assert again == q and again.key() == q.key() and again.explain(0) == q.explain(0)
    good = focus_question(cfg, 0, 2).to_dict()
    for broken in ({**good, "answer": [99]}, {**good, "head": "1"}, {**good, "kind": "essay"},
                   {**good, "choices": "abc"}, {k: v for k, v in good.items() if k != "prompt"}):
        with pytest.raises(QuestionError, match="could not be read"):
            Question.from_dict(broken)
    for text in ("[1, 2]", "{", "x" * 300_000):
        with pytest.raises(QuestionError):
            Question.from_json(text)


def _last_bits(q: Question) -> Question:
    """The same question computed again where the kernels rounded otherwise: every number a unit in the last
    place away, and the reason's printed figures with it."""
    return dataclasses.replace(q, numbers=tuple(float(np.nextafter(n, np.inf)) for n in q.numbers),
                               reason=q.reason + " ")


def test_a_question_is_known_by_what_it_asks_not_by_the_last_bits_of_its_numbers():
    cfg = AttentionConfig()
    for q in (focus_question(cfg, 0, 2), change_question(cfg, "scale:off", 1, 0), blocked_question(cfg, "custom")):
        again = _last_bits(q)
        assert again != q and again.numbers != q.numbers
        assert again.key() == q.key()


@pytest.mark.parametrize("field, value", [
    ("kind", "change"), ("lesson", AttentionConfig(seed=1).to_json()), ("change", "scale:off"), ("head", 1),
    ("query", 3), ("choices", ("a", "b", "c", "d", "e", "f"))])
def test_questions_that_differ_in_what_they_ask_have_different_keys(field, value):
    q = focus_question(AttentionConfig(), 0, 2)
    assert getattr(q, field) != value
    assert dataclasses.replace(q, **{field: value}).key() != q.key()


def test_reveal_config_is_the_lesson_the_answer_is_read_from():
    cfg = AttentionConfig()
    assert change_question(cfg, "heads*2", 0, 1).reveal_config == cfg.replace(num_heads=8)
    assert blocked_question(cfg, "padding").reveal_config == with_mask(cfg, "padding")
    assert focus_question(cfg, 0, 1).reveal_config == cfg


def test_suggest_is_repeatable_and_picks_fair_rows():
    cfg = AttentionConfig(text="The animal didn't cross the street because it was tired.", d_model=16, num_heads=2,
                          positional="sinusoidal")
    for kind in ("focus", "change", "blocked"):
        assert suggest(cfg, kind, head=1, seed=5) == suggest(cfg, kind, head=1, seed=5)
    trace = run_trace(cfg)
    for seed in range(5):
        q = suggest(cfg, "focus", head=1, seed=seed)
        top2 = np.sort(trace.weights[1, q.query])[-2:]
        assert top2[1] - top2[0] >= 0.05
    with pytest.raises(QuestionError, match="Unknown kind"):
        suggest(cfg, "essay")


def test_changes_that_cannot_apply_are_not_offered():
    manual = AttentionConfig(source="manual", d_model=2, num_heads=1, q=((1.0, 0.0), (0.0, 1.0)),
                             k=((1.0, 0.0), (0.0, 1.0)), v=((1.0, 0.0), (0.0, 1.0)))
    offered = available_changes(manual)
    assert "positional:sinusoidal" not in offered and "seed+1" not in offered and "heads*2" in offered
    assert "heads*2" not in available_changes(AttentionConfig(d_model=8, num_heads=4, positional="rotary"))
    for name in available_changes(AttentionConfig()):
        assert apply_change(AttentionConfig(), name) != AttentionConfig()
