"""Every control through its range; bad settings give messages; the URL holds the lesson."""

import math

import pytest

from core import MAX_TOKENS, PRESETS, AttentionConfig
from core.config import MASKS, MAX_SEED, POSITIONALS
from dashboard.links import url_params

from .conftest import chart, messages, no_exception


def lesson(at) -> AttentionConfig:
    return at.session_state["lesson_cfg"]


def test_first_run_mirrors_nothing_for_the_default(make_app):
    at = make_app()
    no_exception(at)
    assert lesson(at) == PRESETS["default"]
    assert not {k for k in at.query_params if k != "head"}


@pytest.mark.parametrize("field,low,high", [
    ("d_model", 1, 1024), ("seed", 0, MAX_SEED), ("temperature", 0.05, 5.0),
])
def test_model_controls_at_their_extremes(make_app, field, low, high):
    at = make_app()
    for value in (low, high):
        widget = at.sidebar.slider(key=f"ctl_{field}") if field == "temperature" else \
            at.sidebar.number_input(key=f"ctl_{field}")
        widget.set_value(value).run()
        no_exception(at)
        assert getattr(lesson(at), field) == value
        assert lesson(at).d_model % lesson(at).num_heads == 0


def test_random_tokens_from_one_to_the_most(make_app):
    at = make_app()
    at.sidebar.radio(key="ctl_source").set_value("random").run()
    for n in (1, MAX_TOKENS):
        at.sidebar.slider(key="ctl_seq_len").set_value(n).run()
        no_exception(at)
        assert lesson(at).num_tokens == n
        assert len(chart(at, "weights", head=0)) == n * n


def test_every_head_count_offered_divides_d_model(make_app):
    at = make_app()
    at.sidebar.number_input(key="ctl_d_model").set_value(24).run()
    options = [int(o) for o in at.sidebar.selectbox(key="ctl_num_heads").options]
    assert options == [h for h in range(1, 25) if 24 % h == 0]
    for heads in options:
        at.sidebar.selectbox(key="ctl_num_heads").set_value(heads).run()
        no_exception(at)
        assert lesson(at).num_heads == heads


@pytest.mark.parametrize("mask", MASKS)
def test_every_mask_kind(make_app, mask):
    at = make_app()
    at.sidebar.selectbox(key="ctl_mask").set_value(mask).run()
    no_exception(at)
    assert lesson(at).mask == mask
    if mask in ("padding", "window"):
        field = "pad_length" if mask == "padding" else "window"
        at.sidebar.number_input(key=f"ctl_{field}").set_value(1).run()
        no_exception(at)
        assert getattr(lesson(at), field) == 1


@pytest.mark.parametrize("positional", POSITIONALS)
def test_every_positional_encoding_and_the_scale(make_app, positional):
    at = make_app()
    at.sidebar.selectbox(key="ctl_positional").set_value(positional).run()
    at.sidebar.toggle(key="ctl_scale").set_value(False).run()
    no_exception(at)
    assert (lesson(at).positional, lesson(at).scale) == (positional, False)


def test_presets_and_reset(make_app):
    at = make_app()
    for name, cfg in PRESETS.items():
        at.sidebar.selectbox(key="ctl_preset").set_value(name).run()
        no_exception(at)
        assert lesson(at) == cfg, name
    at.sidebar.button(key="ctl_reset").click().run()
    assert lesson(at) == PRESETS["default"]


def test_head_and_device_pickers(make_app):
    at = make_app(query=url_params(PRESETS["eight-heads"]))
    at.slider(key="view_head").set_value(8).run()
    no_exception(at)
    assert at.query_params["head"] == "8"
    chart(at, "weights", head=7)
    for device in at.sidebar.selectbox(key="ctl_device").options:
        at.sidebar.selectbox(key="ctl_device").set_value(device).run()
        no_exception(at)


# -- bad settings -------------------------------------------------------------------------------
@pytest.mark.parametrize("query,words", [
    ({"d_model": "10", "num_heads": "4"}, "not divisible by 4 heads"),
    ({"d_model": "ten"}, "whole number"),
    ({"mask": "diagonal"}, "Unknown mask"),
    ({"temperature": "0"}, "temperature"),
    ({"device": "tpu"}, "device"),
    ({"text": " ".join(["word"] * 70)}, "at most 64"),
])
def test_a_bad_link_opens_the_defaults_with_a_notice(make_app, query, words):
    at = make_app(query=query)
    no_exception(at)
    assert words in messages(at)
    assert lesson(at) == PRESETS["default"]
    assert chart(at, "weights", head=0) is not None, "the page still works"


@pytest.mark.parametrize("steps,words", [
    ([("number_input", "ctl_d_model", 6), ("selectbox", "ctl_num_heads", 2), ("selectbox", "ctl_positional", "rotary")],
     "even size"),
    ([("text_input", "ctl_text", "   ")], "The text is empty"),
    ([("text_input", "ctl_text", " ".join(["w"] * 65))], "at most 64"),
    ([("selectbox", "ctl_mask", "padding"), ("number_input", "ctl_pad_length", 20)], "longer than the sequence"),
])
def test_bad_controls_show_a_message_and_keep_the_last_lesson(make_app, steps, words):
    at = make_app()
    for kind, key, value in steps:
        getattr(at.sidebar, kind)(key=key).set_value(value).run()
    no_exception(at)
    assert words in messages(at)
    before = lesson(at)
    assert before.num_tokens >= 1
    chart(at, "weights", head=0)  # the rest of the page keeps working


# -- the URL ------------------------------------------------------------------------------------
def test_url_to_state_to_url_round_trip(make_app):
    cfg = PRESETS["causal-sentence"].replace(seed=7, temperature=0.5, scale=False)
    query = url_params(cfg)
    at = make_app(query=query)
    no_exception(at)
    assert lesson(at) == cfg
    assert {k: v for k, v in at.query_params.items() if k != "head"} == query


def test_controls_write_the_url_and_the_url_reproduces_them(make_app):
    at = make_app()
    at.sidebar.radio(key="ctl_source").set_value("random").run()
    at.sidebar.slider(key="ctl_seq_len").set_value(9).run()
    at.sidebar.selectbox(key="ctl_mask").set_value("window").run()
    at.sidebar.number_input(key="ctl_window").set_value(2).run()
    at.sidebar.number_input(key="ctl_seed").set_value(42).run()
    cfg = lesson(at)
    assert (cfg.source, cfg.seq_len, cfg.mask, cfg.window, cfg.seed) == ("random", 9, "window", 2, 42)
    again = make_app(query=dict(at.query_params))
    assert lesson(again) == cfg
    assert chart(again, "weights", head=0).equals(chart(at, "weights", head=0))


# -- the pages' own controls --------------------------------------------------------------------
@pytest.mark.parametrize("preset", ["default", "padding"])
def test_masking_page_through_every_mask_kind(make_app, preset):
    at = make_app(query=url_params(PRESETS[preset]), page="masking")
    for kind in at.button_group(key="view_mask").options:
        at.button_group(key="view_mask").set_value(kind).run()
        no_exception(at)
        weights = chart(at, "weights", head=0)
        blocked = weights[weights["masked"]]
        assert (blocked["weight"] == 0).all()
        if kind == "none":
            assert blocked.empty
        if kind == "custom" and PRESETS[preset].mask != "custom":
            assert "Fully blocked row" in messages(at), "the custom demo blocks a whole row and says why"


def test_why_scale_sliders_at_their_extremes(make_app):
    at = make_app(page="why_scale")
    for keys in (2, 64):
        at.slider(key="view_sat_keys").set_value(keys).run()
        no_exception(at)
        assert chart(at, "saturation-entropy")["entropy"].max() <= math.log(keys) + 1e-6
    row = at.select_slider(key="view_row_dk")
    for d_k in (row.options[0], row.options[-1]):
        at.select_slider(key="view_row_dk").set_value(int(d_k)).run()
        no_exception(at)
        assert abs(chart(at, "row-scaled")["weight"].sum() - 1) < 1e-5


def test_block_page_every_stage_of_both_layouts(make_app):
    at = make_app(page="block")
    for kind in ("post-LN", "pre-LN"):
        at.radio(key="view_block_kind").set_value(kind).run()
        for stage in at.selectbox(key="view_block_stage").options:
            at.selectbox(key="view_block_stage").set_value(stage).run()
            no_exception(at)
            assert len(chart(at, f"stage-{stage}")) == PRESETS["default"].num_tokens * PRESETS["default"].d_model
