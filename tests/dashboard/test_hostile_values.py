"""Hostile values on the page (issue 39, items 5 and 7): a model folder that cannot be read breaks only
itself on Trained heads, listed with its reason while the others stay in the picker; a link's value is
quoted back cut (about 80 characters and "…") and with bidi and invisible controls shown as escapes, so
that a U+202E cannot reverse the lab's own words around it."""

import re

import pytest

from tests import checkpoints
from tests.conftest import shown
from tests.core.conftest import needs_model

from .conftest import messages, no_exception

PICKER = "trained_model_picker"
RLO = "\u202e"
# Characters that reorder or hide text: the bidi embeddings, overrides, isolates and marks, and the Arabic letter mark
BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
BROKEN = {"inf": ('"layer_norm_eps": 1e-12', '"layer_norm_eps": 1e400', "too large to be finite"),
          "list-type": ('"model_type": "bert"', '"model_type": ["bert"]', "holds a model of type “['bert']”"),
          "deep": ('"model_type"', '"x": ' + "[" * 100_000 + "]" * 100_000 + ', "model_type"', "levels deep"),
          f"rtl{RLO}name": ('"layer_norm_eps": 1e-12', '"layer_norm_eps": NaN', "which is not a number")}


def bodies(at) -> list[str]:
    """Every notice and text element's Markdown body, the expanders' included."""
    return [str(e.value) for kind in ("warning", "error", "info", "markdown", "caption") for e in at.get(kind)]


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    pytest.importorskip("transformers", reason="transformers (requirements-dev.txt) makes the tiny models")
    root = tmp_path_factory.mktemp("hostile-page")
    bert = checkpoints.make_bert(root / "tiny-bert")
    made = []
    for name, (old, new, _) in BROKEN.items():
        folder = checkpoints.copy_without(bert, root / name)
        text = (folder / "config.json").read_text()
        (folder / "config.json").write_text(text.replace(old, new, 1))
        made.append(folder)
    with open(checkpoints.copy_without(bert, root / "oversize") / "model.safetensors", "r+b") as f:
        f.truncate(287 * 10**6)  # sparse: no disk, and never read
    with pytest.MonkeyPatch.context() as mp:  # the AppTest runs the app in this process
        mp.setenv("ATTENTION_LAB_MODELS", ":".join(map(str, [*made, root / "oversize", bert])))
        mp.setenv("HF_HUB_CACHE", str(root / "no-hub"))
        yield


@needs_model
def test_broken_model_folders_are_listed_with_their_reasons_and_the_others_still_open(folders, make_app):
    at = make_app(query={"model": "tiny-bert", "sentence": "The cat sat."}, page="trained_heads")
    no_exception(at)
    assert [o.split(" · ")[0] for o in at.selectbox(key=PICKER).options] == ["all-MiniLM-L6-v2", "tiny-bert"]
    assert at.selectbox(key=PICKER).value == "tiny-bert" and not at.error
    said = " ".join(shown(b) for b in bodies(at))
    assert "5 folder(s) in ATTENTION_LAB_MODELS that the lab cannot open" in [e.label for e in at.expander]
    for name, (_, _, says) in BROKEN.items():
        escaped = name.replace(RLO, "\\u202e")  # the folder's name, its override shown as an escape
        assert f"The model folder “{escaped}” " in said and says in said
    assert "The model folder “oversize” has weights of 287.0 MB, more than the" in said
    assert not any(BIDI.search(b) for b in bodies(at))


@needs_model
def test_a_link_to_a_broken_model_opens_minilm_with_a_notice(folders, make_app):
    at = make_app(query={"model": "inf"}, page="trained_heads")
    no_exception(at)
    assert at.selectbox(key=PICKER).value == "all-MiniLM-L6-v2"
    assert "This link asks for the model “inf”, which this machine does not have" in messages(at)


def _quoted_cut(said: str, value_start: str) -> str:
    """The quote of a long value in `said`: 'xxx…' (30,000 characters), checked to be about 80 characters."""
    found = re.search(rf"[“']({re.escape(value_start)}[^'”]*)…[’'”] \(30,000 characters\)", said)
    assert found, said[:400]
    assert 70 <= len(found[1]) <= 80, found[1]
    return found[0]


@pytest.mark.parametrize("key, page, says", [
    ("mask", None, "Unknown mask "),
    ("device", None, "Unknown device "),
    ("head", "attention", "This link asks for head "),
    ("change", "compare", "This link asks for lesson b changes "),
])
def test_a_long_link_value_is_quoted_cut(key, page, says, make_app):
    at = make_app(query={key: "x" * 30_000}, page=page)
    no_exception(at)
    said = messages(at)
    assert says in said and len(said) < 1000
    _quoted_cut(said, "xx")


@needs_model
def test_a_long_model_name_in_a_link_is_quoted_cut(make_app):
    at = make_app(query={"model": "y" * 30_000}, page="trained_heads")
    no_exception(at)
    said = messages(at)
    assert "which this machine does not have" in said and len(said) < 1000
    _quoted_cut(said, "yy")


@pytest.mark.parametrize("key, page, before, after", [
    ("mask", None, "This link has a setting that cannot work, so the lab opened with its defaults. Unknown mask '",
     "': choose one of none, causal, padding, window, custom."),
    pytest.param("model", "trained_heads", "This link asks for the model “",
                 "”, which this machine does not have, so the page reads all-MiniLM-L6-v2 instead.", marks=needs_model),
])
def test_a_bidi_override_in_a_link_is_shown_escaped_and_the_labs_words_read_in_order(key, page, before, after,
                                                                                    make_app):
    at = make_app(query={key: f"evil{RLO}gnp.exe\u2066\u200f"}, page=page)
    no_exception(at)
    assert not any(BIDI.search(b) for b in bodies(at))
    assert f"{before}evil\\u202egnp.exe\\u2066\\u200f{after}" in messages(at)
