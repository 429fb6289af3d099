"""The pages' own controls: through their options, in the URL, and a link that asks for too much."""

import math

import pytest

from core import PRESETS
from core.config import MASKS
from dashboard.app_pages.steps import STEPS
from dashboard.lesson.state import url_params

from .conftest import chart, chart_data, messages, no_exception


@pytest.mark.parametrize("preset", ["default", "padding"])
def test_masking_page_through_every_mask_kind(make_app, preset):
    at = make_app(query=url_params(PRESETS[preset]), page="masking")
    for kind in MASKS:
        at.button_group(key="view_masking_show").set_value(kind).run()
        no_exception(at)
        weights = chart(at, "weights", head=0)
        blocked = weights[weights["masked"]]
        assert (blocked["weight"] == 0).all()
        if kind == "none":
            assert blocked.empty
        if kind == "custom" and PRESETS[preset].mask != "custom":
            assert "Fully blocked row" in messages(at), "the custom demo blocks a whole row and says why"


def test_masking_page_opens_on_causal_when_the_lesson_has_no_mask(make_app):
    at = make_app(page="masking")
    assert at.button_group(key="view_masking_show").value == "causal"
    weights = chart(at, "weights", head=0)
    assert weights["masked"].sum() == 7 * 6 // 2  # the upper triangle of 7 tokens


def test_the_padding_demo_pads_with_pad_tokens_not_real_words(make_app):
    at = make_app(page="masking")
    at.button_group(key="view_masking_show").set_value("padding").run()
    weights = chart(at, "weights", head=0)
    blocked_keys = set(weights.loc[weights["masked"], "key"])
    assert blocked_keys == {"8 PAD", "9 PAD"}


def test_why_scale_sliders_at_their_extremes(make_app):
    at = make_app(page="why_scale")
    for keys in (at.slider(key="view_why_scale_keys").min, at.slider(key="view_why_scale_keys").max):
        at.slider(key="view_why_scale_keys").set_value(keys).run()
        no_exception(at)
        assert chart(at, "saturation-entropy")["entropy"].max() <= math.log(keys) + 1e-6
    row = at.select_slider(key="view_why_scale_dk")
    for d_k in (row.options[0], row.options[-1]):
        at.select_slider(key="view_why_scale_dk").set_value(int(d_k)).run()
        no_exception(at)
        assert abs(chart(at, "row-scaled")["weight"].sum() - 1) < 1e-5


def test_block_page_every_stage_of_both_layouts(make_app):
    at = make_app(page="block")
    for kind in ("post-LN", "pre-LN"):
        at.radio(key="view_block_layout").set_value(kind).run()
        for stage in at.selectbox(key="view_block_stage").options:
            at.selectbox(key="view_block_stage").set_value(stage).run()
            no_exception(at)
            assert len(chart(at, f"stage-{stage}")) == PRESETS["default"].num_tokens * PRESETS["default"].d_model


def test_block_page_says_the_feed_forward_share_as_torch_counts_it(make_app):
    """"about two thirds: 8·d_model² of 12·d_model² + 2·d_model", counted on torch's own encoder layer."""
    import torch

    D = PRESETS["default"].d_model
    layer = torch.nn.TransformerEncoderLayer(D, PRESETS["default"].num_heads, dim_feedforward=4 * D, bias=False)
    ffn = sum(p.numel() for m in (layer.linear1, layer.linear2) for p in m.parameters())
    total = sum(p.numel() for p in layer.parameters())
    assert (ffn, total) == (8 * D * D, 12 * D * D + 2 * D) and 0.6 < ffn / total < 2 / 3
    said = " ".join(str(c.value) for c in make_app(page="block").caption)
    assert "holds about two thirds of them: 8·d_model² of 12·d_model² + 2·d_model" in said


# -- the URL holds the page's view ---------------------------------------------------------------------
@pytest.mark.parametrize("page,setting,param", [
    ("attention", ("tabs", "view_attention_step", STEPS[0]), ("step", "1")),
    ("masking", ("button_group", "view_masking_show", "window"), ("show", "window")),
    ("why_scale", ("slider", "view_why_scale_keys", 40), ("keys", "40")),
    ("why_scale", ("select_slider", "view_why_scale_dk", 256), ("dk", "256")),
    ("block", ("radio", "view_block_layout", "pre-LN"), ("layout", "pre-LN")),
    ("block", ("selectbox", "view_block_stage", "norm1"), ("stage", "norm1")),
    ("positional", ("slider", "view_positional_shuffle", 7), ("shuffle", "7")),
])
def test_a_page_control_joins_the_url_and_the_link_reproduces_it(make_app, page, setting, param):
    at = make_app(page=page)
    kind, key, value = setting
    if kind == "tabs":
        at.session_state[key] = value
        at.run()
    else:
        getattr(at, kind)(key=key).set_value(value).run()
    no_exception(at)
    name, text = param
    assert at.query_params[name] == text
    again = make_app(query={name: text}, page=page)
    no_exception(again)
    assert again.session_state[key] == value
    assert not messages(again)


@pytest.mark.parametrize("page,param", [
    ("attention", {"head": "9"}), ("attention", {"step": "7"}), ("masking", {"show": "diagonal"}),
    ("why_scale", {"keys": "1"}), ("why_scale", {"keys": "65"}), ("block", {"stage": "nowhere"}),
])
def test_a_link_asking_a_page_for_what_it_lacks_says_so(make_app, page, param):
    at = make_app(query=param, page=page)
    no_exception(at)
    assert "which this page does not have" in messages(at)


def _captions(at) -> str:
    return " ".join(str(c.value) for c in at.caption)


def test_page_1_says_why_random_rows_are_flat_with_the_heads_own_numbers(make_app):
    """The default lesson's random heads give soft rows: the softmax step says why, with numbers a
    student can check (span of a row's scaled scores, its largest weight, 1/keys); a lesson with
    peaked rows (the preset sharper-rows) gets no such note."""
    import numpy as np

    from core import run_trace

    at = make_app(query=url_params(PRESETS["default"]))
    at.session_state["view_attention_step"] = STEPS[2]
    at.run()
    no_exception(at)
    text = _captions(at)
    assert "Why these rows are close to flat" in text
    trace = run_trace(PRESETS["default"])
    w = trace.weights[0]  # head 1, no mask: every row sees all 7 keys
    span = np.mean([trace.scaled[0, i].max() - trace.scaled[0, i].min() for i in range(7)])
    assert f"span {span:.1f} here on average" in text
    assert f"largest weight is {w.max(axis=1).mean():.2f} on average" in text
    assert "where a perfectly flat row over its 7 keys gives each 0.14." in text
    at.session_state["view_attention_step"] = STEPS[0]
    at.run()
    d_k = PRESETS["default"].d_model // PRESETS["default"].num_heads
    assert f"per head, Q, K and V are each 7 × {d_k} (tokens × d_k, with d_k = {d_k})." in _captions(at)
    # Causal: row i sees i keys (i = 2..11; the first row, one key, is left out); the flat baseline is the
    # mean of 1/i, not 1/(mean keys) = 1/6.5 = 0.15.
    causal = make_app(query=url_params(PRESETS["causal-sentence"]))
    causal.session_state["view_attention_step"] = STEPS[2]
    causal.run()
    flat = sum(1 / i for i in range(2, 12)) / 10
    assert f"{flat:.2f}" == "0.20"
    assert ("where perfectly flat rows would give their keys 0.20 each on average (a row over k keys gives each "
            "1/k)") in _captions(causal)
    sharp = make_app(query=url_params(PRESETS["sharper-rows"]))
    sharp.session_state["view_attention_step"] = STEPS[2]
    sharp.run()
    assert "close to flat" not in _captions(sharp)
    assert min(run_trace(PRESETS["sharper-rows"]).weights.max(axis=2).mean(axis=1)) >= 0.45


def test_page_5_says_the_learned_table_is_random_and_the_longer_one(make_app):
    """The shuffle and by-encoding tables compare a random N(0, 1) table with the sinusoidal one: the page
    says so, with scales checked here from torch.sin / torch.cos themselves (mean square 0.5, though the
    variance about the mean is lower: cos is near 1 in the slow dimensions)."""
    import torch

    at = make_app(page="positional")
    no_exception(at)
    text = " ".join(str(m.value) for m in at.markdown)
    assert "the “learned” table is random, drawn from the seed" in text
    assert "squares average about 1" in text and "squares average exactly 0.5" in text
    T, d = PRESETS["default"].num_tokens, PRESETS["default"].d_model
    angles = torch.arange(T)[:, None] / 10000 ** (torch.arange(0, d, 2) / d)
    pe = torch.cat([torch.sin(angles), torch.cos(angles)], dim=1)
    assert (pe ** 2).mean().item() == pytest.approx(0.5) and pe.var().item() < 0.4


def labs(at) -> set[str]:
    return {meta.get("lab") for meta, _ in chart_data(at)}


def test_a_long_page_shows_only_the_part_a_link_names_on_the_projector(make_app):
    """`part=...` (a deck's screen about one part): the block's formulas, then its two layouts without their
    tables, on the projector; the whole page elsewhere; a part the page lacks is said, and the page is whole."""
    formulas = make_app(query={"projector": "1", "part": "formulas"}, page="block")
    assert len(formulas.main.latex) == 3 and not chart_data(formulas) and not formulas.main.subheader
    layouts = make_app(query={"projector": "1", "part": "layouts"}, page="block")
    assert not layouts.main.latex and not layouts.main.dataframe
    assert [s.value for s in layouts.main.subheader] == ["post-LN", "pre-LN"]
    assert labs(layouts) == {"norms-post-LN", "norms-pre-LN"}
    for whole in (make_app(query={"part": "layouts"}, page="block"),
                  make_app(query={"projector": "1", "part": "feet"}, page="block")):
        no_exception(whole)
        assert len(whole.main.latex) == 3 and len(whole.main.dataframe) == 3 and "Look inside one stage" in [
            s.value for s in whole.main.subheader]
    assert "asks for the part 'feet'" in messages(whole)


def test_the_worked_examples_weights_part_leaves_out_its_inputs_and_listings(make_app):
    at = make_app(query={"projector": "1", "part": "weights"}, page="worked-example")
    no_exception(at)
    assert "article-qkv" not in labs(at) and {"article-output"} <= labs(at) and not at.main.subheader
    assert "0.670 / 0.330" in " ".join(s.value for s in at.success)
