"""Every page loads and draws charts whose numbers are core's."""

import json

import numpy as np
import pytest

from core import PRESETS, AttentionConfig, run_trace
from dashboard.app_pages.steps import STEPS
from dashboard.lesson.state import url_params

from .conftest import PAGES, chart, chart_data, no_exception


def grid(df, column: str, T: int) -> np.ndarray:
    """A T×T cell table back into a matrix, by the row/col indices the chart carries."""
    out = np.full((T, T), np.nan)
    out[df["row"].to_numpy(), df["col"].to_numpy()] = df[column].to_numpy()
    return out


@pytest.mark.parametrize("page", PAGES)
def test_every_page_loads_with_charts(make_app, page):
    at = make_app(page=page)
    no_exception(at)
    assert at.title, "each page has a title"
    assert chart_data(at), "each page draws at least one chart"
    assert any(len(str(m.value)) > 80 for m in at.markdown), "each page explains itself in a few sentences"


@pytest.mark.parametrize("preset", ["default", "causal-sentence", "padding", "sliding-window", "eight-heads"])
def test_attention_charts_equal_run_trace(make_app, preset):
    cfg = PRESETS[preset]
    at = make_app(query=url_params(cfg))
    no_exception(at)
    trace, T = run_trace(cfg), cfg.num_tokens
    h = trace.num_heads - 1
    if h:
        at.segmented_control(key="view_attention_head").set_value(h + 1).run()
    checked = set()
    for step in STEPS:  # one tab at a time is drawn
        at.session_state["view_attention_step"] = step
        at.run()
        no_exception(at)
        for meta, df in chart_data(at):
            lab = meta["lab"]
            if lab in ("qk", "scaled", "masked", "weights"):
                assert meta["head"] == h
                field = {"qk": "scores", "masked": "scaled"}.get(lab, lab)
                column = {"weights": "weight", "masked": "scaled"}.get(lab, lab)
                np.testing.assert_allclose(grid(df, column, T), getattr(trace, field)[h], rtol=1e-5, atol=1e-6)
            elif lab.startswith("qkv-head"):  # Q, K and V side by side: columns q1.., k1.., v1..
                for name in "qkv":
                    part = df[df["col_label"].str.startswith(name)]
                    np.testing.assert_allclose(part["value"].to_numpy().reshape(T, -1), getattr(trace, name)[h],
                                               rtol=1e-5, atol=1e-6)
            else:
                assert lab.startswith("output-head")
                np.testing.assert_allclose(df["value"].to_numpy().reshape(T, -1), trace.heads[h], rtol=1e-5, atol=1e-6)
            checked.add(lab.split("-head")[0] if "-head" in lab else lab)
    assert checked == {"qkv", "qk", "scaled", "masked", "weights", "output"}


@pytest.mark.parametrize("preset", ["causal-sentence", "padding", "sliding-window"])
def test_masked_cells_are_zero_and_rows_sum_to_one(make_app, preset):
    cfg = PRESETS[preset]
    at = make_app(query=url_params(cfg), page="masking")
    no_exception(at)
    df = chart(at, "weights", head=0)
    T = cfg.num_tokens
    weights, blocked = grid(df, "weight", T), grid(df, "masked", T).astype(bool)
    assert blocked.any(), "these presets block some cells"
    np.testing.assert_array_equal(blocked, ~run_trace(cfg).mask)
    assert np.all(weights[blocked] == 0)
    np.testing.assert_allclose(weights.sum(axis=1), 1, rtol=1e-5)


def test_multi_head_shows_every_head_and_the_projection(make_app):
    cfg = PRESETS["eight-heads"]
    at = make_app(query=url_params(cfg), page="multi_head")
    no_exception(at)
    trace = run_trace(cfg)
    for h in range(trace.num_heads):  # each head its own chart
        w = chart(at, "weights", head=h)
        np.testing.assert_allclose(grid(w, "weight", cfg.num_tokens), trace.weights[h], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(chart(at, "mean-weights")["value"].to_numpy().reshape(cfg.num_tokens, -1),
                               trace.mean_weights, rtol=1e-5, atol=1e-6)
    out = chart(at, "output")["value"].to_numpy().reshape(cfg.num_tokens, -1)
    np.testing.assert_allclose(out, trace.output, rtol=1e-5, atol=1e-6)


def test_worked_example_reproduces_the_article(make_app):
    at = make_app(page="worked_example")
    no_exception(at)
    trace = run_trace(PRESETS["article-2x2"])
    weights = grid(chart(at, "weights", head=0), "weight", 2)
    np.testing.assert_allclose(weights, trace.weights[0], rtol=1e-5)
    output = chart(at, "article-output")["value"].to_numpy().reshape(2, 2)
    np.testing.assert_allclose(output, trace.output, rtol=1e-5)
    # The article's printed figures, to the digits it prints.
    assert [f"{w:.3f}" for w in weights[0]] == ["0.670", "0.330"]
    assert [f"{x:.2f}" for x in output.reshape(-1)] == ["6.70", "6.60", "3.30", "13.40"]
    assert "0.670 / 0.330" in at.success[0].value and "13.40" in at.success[0].value


def test_a_fully_blocked_row_is_explained_not_nan(make_app):
    grid_mask = ((False, False, False), (True, True, False), (True, True, True))
    cfg = AttentionConfig(source="random", seq_len=3, mask="custom", custom_mask=grid_mask)
    at = make_app(query=url_params(cfg), page="masking")
    no_exception(at)
    weights = grid(chart(at, "weights", head=0), "weight", 3)
    assert not np.isnan(weights).any()
    np.testing.assert_array_equal(weights[0], 0)
    np.testing.assert_allclose(weights[1:].sum(axis=1), 1, rtol=1e-5)
    note = next(str(i.value) for i in at.info if "Fully blocked row" in str(i.value))
    # each claim about PyTorch is checked against PyTorch in tests/core/test_torch_claims.py
    assert "`F.scaled_dot_product_attention` returns no weights" in note and "since PyTorch 2.5" in note
    assert "`need_weights=True`, its default" in note and "0 before its output projection W_O" in note


def test_why_scale_plots_core_saturation(make_app):
    from core.analysis import saturation

    at = make_app(page="why_scale")
    no_exception(at)
    df = chart(at, "saturation-entropy")
    T = at.slider(key="view_why_scale_keys").value
    ref = saturation(sorted(df["d_k"].unique()), T=T, seeds=range(20), scaled=False)
    got = df[df["scores"] == "not scaled"].sort_values("d_k")["entropy"].to_numpy()
    np.testing.assert_allclose(got, ref["entropy"], rtol=1e-5)
    assert got[-1] < got[0], "without the scale, entropy falls as d_k grows"


def test_block_page_shows_each_stage_size(make_app):
    from core.analysis import block_stages

    at = make_app(page="block")
    no_exception(at)
    text = " ".join(str(m.value) for m in at.markdown)
    assert "and so do BERT-style encoders, the lab's trained MiniLM included" in text  # post-LN, not "most models"
    stages = block_stages(PRESETS["default"], norm_first=True)
    norms = chart(at, "norms-pre-LN")
    assert list(norms["stage"]) == list(stages)
    np.testing.assert_allclose(norms["norm"], [np.linalg.norm(s, axis=-1).mean() for s in stages.values()], rtol=1e-5)


def test_block_pages_post_and_pre_ln_bars_share_one_scale(make_app):
    """Screen 18 of the default deck draws post-LN and pre-LN side by side: bars of different heights must not look
    alike because each chart picked its own axis (a fresh-eyes lecturer). Both y axes end at the larger mean
    length, computed here from core's stages."""
    from core.analysis import block_stages

    at = make_app(page="block")
    no_exception(at)
    top = max(np.linalg.norm(s, axis=-1).mean() for norm_first in (False, True)
              for s in block_stages(PRESETS["default"], norm_first=norm_first).values())
    domains = []
    for element in at.get("vega_lite_chart"):
        spec = json.loads(element.proto.spec)
        if spec.get("usermeta", {}).get("lab", "").startswith("norms-"):
            domains.append(spec["encoding"]["y"]["scale"]["domain"])
    assert len(domains) == 2 and domains[0] == domains[1], domains
    np.testing.assert_allclose(domains[0], [0, top], rtol=1e-5)


def test_worked_example_shows_the_articles_listings_and_pitfalls(make_app):
    at = make_app(page="worked_example")
    no_exception(at)
    text = " ".join(str(m.value) for m in at.markdown)
    saturated = run_trace(PRESETS["article-4x8"]).weights[0].max(-1).mean()
    assert saturated > 0.9 and f"**{saturated:.2f}**" in text  # N(0, 1) weights: the article's softmax saturates
    assert "mask == 0" in text and "triu(ones, 1)" in text  # both polarities, named
    causal = [df for meta, df in chart_data(at) if meta.get("lab") == "weights" and meta.get("head") is None]
    assert len(causal) == 1
    np.testing.assert_allclose(grid(causal[0], "weight", 4)[np.tril_indices(4)],
                               [1, 1 / 2, 1 / 2, 1 / 3, 1 / 3, 1 / 3, 1 / 4, 1 / 4, 1 / 4, 1 / 4], rtol=1e-6)
    table = at.dataframe[-1].value
    assert list(table.iloc[0, 1:]) == ["NaN"] * 4 and list(table.iloc[1, 1:]) == ["0.000"] * 4


@pytest.mark.parametrize("page, parts", [
    ("masking", [r"\frac{QK^\top}{\sqrt{d_k}} + M", r"-\infty"]),
    ("why_scale", [r"\operatorname{diag}(p) - p\,p^\top", r"\frac{e^{s_j}}{\sum_{l} e^{s_l}}"]),
    ("multi_head", [r"XW_i^Q", r"XW_i^V", r"W^O \in"]),
    ("block", [r"\gamma_k", r"\beta_k", r"\mathrm{ReLU}(z) = \max(0, z)", r"\mathrm{GELU}(z)"]),
    ("worked_example", [r"\operatorname{softmax}"]),
])
def test_pages_typeset_their_formulas(make_app, page, parts):
    at = make_app(page=page)
    no_exception(at)
    typeset = " ".join(str(x.value) for x in at.latex)
    assert all(part in typeset for part in parts), typeset


def test_multi_head_cost_panel_counts_this_lessons_work(make_app):
    at = make_app(page="multi_head")  # the default lesson: T = 7, d = 16
    text = " ".join(str(m.value) for m in at.markdown)
    assert "4·T·d² multiply-adds, O(T·d²) time (here 7,168)" in text  # 4 · 7 · 16²
    assert "2·T²·d multiply-adds, O(T²·d) time (here 1,568)" in text  # 2 · 7² · 16
    assert "O(T²) memory" in text and "T·w scores" in text and "KV cache" in text and "O(1)" in text
    assert "Michel et al. 2019" in text and "Voita et al. 2019" in text and "come to track" not in text
