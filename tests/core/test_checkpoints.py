"""Local checkpoints (issue 27): core runs a BERT and a GPT-2 folder as `transformers` does, finds
them (ATTENTION_LAB_MODELS, the Hugging Face cache) without the network, and says in one sentence
why a folder it cannot run is refused.

The models are tiny random ones that tests/checkpoints.py makes (no download), built once here.
"""

import math
import socket
from pathlib import Path

import numpy as np
import pytest
import torch

from core import AttentionConfig, ConfigError, run_trace, trained_trace
from core import models as found
from core.checkpoint import CAN_RUN
from core.head_patterns import causal_patterns
from core.limits import MAX_ATTENTION_CELLS, MAX_TOKENS
from core.trained import encode
from tests import checkpoints
from tests.core.conftest import needs_model

transformers = pytest.importorskip("transformers", reason="transformers (requirements-dev.txt) is the reference")
TOL = {"atol": 1e-5, "rtol": 1e-5}  # float32
SENTENCES = ["The cat sat on the mat because it was tired.", "Hi!", "A teacher shows the heads of a model.",
             "Zyxwvut quibbleflap snorgle, 12.5% café!", "Einstein read every word twice before the class."]


class NetworkTouched(AssertionError):
    pass


def _no_network(*args, **kwargs):
    raise NetworkTouched(f"a socket was opened: {args}")


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """The tiny models, a few broken copies and a fake HF cache; the environment pointing at them and
    every socket connection refused, for the whole module."""
    root = tmp_path_factory.mktemp("models")
    bert, gpt2 = checkpoints.make_bert(root / "tiny-bert"), checkpoints.make_gpt2(root / "tiny-gpt2")
    made = {
        "bert": bert, "gpt2": gpt2,
        "bert-bin": checkpoints.as_bin(bert, root / "tiny-bert-bin", prefix="bert."),
        "gpt2-bin": checkpoints.as_bin(gpt2, root / "tiny-gpt2-bin"),
        "no-tokenizer": checkpoints.copy_without(bert, root / "no-tokenizer", "tokenizer.json"),
        "llama": checkpoints.with_config(bert, root / "llama", model_type="llama"),
        "corrupt": checkpoints.copy_without(bert, root / "corrupt"),
        "huge": checkpoints.with_config(gpt2, root / "huge", n_layer=48, n_head=25, n_embd=1600),
    }
    weights = made["corrupt"] / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])  # a download cut in half
    hub = root / "hub"
    made["cached"] = checkpoints.hub_layout(gpt2, hub, "acme/tiny-gpt2")
    checkpoints.hub_layout(made["llama"], hub, "acme/llama")  # a cached model the lab cannot run: not listed
    env = [made[k] for k in ("bert", "gpt2", "bert-bin", "gpt2-bin", "no-tokenizer", "llama", "corrupt", "huge")]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ATTENTION_LAB_MODELS", ":".join(map(str, env)))
        mp.setenv("HF_HUB_CACHE", str(hub))
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setattr(socket.socket, "connect", _no_network)
        mp.setattr(socket.socket, "connect_ex", _no_network)
        yield made


def _reference(folder: Path, family: str):
    cls = transformers.BertModel if family == "bert" else transformers.GPT2Model
    kwargs = {"add_pooling_layer": False} if family == "bert" else {}
    return cls.from_pretrained(folder, attn_implementation="eager", **kwargs).eval()


@pytest.fixture(scope="module")
def references(folders):
    return {family: _reference(folders[family], family) for family in ("bert", "gpt2")}


def test_the_socket_blocker_blocks(folders):
    with pytest.raises(NetworkTouched), socket.create_connection(("127.0.0.1", 9), timeout=1):
        pass


@pytest.mark.parametrize("family, name", [("bert", "tiny-bert"), ("gpt2", "tiny-gpt2")])
@pytest.mark.parametrize("text", SENTENCES)
def test_weights_and_hidden_states_match_transformers_eager(family, name, text, folders, references):
    ours = trained_trace(text, device="cpu", model=name)
    with torch.no_grad():
        ref = references[family](input_ids=torch.tensor([ours.ids.tolist()]), output_attentions=True,
                                 output_hidden_states=True)
    theirs = torch.cat(ref.attentions).numpy()  # (L, H, T, T)
    assert ours.weights.shape == theirs.shape == (2, 4, len(ours.tokens), len(ours.tokens))
    np.testing.assert_allclose(ours.weights, theirs, **TOL)
    np.testing.assert_allclose(ours.hidden_states, torch.cat(ref.hidden_states).numpy(), **TOL)
    np.testing.assert_allclose(ours.last_hidden_state, ref.last_hidden_state[0].numpy(), **TOL)
    assert ours.model == name and ours.causal == (family == "gpt2")


def test_word_pieces_are_the_tokenizers_own(folders):
    """BERT's WordPiece adds [CLS] and [SEP]; GPT-2's byte-level BPE adds nothing and marks spaces with Ġ.
    The reference is transformers' fast tokenizer reading the same tokenizer.json."""
    for name, family in (("tiny-bert", "bert"), ("tiny-gpt2", "gpt2")):
        tok = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folders[family] / "tokenizer.json"))
        for text in SENTENCES:
            ours = trained_trace(text, device="cpu", model=name)
            assert ours.tokens == tok.convert_ids_to_tokens(tok(text)["input_ids"])
    bert = trained_trace("The cat sat.", device="cpu", model="tiny-bert").tokens
    gpt2 = trained_trace("The cat sat.", device="cpu", model="tiny-gpt2").tokens
    assert bert[0] == "[CLS]" and bert[-1] == "[SEP]" and gpt2[1] == "Ġc" and "[CLS]" not in gpt2


def test_gpt2_weights_are_causal_and_its_layer_trace_shows_the_mask(folders):
    ours = trained_trace(SENTENCES[0], device="cpu", model="tiny-gpt2")
    T = len(ours.tokens)
    above = np.triu(np.ones((T, T), dtype=bool), 1)
    assert np.all(ours.weights[..., above] == 0) and np.all(ours.weights[..., ~above] > 0)
    layer = ours.layer(2)
    np.testing.assert_array_equal(layer.mask, ~above)
    assert np.all(np.isneginf(layer.masked[:, above]))
    assert layer.config.mask == "causal" and layer.config.model == "tiny-gpt2" and layer.config.layer == 2
    np.testing.assert_array_equal(run_trace(layer.config).weights, layer.weights)


def test_a_layer_trace_is_the_references_attention_sublayer(folders, references):
    """Per layer: the trace's output is GPT-2's c_proj output (attention after W_O), from LN(x) as its input."""
    model, seen = references["gpt2"], {}
    hooks = [block.attn.c_proj.register_forward_hook(lambda m, a, out, i=i: seen.__setitem__(i, out[0]))
             for i, block in enumerate(model.h)]
    ours = trained_trace(SENTENCES[2], device="cpu", model="tiny-gpt2")
    try:
        with torch.no_grad():
            model(input_ids=torch.tensor([ours.ids.tolist()]))
    finally:
        for h in hooks:
            h.remove()
    for i, layer in enumerate(ours.layers):
        np.testing.assert_allclose(layer.output, seen[i].numpy(), **TOL)


@pytest.mark.parametrize("family", ["bert", "gpt2"])
def test_pytorch_model_bin_reads_as_the_safetensors_file(family, folders):
    text = SENTENCES[0]
    a = trained_trace(text, device="cpu", model=f"tiny-{family}")
    b = trained_trace(text, device="cpu", model=f"tiny-{family}-bin")
    np.testing.assert_array_equal(a.weights, b.weights)


def test_discovery_lists_minilm_the_folders_and_the_cache(folders):
    listed = {m.name: m for m in found.discover()}
    names = list(listed)
    assert names[0] == "all-MiniLM-L6-v2" and listed[names[0]].source == found.BUILT_IN
    assert names[1:9] == ["tiny-bert", "tiny-gpt2", "tiny-bert-bin", "tiny-gpt2-bin", "no-tokenizer", "llama",
                          "corrupt", "huge"]
    bert, gpt2, cached = listed["tiny-bert"], listed["tiny-gpt2"], listed["acme/tiny-gpt2"]
    assert (bert.family, bert.layers, bert.heads, bert.d_model, bert.source) == ("bert", 2, 4, 32, found.FROM_ENV)
    assert (gpt2.family, gpt2.causal) == ("gpt2", True)
    assert cached.source == found.FROM_CACHE and cached.folder == folders["cached"] and not cached.problem
    on_disk = sum(f.stat().st_size for f in folders["gpt2"].iterdir())
    assert cached.size_bytes == gpt2.size_bytes == on_disk
    assert gpt2.label() == f"tiny-gpt2 · GPT-2 · 2 layers × 4 heads · {on_disk / 1e3:.0f} kB"
    assert "acme/llama" not in listed  # the cache's models that cannot run are left out of the list


def test_a_cached_model_runs_as_its_folder_does(folders):
    a = trained_trace(SENTENCES[0], device="cpu", model="acme/tiny-gpt2")
    b = trained_trace(SENTENCES[0], device="cpu", model="tiny-gpt2")
    np.testing.assert_array_equal(a.weights, b.weights)


def test_hf_home_places_the_cache_under_hub(folders, monkeypatch, tmp_path):
    checkpoints.hub_layout(folders["bert"], tmp_path / "home" / "hub", "someone/tiny-bert")
    monkeypatch.delenv("HF_HUB_CACHE")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home"))
    assert found.hub_cache() == tmp_path / "home" / "hub"
    assert "someone/tiny-bert" in [m.name for m in found.discover()]


@pytest.mark.parametrize("name, says", [
    ("no-tokenizer", "has no tokenizer.json"),
    ("llama", "holds a model of type “llama”, which the lab cannot run."),
    ("corrupt", "has a model.safetensors that cannot be read"),
])
def test_a_folder_it_cannot_run_gets_one_sentence_naming_what_it_can(name, says, folders):
    with pytest.raises(ConfigError) as err:
        trained_trace("The cat sat.", device="cpu", model=name)
    message = str(err.value)
    assert message == f"The model folder “{name}” {says}{message.split(says)[1]}"
    assert message.endswith(CAN_RUN) and "\n" not in message and err.value.field == "model"


def test_a_name_not_on_this_machine_is_refused_and_never_read_as_a_path(folders):
    for name in ("gpt2-xl", "../tiny-bert", str(folders["bert"])):
        with pytest.raises(ConfigError, match="There is no model called") as err:
            AttentionConfig.trained("Hi", model=name)
        assert "tiny-bert" in str(err.value) and "llama" not in str(err.value)  # it names the ones that run


def test_the_bound_on_layers_heads_and_tokens_is_stated_and_enforced(folders):
    """48 layers × 25 heads: checked from config.json before any weight is read (its weights would not load).
    A sentence passes exactly when layers × heads × T² is within the bound."""
    most = int((MAX_ATTENTION_CELLS // (48 * 25)) ** 0.5)
    words = " ".join(SENTENCES).split()
    seen = set()
    for k in range(2, 30):
        text = " ".join(words[:k])
        n = len(encode(text, "huge")[0])
        if n > MAX_TOKENS:
            break
        seen.add(n <= most)
        if n <= most:
            assert AttentionConfig.trained(text, model="huge").num_tokens == n
        else:
            with pytest.raises(ConfigError, match=rf"at {n} tokens that is {48 * 25 * n * n:,} attention weights, "
                               rf"past the lab's bound of {MAX_ATTENTION_CELLS:,} per sentence \(layers × heads × "
                               rf"T²\)\. Shorten it to at most {most} tokens\."):
                AttentionConfig.trained(text, model="huge")
    assert seen == {True, False}


def test_a_model_past_the_memory_budget_is_refused(folders, monkeypatch):
    monkeypatch.setattr(found, "BUDGET_BYTES", 1000)
    found._LOADED.clear()
    with pytest.raises(ConfigError, match=r"more than the .* the lab keeps for models \(ATTENTION_LAB_MODELS_MB\)"):
        trained_trace("The cat sat.", device="cpu", model="tiny-bert")


def test_loaded_models_are_shared_and_the_least_recent_leaves_past_the_budget(folders, monkeypatch):
    found._LOADED.clear()
    first = found.load(found.find("tiny-bert"), torch.device("cpu"))
    assert found.load(found.find("tiny-bert"), torch.device("cpu")) is first
    one = found.shape_of(found.find("tiny-bert")).parameter_bytes
    monkeypatch.setattr(found, "BUDGET_BYTES", one + found.shape_of(found.find("tiny-gpt2")).parameter_bytes // 2)
    found.load(found.find("tiny-gpt2"), torch.device("cpu"))
    assert [Path(k[0]).name for k in found._LOADED] == ["tiny-gpt2"]


def test_parameter_bytes_counts_the_models_own_parameters(folders):
    for name in ("tiny-bert", "tiny-gpt2"):
        model = found.load(found.find(name), torch.device("cpu"))
        assert found.shape_of(found.find(name)).parameter_bytes == 4 * sum(p.numel() for p in model.parameters())


def test_causal_patterns_by_hand():
    """Rows 1 and 2 of one head (row 0 sees only itself and is left out), computed by hand."""
    w = np.array([[1.0, 0.0, 0.0], [0.25, 0.75, 0.0], [0.5, 0.25, 0.25]])[None, None]  # (1, 1, 3, 3)
    got = {k: float(v[0, 0]) for k, v in causal_patterns(w).items()}
    h1 = -(0.25 * math.log(0.25) + 0.75 * math.log(0.75))
    h2 = -(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25))
    assert got == pytest.approx({"previous": 0.25, "first": (0.25 + 0.5) / 2, "self": (0.75 + 0.25) / 2,
                                 "entropy": (h1 + h2) / 2, "spread": (h1 / math.log(2) + h2 / math.log(3)) / 2})
    with pytest.raises(ValueError, match="two tokens"):
        causal_patterns(np.ones((1, 1, 1, 1)))


def test_one_gpt2_token_is_refused_in_words(folders):
    with pytest.raises(ConfigError, match="makes one token, which can attend only to itself: type at least two"):
        AttentionConfig.trained("The", model="tiny-gpt2")


@needs_model
def test_minilm_keeps_its_keys_and_a_local_model_round_trips_through_a_link(folders):
    text = "The cat sat."
    minilm = AttentionConfig.trained(text, layer=2)
    assert AttentionConfig.trained(text, layer=2, model="all-MiniLM-L6-v2").key() == minilm.key()
    assert "model" not in minilm.to_dict() and AttentionConfig(text=text, model="tiny-gpt2").model == ""
    gpt2 = AttentionConfig.trained(text, layer=2, model="tiny-gpt2")
    assert gpt2.to_dict()["model"] == "tiny-gpt2" and gpt2.mask == "causal" and gpt2.num_heads == 4
    assert AttentionConfig.from_dict(gpt2.to_dict()) == gpt2 and gpt2.key() != minilm.key()


@pytest.mark.parametrize("changes, says", [
    ({"hidden_act": "silu"}, "holds a BERT with the activation “silu” (the lab has gelu, relu, gelu_new, "
                             "gelu_pytorch_tanh), which the lab cannot run."),
    ({"position_embedding_type": "relative_key"}, "holds a BERT with position embeddings “relative_key”"),
    ({"num_attention_heads": 5}, "whose sizes cannot make a model (2 layers, 5 heads, d_model 32"),
    ({"num_hidden_layers": "two"}, 'has a config.json whose num_hidden_layers is "two", not a whole number from 1 '
                                   "to 1,024."),
])
def test_a_config_the_lab_cannot_build_is_one_sentence(changes, says, folders, tmp_path):
    from core.checkpoint import read_shape

    folder = checkpoints.with_config(folders["bert"], tmp_path / "odd", **changes)
    with pytest.raises(ConfigError) as err:
        read_shape(folder)
    assert says in str(err.value) and str(err.value).endswith(CAN_RUN)
