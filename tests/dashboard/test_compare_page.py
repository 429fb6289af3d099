"""The Compare page: its numbers are classroom.compare's, its B − A is its own B minus its own A,
and its URL reopens the same comparison."""

import numpy as np
import pytest

from classroom.changes import apply_change
from classroom.compare import compare
from core import AttentionConfig, run_trace
from dashboard.lesson.state import url_params
from tests.conftest import shown

from .conftest import chart_data, no_exception

CFG = AttentionConfig(mask="causal")


def grid(df, column: str) -> np.ndarray:
    n = int(df["row"].max()) + 1, int(df["col"].max()) + 1
    out = np.zeros(n)
    out[df["row"], df["col"]] = df[column]
    return out


def charts_by_lab(at) -> dict:
    out = {}
    for meta, df in chart_data(at):
        out.setdefault(meta.get("lab"), []).append(df)
    return out


@pytest.mark.parametrize("change", ["temperature*0.1", "scale:off", "mask:custom", "mask:padding", "heads*2",
                                    "positional:rotary", "seed+1"])
def test_the_page_shows_core_compare(make_app, change):
    at = make_app(query={**url_params(CFG), "change": change}, page="compare")
    no_exception(at)
    result = compare(CFG, apply_change(CFG, change))
    assert any(result.summary in shown(m.value) for m in at.markdown)  # as the student reads it
    found = charts_by_lab(at)
    diff = grid(found["compare-diff"][0], "value")
    np.testing.assert_allclose(diff, result.diff[0], atol=1e-6)
    if result.per_head:  # head 1 of each lesson, blocked cells and all
        a, b = (grid(df, "weight") for df in found["weights"])
        np.testing.assert_allclose(a, run_trace(CFG).weights[0], atol=1e-6)
    else:
        a, b = grid(found["compare-a"][0], "value"), grid(found["compare-b"][0], "value")
    T = diff.shape[0]
    np.testing.assert_allclose(diff, b[:T, :T] - a[:T, :T], atol=1e-6)  # B − A is the page's own B minus A
    assert at.query_params.get("change") == (None if change == "temperature*0.1" else change)  # the default: left out


def test_another_head_and_a_change_that_cannot_apply(make_app):
    at = make_app(query={"change": "scale:on", "head": "3"}, page="compare")  # ÷√d_k is already on
    no_exception(at)
    assert "does not have" in at.warning[0].value and "change" not in at.query_params
    diff = grid(charts_by_lab(at)["compare-diff"][0], "value")
    expected = compare(AttentionConfig(), apply_change(AttentionConfig(), "temperature*0.1")).diff[2]
    np.testing.assert_allclose(diff, expected, atol=1e-6)
