"""Every sidebar control through its range; bad settings keep the lesson and say why; the URL holds it."""

import pytest

from core import MAX_TOKENS, PRESETS, AttentionConfig
from core.config import MASKS, POSITIONALS
from core.limits import MAX_D_MODEL, MAX_SEED, MAX_TEMPERATURE, MIN_TEMPERATURE
from dashboard.lesson.state import url_params

from .conftest import chart, messages, no_exception


def lesson(at) -> AttentionConfig:
    return at.session_state["lesson"]


def test_first_run_mirrors_nothing_for_the_default(make_app):
    at = make_app()
    no_exception(at)
    assert lesson(at) == PRESETS["default"]
    assert not dict(at.query_params)


def test_every_widgets_range_is_the_configs_range(make_app):
    at = make_app(query={"source": "random", "mask": "window"})
    assert (at.sidebar.slider(key="ctl_seq_len").min, at.sidebar.slider(key="ctl_seq_len").max) == (1, MAX_TOKENS)
    assert (at.sidebar.slider(key="ctl_window").min, at.sidebar.slider(key="ctl_window").max) == (1, MAX_TOKENS)
    temperatures = [float(t) for t in at.sidebar.select_slider(key="ctl_temperature").options]
    assert (temperatures[0], temperatures[-1]) == (MIN_TEMPERATURE, MAX_TEMPERATURE)
    at.sidebar.selectbox(key="ctl_mask").set_value("padding").run()
    pad = at.sidebar.slider(key="ctl_pad_length")
    assert (pad.min, pad.max) == (1, lesson(at).num_tokens)  # the config takes 1..T real tokens


@pytest.mark.parametrize("field,values", [
    ("d_model", ("1", "4", str(MAX_D_MODEL))), ("seed", ("0", str(MAX_SEED))),
])
def test_typed_numbers_at_their_extremes(make_app, field, values):
    at = make_app()
    for typed in values:
        at.sidebar.text_input(key=f"ctl_{field}").set_value(typed).run()
        no_exception(at)
        assert getattr(lesson(at), field) == int(typed)
        assert lesson(at).d_model % lesson(at).num_heads == 0


def test_temperature_at_both_limits(make_app):
    at = make_app()
    slider = at.sidebar.select_slider(key="ctl_temperature")  # kept, as the browser keeps the sidebar
    for value in (MIN_TEMPERATURE, MAX_TEMPERATURE):  # each move reruns the lesson view alone
        slider.set_value(value).run()
        no_exception(at)
        assert lesson(at).temperature == value


@pytest.mark.parametrize("field,typed,words", [
    ("d_model", "2000", "d_model must be between 1 and 1024, got 2000"),
    ("d_model", "abc", "d_model must be a whole number from 1 to 1,024, written with the digits 0 to 9; got 'abc'"),
    # Read as numbers before (issue 28): never a number the student did not write.
    ("d_model", "1e3", "written with the digits 0 to 9; got '1e3'"),
    ("d_model", "\u0661\u0662", "written with the digits 0 to 9; got '\u0661\u0662'"),  # Arabic-Indic 12
    ("d_model", "1_6", "written with the digits 0 to 9; got '1_6'"),
    ("d_model", "1,000", "written with the digits 0 to 9; got '1,000'"),
    ("d_model", "1234567890" * 6, f"between 1 and 1024, got {'1234567890' * 6}."),  # quoted whole, not as 1.23e59
    ("d_model", "", "d_model is empty"),
    ("d_model", "2.5", "whole number"),
    ("d_model", "0", "between 1 and 1024, got 0"),
    ("seed", "-1", "The seed must be a whole number from 0 to 4,294,967,295"),
    ("seed", "1e20", "The seed must be a whole number"),
    ("seed", "seven", "The seed must be a whole number"),
])
def test_a_typed_number_that_cannot_work_keeps_the_lesson_and_the_box(make_app, field, typed, words):
    at = make_app()
    before = lesson(at)
    at.sidebar.text_input(key=f"ctl_{field}").set_value(typed).run()
    no_exception(at)
    assert words in messages(at)
    assert lesson(at) == before
    assert at.sidebar.text_input(key=f"ctl_{field}").value == str(getattr(before, field)), "the box shows the lesson"


def test_a_d_model_the_heads_do_not_divide_brings_the_nearest_heads_and_says_so(make_app):
    at = make_app()
    at.sidebar.text_input(key="ctl_d_model").set_value("30").run()
    assert (lesson(at).d_model, lesson(at).num_heads) == (30, 3)
    assert "4 heads do not divide d_model 30, so the lesson now has 3" in messages(at)
    assert at.sidebar.selectbox(key="ctl_num_heads").value == 3


def test_pasting_too_much_text_says_how_long_it_may_be(make_app):
    at = make_app()
    before = lesson(at)
    at.sidebar.text_input(key="ctl_text").set_value("word " * 600).run()
    no_exception(at)
    assert "3,000 characters long; the lab takes at most 2,000" in messages(at)
    assert lesson(at) == before
    assert "Not in use" in " ".join(str(c.value) for c in at.sidebar.caption), "the box keeps the text and says why"


def test_random_tokens_from_one_to_the_most(make_app):
    at = make_app()
    at.sidebar.radio(key="ctl_source").set_value("random").run()
    slider = at.sidebar.slider(key="ctl_seq_len")  # kept, as the browser keeps the sidebar
    for n in (1, MAX_TOKENS):
        slider.set_value(n).run()
        no_exception(at)
        assert lesson(at).num_tokens == n
        assert len(chart(at, "weights", head=0)) == n * n


def test_every_head_count_offered_divides_d_model(make_app):
    at = make_app()
    at.sidebar.text_input(key="ctl_d_model").set_value("24").run()
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
        for value in (1, at.sidebar.slider(key=f"ctl_{field}").max):
            at.sidebar.slider(key=f"ctl_{field}").set_value(value).run()
            no_exception(at)
            assert getattr(lesson(at), field) == value


def test_switching_to_padding_on_a_short_lesson_starts_with_every_token_real(make_app):
    at = make_app(query={"text": "two words"})
    at.sidebar.selectbox(key="ctl_mask").set_value("padding").run()
    assert (lesson(at).mask, lesson(at).pad_length) == ("padding", 2)
    assert "all of them start as real tokens" in messages(at)


@pytest.mark.parametrize("positional", POSITIONALS)
def test_every_positional_encoding_and_the_scale(make_app, positional):
    at = make_app()
    sidebar = at.sidebar  # kept, as the browser keeps it: each move reruns the lesson view alone
    sidebar.selectbox(key="ctl_positional").set_value(positional).run()
    sidebar.toggle(key="ctl_scale").set_value(False).run()
    no_exception(at)
    assert (lesson(at).positional, lesson(at).scale) == (positional, False)


def test_presets_and_reset_set_every_widget(make_app):
    at = make_app()
    for name, cfg in PRESETS.items():
        at.sidebar.selectbox(key="ctl_preset").set_value(name).run()
        no_exception(at)
        assert lesson(at) == cfg, name
        assert at.sidebar.text_input(key="ctl_d_model").value == str(cfg.d_model)
        assert at.sidebar.selectbox(key="ctl_mask").value == cfg.mask
    at.sidebar.button(key="ctl_reset").click().run()
    assert lesson(at) == PRESETS["default"]
    assert at.sidebar.text_input(key="ctl_d_model").value == "16"


def test_leaving_hand_entered_q_k_v_drops_them(make_app):
    at = make_app()
    at.sidebar.selectbox(key="ctl_preset").set_value("article-2x2").run()
    at.sidebar.radio(key="ctl_source").set_value("text").run()
    no_exception(at)
    assert (lesson(at).source, lesson(at).q) == ("text", ())
    assert "manual" not in at.sidebar.radio(key="ctl_source").options


def test_head_and_device_pickers(make_app):
    at = make_app(query=url_params(PRESETS["eight-heads"]))
    at.segmented_control(key="view_attention_head").set_value(8).run()
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
    ({"seed": "1_000"}, "The seed must be a whole number written with the digits 0 to 9, got '1_000'."),
    ({"d_model": "\u0661\u0662"}, "d_model must be a whole number written with the digits 0 to 9"),
    ({"d_model": "1,000"}, "got '1,000'"),
    ({"temperature": "1_0"}, "The temperature must be a number written with the digits 0 to 9, got '1_0'."),
    ({"seed": "1" * 60}, f"The seed must be between 0 and 4294967295, got {'1' * 60}."),
    ({"mask": "x" * 60}, f"Unknown mask '{'x' * 60}'"),
    ({"mask": "diagonal"}, "Unknown mask"),
    ({"temperature": "0"}, "temperature"),
    ({"device": "tpu"}, "device"),
    ({"text": " ".join(["word"] * 70)}, "at most 64"),
    ({"mask": "window", "window": "100"}, "between 1 and 64 tokens wide, got 100"),
])
def test_a_bad_link_opens_the_defaults_with_a_notice(make_app, query, words):
    at = make_app(query=query)
    no_exception(at)
    assert words in messages(at)
    assert lesson(at) == PRESETS["default"]
    assert chart(at, "weights", head=0) is not None, "the page still works"


@pytest.mark.parametrize("steps,words", [
    ([("text_input", "ctl_d_model", "6"), ("selectbox", "ctl_num_heads", 2), ("selectbox", "ctl_positional", "rotary")],
     "even size"),
    ([("text_input", "ctl_text", "   ")], "The text is empty"),
    ([("text_input", "ctl_text", " ".join(["w"] * 65))], "at most 64"),
    ([("selectbox", "ctl_mask", "padding"), ("slider", "ctl_pad_length", 5), ("text_input", "ctl_text", "a b c")],
     "longer than the sequence"),
])
def test_bad_controls_show_a_message_and_keep_the_last_lesson(make_app, steps, words):
    at = make_app()
    for kind, key, value in steps[:-1]:
        getattr(at.sidebar, kind)(key=key).set_value(value).run()
    before = lesson(at)
    kind, key, value = steps[-1]
    getattr(at.sidebar, kind)(key=key).set_value(value).run()
    no_exception(at)
    assert words in messages(at)
    assert lesson(at) == before
    chart(at, "weights", head=0)  # the rest of the page keeps working


# -- the URL ------------------------------------------------------------------------------------
def test_url_to_state_to_url_round_trip(make_app):
    cfg = PRESETS["causal-sentence"].replace(seed=7, temperature=0.5, scale=False)
    query = url_params(cfg)
    at = make_app(query=query)
    no_exception(at)
    assert lesson(at) == cfg
    assert dict(at.query_params) == query


def test_controls_write_the_url_and_the_url_reproduces_them(make_app):
    at = make_app()
    at.sidebar.radio(key="ctl_source").set_value("random").run()
    sidebar = at.sidebar  # kept, as the browser keeps it: the number of tokens reruns the lesson view alone
    sidebar.slider(key="ctl_seq_len").set_value(9).run()
    sidebar.selectbox(key="ctl_mask").set_value("window").run()
    at.sidebar.slider(key="ctl_window").set_value(2).run()
    at.sidebar.text_input(key="ctl_seed").set_value("42").run()
    cfg = lesson(at)
    assert (cfg.source, cfg.seq_len, cfg.mask, cfg.window, cfg.seed) == ("random", 9, "window", 2, 42)
    again = make_app(query=dict(at.query_params))
    assert lesson(again) == cfg
    assert chart(again, "weights", head=0).equals(chart(at, "weights", head=0))


def test_the_head_buttons_keep_the_open_head_when_it_is_clicked_off_and_a_slider_takes_over_past_16(make_app):
    at = make_app(query=url_params(PRESETS["eight-heads"]))
    buttons = at.segmented_control(key="view_attention_head")
    assert buttons.label == "Head to inspect" and buttons.options == [str(h) for h in range(1, 9)]
    buttons.set_value(3).run()
    at.segmented_control(key="view_attention_head").set_value(None).run()  # the open head's button clicked again
    no_exception(at)
    assert at.segmented_control(key="view_attention_head").value == 3 and at.query_params["head"] == "3"
    chart(at, "weights", head=2)
    at = make_app(query={"d_model": "64", "num_heads": "32", "head": "20"})
    no_exception(at)
    assert "view_attention_head" not in [b.key for b in at.segmented_control]
    assert at.slider(key="view_attention_head").value == 20
    chart(at, "weights", head=19)


@pytest.mark.parametrize("crafted", ['{"edited_rows": {"99": {"1 x": true}}}', '{"edited_rows": {"0": {"nope": true}}}',
                                     "not json {", '{"added_rows": [{"1 x": true}]}'])
def test_a_crafted_mask_editor_state_is_dropped_with_a_word_and_the_lesson_kept(make_app, crafted):
    """Issue 28: a crafted custom-mask editor state (row 99, an unknown column, bad JSON, an added row) broke
    the tab with Streamlit's error box until a reload. The browser sends that state as the editor's JSON;
    here it is sent the same way, as the editor's widget state in the next run."""
    from streamlit.proto.WidgetStates_pb2 import WidgetStates

    at = make_app(query={"source": "random", "seq_len": "3", "mask": "custom", "custom_mask": "100;110;111"})
    before = lesson(at)
    editor = next(e for e in at.sidebar.get("dataframe") if "ctl_mask_grid" in e.proto.id)
    states = at._tree.get_widget_states()
    states.widgets.add(id=editor.proto.id, string_value=crafted)  # as the browser sends it
    at._run(WidgetStates(widgets=list(states.widgets)))
    assert not at.exception, [e.value for e in at.exception]
    assert lesson(at) == before
    if crafted.startswith("{"):  # JSON the editor reads but cannot apply: said on the page
        assert any("could not apply" in str(w.value) for w in at.warning)  # (bad JSON is dropped before the run)
    at.run()  # the next run draws a fresh editor: no error, no warning
    assert not at.exception and not any("could not apply" in str(w.value) for w in at.warning)
