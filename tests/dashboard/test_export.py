"""Exports: the numbers as CSV, the chart as PNG and SVG (vl-convert, offline), the lesson as JSON."""

import io
import json

import altair as alt
import numpy as np
import pandas as pd
import pytest
import vl_convert as vlc

from core import PRESETS, AttentionConfig, run_trace
from core.trace import token_labels
from dashboard.app_pages.ui import dim_labels, first_dims
from dashboard.charts import draw
from dashboard.charts import heatmaps as charts
from dashboard.lesson.state import url_params

from .conftest import PAGES, no_exception, open_app

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
    template = charts._weights_template(tuple(charts.token_labels(first.tokens)), "softmax weights", 0)
    assert template.data is alt.Undefined  # each chart's table is its own; the template has none
    assert a.data is not b.data and not a.data.equals(b.data)
    assert a.to_dict()["layer"] == b.to_dict()["layer"]  # one template, two tables
    np.testing.assert_allclose(a.data["weight"].to_numpy(), first.weights[0].reshape(-1), rtol=1e-6)
    np.testing.assert_allclose(b.data["weight"].to_numpy(), second.weights[0].reshape(-1), rtol=1e-6)


# -- every chart an export menu offers converts -------------------------------------------------------
# Page 1's four steps and the pages whose charts a lesson shapes; a chart's layout depends on its rows,
# columns, labels and width, so one chart per page, kind and size (its numbers and its head change none of those).
EXPORT_PAGES = ([("attention", {"step": s}) for s in "1234"] +
                [(p, {}) for p in ("multi_head", "masking", "positional", "block", "compare")])
WIDTHS = range(500, 1300, 100)  # some of the widths a browser may give a chart


@pytest.fixture(scope="module")
def eight_heads_exports():
    """(page, chart name, chart): one chart per page, kind and size on the export menus of the eight-heads lesson
    (long words, 8 heads, d_k 8), each as `draw.show` hands it to its menu."""
    offered, real = [], draw.export_menu
    draw.export_menu = lambda chart, name, cfg, table: offered.append((name, chart))
    try:
        found = {}
        for page, view in EXPORT_PAGES:
            offered.clear()
            at = open_app(query={**url_params(PRESETS["eight-heads"]), **view}, page=page)
            no_exception(at)
            for name, chart in offered:
                kind = chart.usermeta.get("lab", "").split("-head")[0]  # every head's chart is laid out alike
                found.setdefault((page, kind, chart.data.shape), (page, name, chart))
    finally:
        draw.export_menu = real
    return list(found.values())


def _converts(chart, width=None) -> bool:
    """vl-convert draws the chart (at `width`, else the export's own), rather than failing."""
    spec = json.loads(draw._spec(chart))
    if width is not None:
        spec["width"] = width
    try:
        return vlc.vegalite_to_svg(spec).lstrip().startswith("<svg")
    except ValueError:  # vl-convert's error: the Vega view failed (e.g. its layout never settled)
        return False


def test_every_chart_on_the_eight_heads_export_menus_converts(eight_heads_exports):
    pages = {page for page, _, _ in eight_heads_exports}
    assert pages == {page for page, _ in EXPORT_PAGES}, "every page offers its charts"
    failed = [(page, name) for page, name, chart in eight_heads_exports if not _converts(chart)]
    assert not failed, f"these exports fail: {failed}"


@pytest.mark.parametrize("preset", list(PRESETS))
def test_page_one_qkv_chart_exports_for_every_preset(preset):
    trace = run_trace(PRESETS[preset])
    q, k, v = (first_dims(getattr(trace, m)[0], m.upper(), dim_labels(trace.d_k))[0] for m in "qkv")
    assert _converts(charts.qkv_heatmap(q, k, v, token_labels(trace.tokens), "Q, K and V, side by side", "qkv"))


@pytest.mark.slow
def test_a_heatmap_settles_at_each_of_a_range_of_widths():
    """The browser's chart is sized to its container: the layout must settle at other widths than the export's."""
    trace = run_trace(PRESETS["eight-heads"])
    chart = charts.weights_heatmap(trace, 0)
    failed = [w for w in WIDTHS if not _converts(chart, w)]
    assert not failed, f"the layout never settles at widths {failed}"


def test_the_qkv_heatmap_settles_at_the_widths_where_it_once_never_did():
    """Page 1's Q, K and V chart of the eight-heads lesson (26 columns, labels upright): at these widths its
    layout went back and forth between two widths a pixel apart until vl-convert gave up (the key labels'
    alignment: sizing.label_align)."""
    trace = run_trace(PRESETS["eight-heads"])
    q, k, v = (first_dims(getattr(trace, m)[0], m.upper(), dim_labels(trace.d_k))[0] for m in "qkv")
    chart = charts.qkv_heatmap(q, k, v, token_labels(trace.tokens), "Q, K and V, side by side", "qkv")
    failed = [w for w in (681, 683, 685, 687, 734, 783) if not _converts(chart, w)]
    assert not failed, f"the layout never settles at widths {failed}"


def test_a_failed_export_gives_a_file_that_says_so_in_words(monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("Vega-Lite to SVG conversion failed:\nRangeError: Maximum call stack size exceeded")

    monkeypatch.setattr(vlc, "vegalite_to_svg", broken)
    monkeypatch.setattr(vlc, "vegalite_to_png", broken)
    chart = charts.weights_heatmap(run_trace(PRESETS["default"]), 0)
    svg = draw.chart_svg(chart)
    assert "could not be made into a picture file" in svg and "Numbers (CSV)" in svg
    assert "RangeError" not in svg and "Traceback" not in svg
    assert draw.chart_png(chart).startswith(b"\x89PNG")
