"""A heatmap's table (dashboard/charts/cells.py): the columns a step's two heatmaps of one head share are
that head's, neither chart's own columns reach the other, and no table keeps a trace the lesson cache let go."""

import gc
import weakref

import numpy as np
import pytest

from core import AttentionConfig, run_trace
from dashboard.charts import heatmaps as charts

LESSON = AttentionConfig(text="The cat sat on the mat.", num_heads=2, mask="causal")


def test_each_heatmap_shows_its_own_heads_numbers_after_another_heads():
    trace = run_trace(LESSON)
    scores = charts.scores_heatmap(trace, 0, "scaled", show_mask=True).data
    weights = charts.weights_heatmap(trace, 1).data
    again = charts.scores_heatmap(trace, 0, "scaled", show_mask=True).data
    np.testing.assert_array_equal(weights["weight"].to_numpy(), trace.weights[1].reshape(-1))
    np.testing.assert_array_equal(scores["scaled"].to_numpy(), trace.scaled[0].reshape(-1))
    assert again.equals(scores)


def test_a_steps_two_heatmaps_of_one_head_print_their_own_numbers():
    trace = run_trace(LESSON)
    scores = charts.scores_heatmap(trace, 0, "scaled", show_mask=True).data
    weights = charts.weights_heatmap(trace, 0).data
    assert scores["lab_text"].iloc[1] == "−∞"  # query 1 may not see key 2 (causal)
    assert weights["lab_text"].iloc[1] == "0.00"
    assert weights["lab_text"].iloc[0] == "1.00" and scores["lab_text"].iloc[0] != "1.00"


def test_a_heatmap_keeps_no_trace_alive():
    trace = run_trace(LESSON)
    charts.weights_heatmap(trace, 0)
    charts.scores_heatmap(trace, 0)
    gone = weakref.ref(trace)
    del trace
    gc.collect()
    assert gone() is None


def test_a_heads_shared_columns_refuse_changes():
    """The columns two heatmaps of one head share are read-only: a chart cannot change the other's numbers."""
    from dashboard.charts import cells

    columns = cells.attention_columns(run_trace(LESSON), 0)
    with pytest.raises(TypeError):
        columns["weight"] = np.zeros(1)
    with pytest.raises(ValueError):
        columns["weight"][0] = 2.0
