"""Exports: the numbers as CSV, the chart as PNG and SVG (vl-convert, offline), the lesson as JSON."""

import io
import json

import altair as alt
import numpy as np
import pandas as pd
import pytest

from core import PRESETS, AttentionConfig, run_trace
from dashboard.charts import draw
from dashboard.charts import heatmaps as charts
from dashboard.lesson.links import url_params

from .conftest import PAGES, no_exception

BLOCKED = tuple(tuple(0 < i and j <= i for j in range(6)) for i in range(6))  # causal, first query blind


def _draws_rects(spec) -> bool:
    """A heatmap: somewhere in the spec (layers, facets) a mark of type rect."""
    if isinstance(spec, dict):
        mark = spec.get("mark")
        if mark == "rect" or (isinstance(mark, dict) and mark.get("type") == "rect"):
            return True
        return any(_draws_rects(v) for v in spec.values())
    if isinstance(spec, list):
        return any(_draws_rects(v) for v in spec)
    return False


def test_chart_renders_to_png_and_svg_on_the_server():
    trace = run_trace(PRESETS["default"])
    chart = charts.weights_heatmap(trace, 0)
    png = draw.chart_png(chart)
    assert png.startswith(b"\x89PNG") and len(png) > 2000
    svg = draw.chart_svg(chart)
    assert svg.lstrip().startswith("<svg") and "softmax weights" in svg


def test_a_chart_over_altairs_row_limit_exports():
    trace = run_trace(AttentionConfig(source="random", seq_len=64, d_model=64, num_heads=1))
    chart = charts.qkv_heatmap(trace.q[0], trace.k[0], trace.v[0], charts.token_labels(trace.tokens), "Q, K, V", "qkv")
    assert len(chart.data) == 64 * 3 * 64 > 5000  # Altair refuses more than 5000 rows by default
    assert draw.chart_svg(chart).lstrip().startswith("<svg")


def test_csv_holds_the_weights():
    trace = run_trace(PRESETS["padding"])
    labels = charts.token_labels(trace.tokens)
    text = draw.table_csv(pd.DataFrame(trace.weights[1], index=labels, columns=labels))
    back = pd.read_csv(io.StringIO(text), index_col=0)
    assert list(back.columns) == labels
    np.testing.assert_allclose(back.to_numpy(), trace.weights[1], rtol=1e-5)


@pytest.mark.parametrize("page", PAGES)
def test_every_heatmap_on_every_page_has_an_export_menu_built_only_when_open(make_app, page):
    at = make_app(query=url_params(PRESETS["padding"].replace(mask="custom", custom_mask=BLOCKED)), page=page)
    no_exception(at)
    heatmaps = [c for c in at.main.get("vega_lite_chart") if _draws_rects(json.loads(c.proto.spec))]
    menus = at.main.get("popover")
    assert len(menus) == len(heatmaps)
    assert heatmaps or page == "why_scale"
    assert not at.get("download_button"), "closed menus make no files"
    for menu in menus:
        key = menu.proto.id.split("-", 2)[-1]  # "$$ID-<hash>-<key>"; keys may hold dashes
        at.session_state[key] = True
        at.run()
        no_exception(at)
        labels = [b.proto.label for b in at.get("download_button")]
        assert labels == ["Numbers (CSV)", "Chart (PNG)", "Chart (SVG)", "Lesson settings (JSON)"], key
        at.session_state[key] = False


def test_a_chart_with_its_data_leaves_the_cached_template_untouched():
    first, second = (run_trace(PRESETS["default"].replace(seed=s)) for s in (1, 2))
    a, b = charts.weights_heatmap(first, 0), charts.weights_heatmap(second, 0)
    template = charts._weights_template(tuple(charts.token_labels(first.tokens)), "softmax weights", ".2f", 0)
    assert template.data is alt.Undefined  # each chart's table is its own; the template has none
    assert a.data is not b.data and not a.data.equals(b.data)
    assert a.to_dict()["layer"] == b.to_dict()["layer"]  # one template, two tables
    np.testing.assert_allclose(a.data["weight"].to_numpy(), first.weights[0].reshape(-1), rtol=1e-6)
    np.testing.assert_allclose(b.data["weight"].to_numpy(), second.weights[0].reshape(-1), rtol=1e-6)
