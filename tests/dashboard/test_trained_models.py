"""The Trained heads page with a teacher's own models (issue 27): the picker lists them, the URL carries the
name, a GPT-2's heads show the causal mask, other models get measured patterns only, and a missing or
broken model is one sentence, never a traceback. The models are tiny ones made by tests/checkpoints.py."""

import numpy as np
import pytest

from core import MAX_TOKENS, trained_trace
from core.head_patterns import causal_patterns
from dashboard.text import plain
from tests import checkpoints
from tests.core.conftest import needs_model

from .conftest import chart, messages, no_exception

pytest.importorskip("transformers", reason="transformers (requirements-dev.txt) makes the tiny models")
PICKER = "trained_model_picker"
TEXT = "The cat sat on the mat because it was tired."


@pytest.fixture(scope="module", autouse=True)
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("page-models")
    bert, gpt2 = checkpoints.make_bert(root / "tiny-bert"), checkpoints.make_gpt2(root / "tiny-gpt2")
    huge = checkpoints.with_config(gpt2, root / "huge", n_layer=48, n_head=25, n_embd=1600, n_inner=6400)  # 5.9 GB
    mismatch = checkpoints.with_config(gpt2, root / "mismatch", n_layer=3)  # its file holds 2 layers
    llama = checkpoints.with_config(bert, root / "llama", model_type="llama")
    checkpoints.hub_layout(gpt2, root / "hub", "acme/tiny-gpt2")
    with pytest.MonkeyPatch.context() as mp:  # the AppTest runs the app in this process
        mp.setenv("ATTENTION_LAB_MODELS", ":".join(map(str, (bert, gpt2, huge, mismatch, llama))))
        mp.setenv("HF_HUB_CACHE", str(root / "hub"))
        yield


def open_page(make_app, query=None):
    at = make_app(query=query, page="trained_heads")
    no_exception(at)
    return at


def thumbnails(at, T: int) -> np.ndarray:
    df = chart(at, "model-view")
    L, H = df["layer"].max(), df["head"].max()
    out = np.full((L, H, T, T), np.nan)
    out[df["layer"] - 1, df["head"] - 1, df["row"], df["col"]] = df["weight"]
    return out


@needs_model
def test_the_picker_lists_every_model_with_its_family_sizes_and_size_on_disk(make_app):
    at = open_page(make_app)
    picker = at.selectbox(key=PICKER)
    assert picker.value == "all-MiniLM-L6-v2"
    assert picker.options[:3] == [
        picker.format_func("all-MiniLM-L6-v2"), picker.format_func("tiny-bert"), picker.format_func("tiny-gpt2")]
    labels = {o.split(" · ")[0]: o for o in picker.options}
    assert set(labels) == {"all-MiniLM-L6-v2", "tiny-bert", "tiny-gpt2", "huge", "mismatch", "acme/tiny-gpt2"}
    assert labels["tiny-gpt2"].startswith("tiny-gpt2 · GPT-2 · 2 layers × 4 heads · ")
    assert labels["all-MiniLM-L6-v2"].startswith("all-MiniLM-L6-v2 · BERT · 6 layers × 12 heads · ")
    assert "llama" in " ".join(e.value for e in at.markdown)  # listed apart, with its sentence
    assert "model" not in at.query_params  # MiniLM is the default: no model in the address


def test_a_gpt2_link_opens_its_heads_with_the_causal_mask(make_app):
    at = open_page(make_app, {"model": "tiny-gpt2", "sentence": TEXT})
    whole = trained_trace(TEXT, model="tiny-gpt2")
    shown = thumbnails(at, len(whole.tokens))
    np.testing.assert_allclose(shown, whole.weights, atol=1e-6)
    assert np.all(shown[..., np.triu(np.ones_like(shown[0, 0], dtype=bool), 1)] == 0)  # nothing above the diagonal
    masked = chart(at, "masked")  # step 3 shows the mask on the real head: blocked cells are flagged
    T = len(whole.tokens)
    np.testing.assert_array_equal(masked["masked"].to_numpy(), np.triu(np.ones((T, T), dtype=bool), 1).reshape(-1))
    assert at.query_params["model"] == "tiny-gpt2"
    intro = at.markdown[0].value
    assert "tiny\\-gpt2" in intro and "causal mask" in intro and "MiniLM" not in intro
    headers = [h.value for h in at.subheader]
    assert "The strongest measured patterns" in headers and "Heads worth a look" not in headers
    assert "A video of these heads" not in headers  # the scene draws MiniLM's heads only


def test_other_models_get_measured_patterns_only(make_app):
    at = open_page(make_app, {"model": "tiny-gpt2", "sentence": TEXT})
    measured = causal_patterns(trained_trace(TEXT, model="tiny-gpt2").weights)
    (first,) = [b for b in at.button if b.key.startswith("trained_strong_previous_")][:1]
    layer, head = (int(x) for x in first.key.split("_")[-2:])
    assert measured["previous"][layer - 1, head - 1] == measured["previous"].max()
    first.click().run()
    assert (at.query_params.get("layer", "1"), at.query_params.get("head", "1")) == (str(layer), str(head))
    table = at.dataframe[0].value
    assert list(table.columns) == ["layer", "head", "previous", "first", "itself", "entropy (nats)",
                                   "evenness (entropy ÷ ln of tokens seen)"]
    np.testing.assert_allclose(table["first"].to_numpy(), measured["first"].reshape(-1))


def test_picking_a_cached_model_puts_its_name_in_the_address(make_app):
    at = open_page(make_app, {"model": "tiny-bert"})
    at.selectbox(key=PICKER).set_value("acme/tiny-gpt2").run()
    no_exception(at)
    assert at.query_params["model"] == "acme/tiny-gpt2"
    whole = trained_trace(at.session_state["trained_sentence"], model="acme/tiny-gpt2")
    np.testing.assert_allclose(thumbnails(at, len(whole.tokens)), whole.weights, atol=1e-6)


@needs_model
@pytest.mark.parametrize("name", ["gpt2-xl", "[x](javascript:alert(1)) **bold**", "../tiny-bert"])
def test_a_model_missing_here_opens_minilm_with_a_notice(name, make_app):
    at = open_page(make_app, {"model": name})
    assert at.selectbox(key=PICKER).value == "all-MiniLM-L6-v2" and "model" not in at.query_params
    (warning,) = at.warning
    assert "which this machine does not have" in warning.value and "all\\-MiniLM\\-L6\\-v2" in warning.value
    assert "**" not in warning.value.replace("\\*", "")  # the link's name is shown as typed, never as Markdown


def test_a_sentence_past_the_bound_is_refused_in_words(make_app):
    at = open_page(make_app, {"model": "huge", "sentence": "Hi there."})
    long = " ".join(["cat"] * 20)
    at.text_input(key="trained_box").input(long).run()
    no_exception(at)
    said = messages(at)
    assert "past the lab's bound of" in said and "layers × heads × T²" in said
    assert at.session_state["trained_sentence"] == "Hi there." and MAX_TOKENS == 64


@pytest.mark.parametrize("name, says", [("mismatch", "has weights that do not match its config.json"),
                                         ("huge", "the lab keeps for models (ATTENTION_LAB_MODELS_MB)")])
def test_a_model_that_cannot_load_is_one_sentence(name, says, make_app):
    at = open_page(make_app, {"model": name, "sentence": "Hi there."})
    (error,) = at.error
    assert plain(says) in error.value
    assert at.selectbox(key=PICKER).value == name  # the teacher can pick another model from here


def test_the_sentence_box_states_the_models_bound(make_app):
    at = open_page(make_app, {"model": "huge", "sentence": "Hi there."})  # 48 × 25 heads: at most 22 tokens
    assert at.text_input(key="trained_box").help == (
        "At most 22 tokens (the lab computes at most 589,824 attention weights per sentence, layers × heads × T², "
        "and this model has 48 × 25 heads).")
    at = open_page(make_app, {"model": "tiny-bert"})
    assert at.text_input(key="trained_box").help == "At most 64 word pieces, [CLS] and [SEP] included."
