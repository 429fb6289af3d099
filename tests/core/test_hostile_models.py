"""A hostile model folder breaks only itself (issue 39, item 5): config.json is read with bounds (its size,
its nesting, finite numbers, the types of the fields the lab uses), and weights larger than their
config.json's model can take are refused from their size on disk, before a byte of them is read. Each
attack is replayed on a copy of a tiny BERT; the folders beside it stay listed and keep working."""

import json

import pytest
import safetensors.torch
import tokenizers
import torch

from core import ConfigError, trained_trace
from core import models as found
from core.checkpoint import CAN_RUN, checked_weight_files, read_shape, read_tensors, read_tokenizer
from core.model_json import MOST_BYTES, MOST_DEPTH
from tests import checkpoints
from tests.core.conftest import needs_model

pytest.importorskip("transformers", reason="transformers (requirements-dev.txt) makes the tiny models")


def _raw(src, dst, old: str, new: str):
    """A copy of `src` whose config.json text has `old` replaced by `new` (what json.dumps cannot write)."""
    checkpoints.copy_without(src, dst)
    text = (dst / "config.json").read_text()
    assert old in text
    (dst / "config.json").write_text(text.replace(old, new, 1))
    return dst


def _oversize(src, dst, size: int, name: str = "model.safetensors"):
    """A copy of `src` whose file `name` is `size` bytes long: sparse, so it costs no disk."""
    checkpoints.copy_without(src, dst)
    with open(dst / name, "r+b") as f:
        f.truncate(size)
    return dst


# folder name -> (how it is made from the tiny BERT, what its refusal says after the folder's name)
ATTACKS = {
    "inf": (lambda b, d: _raw(b, d, '"layer_norm_eps": 1e-12', '"layer_norm_eps": 1e400'),
            "has a config.json with a number, '1e400', too large to be finite."),
    "nan": (lambda b, d: _raw(b, d, '"layer_norm_eps": 1e-12', '"layer_norm_eps": NaN'),
            "has a config.json with the value NaN, which is not a number."),
    "list-type": (lambda b, d: checkpoints.with_config(b, d, model_type=["bert"]),
                  "holds a model of type “['bert']”, which the lab cannot run."),
    "deep": (lambda b, d: _raw(b, d, '"layer_norm_eps": 1e-12', '"x": ' + "[" * 200_000 + "]" * 200_000),
             f"has a config.json nested more than {MOST_DEPTH} levels deep, far more than a model's description."),
    "deep-parsed": (lambda b, d: checkpoints.with_config(b, d, x=json.loads("[" * 40 + "]" * 40)),
                    f"has a config.json nested more than {MOST_DEPTH} levels deep"),
    "huge-config": (lambda b, d: checkpoints.with_config(b, d, padding=" " * (MOST_BYTES + 1)),
                    "has a config.json of more than 1,024 kB, far more than a model's description."),
    "huge-int": (lambda b, d: _raw(b, d, '"vocab_size": ', '"vocab_size": ' + "9" * 5000 + ", \"was\": "),
                 "has a config.json with a whole number of 5,000 digits."),
    "bool-size": (lambda b, d: checkpoints.with_config(b, d, num_hidden_layers=True),
                  "has a config.json whose num_hidden_layers is true, not a whole number from 1 to 1,024."),
    "vast-size": (lambda b, d: checkpoints.with_config(b, d, hidden_size=10**15),
                  "has a config.json whose hidden_size is 1000000000000000, not a whole number from 1 to 65,536."),
    "list-act": (lambda b, d: checkpoints.with_config(b, d, hidden_act=["gelu"]),
                 'has a config.json whose hidden_act is ["gelu"], not a name.'),
    "oversize": (lambda b, d: _oversize(b, d, 287 * 10**6),
                 "has weights of 287.0 MB, more than the "),
    # issue 47: a 600 MB tokenizer.json raised a lab's peak memory from 670 to 1,270 MiB
    "huge-tokenizer": (lambda b, d: _oversize(b, d, 600 * 10**6, "tokenizer.json"),
                       "has a tokenizer.json of 600.0 MB, more than the 16.0 MB the lab reads of one, so the lab "
                       "does not read it."),
}


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    bert = checkpoints.make_bert(root / "tiny-bert")
    made = {name: make(bert, root / name) for name, (make, _) in ATTACKS.items()}
    gpt2 = checkpoints.make_gpt2(root / "tiny-gpt2")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ATTENTION_LAB_MODELS", ":".join(map(str, [*made.values(), bert, gpt2])))
        mp.setenv("HF_HUB_CACHE", str(root / "no-hub"))
        yield {"tiny-bert": bert, "tiny-gpt2": gpt2, **made}


@pytest.mark.parametrize("name", ATTACKS)
def test_each_attack_is_refused_in_one_sentence_and_the_others_stay_listed(name, folders):
    listed = {m.name: m for m in found.discover()}
    problem = listed[name].problem
    assert problem.startswith(f"The model folder “{name}” {ATTACKS[name][1]}") and problem.endswith(CAN_RUN)
    assert len(problem) < 600 and "\n" not in problem
    assert not listed["tiny-bert"].problem and not listed["tiny-gpt2"].problem
    with pytest.raises(ConfigError) as err:
        trained_trace("The cat sat.", device="cpu", model=name)
    assert str(err.value) == problem and err.value.field == "model"
    assert trained_trace("The cat sat.", device="cpu", model="tiny-bert").weights.shape[:2] == (2, 4)  # it runs


def test_oversize_weights_are_refused_without_being_read(folders, monkeypatch):
    """The loaders are never called: the refusal comes from the file's size on disk."""
    def never(*args, **kwargs):
        raise AssertionError("the weights were read")

    monkeypatch.setattr(safetensors.torch, "load_file", never)
    monkeypatch.setattr(torch, "load", never)
    folder = folders["oversize"]
    assert (folder / "model.safetensors").stat().st_size == 287 * 10**6
    with pytest.raises(ConfigError, match="so the lab does not read them"):
        read_tensors(folder, read_shape(folder))


def test_an_oversize_tokenizer_is_refused_without_being_read(folders, monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("the tokenizer was read")

    monkeypatch.setattr(tokenizers.Tokenizer, "from_file", never)
    monkeypatch.setattr(tokenizers.Tokenizer, "from_str", never)
    monkeypatch.setattr(type(folders["huge-tokenizer"]), "open", never)  # nor opened by the lab
    with pytest.raises(ConfigError, match="has a tokenizer.json of 600.0 MB, more than the 16.0 MB"):
        read_tokenizer(folders["huge-tokenizer"])


def test_the_weights_bound_holds_every_tensor_a_checkpoint_may_keep(folders, tmp_path):
    """GPT-2 saves of older transformers keep each layer's causal mask (n_positions² floats) and an
    untied output head: such a file, built here, is within the bound and still runs."""
    src = folders["tiny-gpt2"]
    folder = checkpoints.copy_without(src, tmp_path / "old-gpt2", "model.safetensors")
    tensors = safetensors.torch.load_file(str(src / "model.safetensors"))
    shape = read_shape(src)
    P, L = shape.max_positions, shape.layers
    for i in range(L):
        tensors[f"transformer.h.{i}.attn.bias"] = torch.tril(torch.ones(1, 1, P, P))
        tensors[f"transformer.h.{i}.attn.masked_bias"] = torch.tensor(-1e4)
    tensors["lm_head.weight"] = torch.randn(shape.vocab_size, shape.d_model)
    safetensors.torch.save_file(tensors, str(folder / "model.safetensors"))
    size = (folder / "model.safetensors").stat().st_size
    assert size > (src / "model.safetensors").stat().st_size + 4 * L * P * P
    assert size <= shape.most_file_bytes
    assert checked_weight_files(folder, shape) == [folder / "model.safetensors"]
    assert read_tensors(folder, shape)["lm_head.weight"].shape == (shape.vocab_size, shape.d_model)


@needs_model
def test_the_built_in_models_own_folder_passes_the_bounds():
    from core import pretrained

    folder = pretrained.model_dir()
    shape = read_shape(folder)
    assert (shape.family, shape.layers, shape.heads, shape.d_model) == ("bert", 6, 12, 384)
    assert checked_weight_files(folder, shape) == [folder / "model.safetensors"]


def test_a_shards_index_is_read_with_the_same_bounds(folders, tmp_path):
    folder = checkpoints.copy_without(folders["tiny-bert"], tmp_path / "sharded", "model.safetensors")
    (folder / "model.safetensors.index.json").write_text('{"weight_map": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ConfigError, match=f"has a model.safetensors.index.json nested more than {MOST_DEPTH} levels"):
        checked_weight_files(folder, read_shape(folder))
