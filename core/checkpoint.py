"""A local checkpoint folder, as `save_pretrained` writes one: what it is, and its files read.

A folder holds config.json (the architecture and its sizes), model.safetensors (or the older
pytorch_model.bin, or shards named by an index) and tokenizer.json. Each is read with its own
library (json, safetensors, torch with `weights_only=True`, tokenizers); nothing is downloaded
and no hub client is imported. Whatever stops a folder from running raises one `ConfigError`
sentence that names the folder, what is wrong, and what the lab can run.

A folder is anyone's file, so each read is bounded before it happens: config.json by its size, its
nesting, finite numbers and the types of the fields the lab uses; the weights by the size their
config.json implies, from the files' sizes on disk, before a byte of them is read; tokenizer.json by
MAX_TOKENIZER_BYTES (core/limits.py), from its size on disk too.
"""

import json
from dataclasses import dataclass
from pathlib import Path

from . import model_json
from .errors import ConfigError, quote
from .limits import MAX_TOKENIZER_BYTES

CAN_RUN = ('The lab runs BERT-family encoders (model_type "bert", absolute positions) and GPT-2 '
           '(model_type "gpt2"), from a folder with config.json, model.safetensors or pytorch_model.bin, '
           'and tokenizer.json.')
FAMILIES = {"bert": "BERT", "gpt2": "GPT-2"}  # model_type -> the family's name, as a person says it
BERT_ACTIVATIONS = {"gelu": "gelu", "relu": "relu", "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh"}
WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                "pytorch_model.bin.index.json")
# The largest of each size the lab reads: past them a number is a slip or an attack, and no weights are that big.
MOST = {"layers": 1024, "heads": 1024, "d_model": 65_536, "d_ff": 1 << 20, "vocab_size": 1 << 24,
        "max_positions": 1 << 20, "type_vocab_size": 1 << 16}
HEADER_BYTES = 1024 * 1024  # a weights file's own header and index, beyond its tensors' bytes, at most...
HEADER_BYTES_PER_LAYER = 64 * 1024  # ...plus this per layer (each layer is a few dozen named tensors)


@dataclass(frozen=True)
class Shape:
    """What core needs to build a model: its sizes, read from config.json."""

    family: str  # "bert" | "gpt2"
    layers: int
    heads: int
    d_model: int
    d_ff: int
    vocab_size: int
    max_positions: int
    eps: float
    activation: str  # a key of core.block.ACTIVATIONS
    type_vocab_size: int = 0  # BERT's segment table
    scale_by_layer: bool = False  # GPT-2's scale_attn_by_inverse_layer_idx: layer i's scores ÷ (i + 1) too
    float_bytes: int = 4  # of the weights as saved at their widest: float32, or float64 if config.json says so

    @property
    def causal(self) -> bool:
        return self.family == "gpt2"

    @property
    def parameter_bytes(self) -> int:
        """float32 bytes of the weights core keeps (embeddings and blocks; no output head)."""
        D, F = self.d_model, self.d_ff
        block = 4 * D * D + 4 * D + 2 * D * F + F + D + 4 * D  # attention, feed-forward, two LayerNorms
        tables = (self.vocab_size + self.max_positions + self.type_vocab_size) * D + 2 * D
        return 4 * (self.layers * block + tables)

    @property
    def most_file_bytes(self) -> int:
        """The most bytes the weights' files of this model can take: every parameter a checkpoint of its
        family may hold beside core's (an untied output head; BERT's pooler, pre-training heads and
        position ids; GPT-2's stored causal masks), in float32 (or float64, if config.json says so),
        plus the files' headers."""
        D, V, P = self.d_model, self.vocab_size, self.max_positions
        extra = V * D + V + 2 * D * D + 6 * D + 2 + 2 * P  # output head, pooler, masked-LM and next-sentence heads
        if self.family == "gpt2":
            extra += self.layers * (P * P + 1)  # attn.bias and attn.masked_bias, as older saves keep them
        return (self.parameter_bytes + 4 * extra) * self.float_bytes // 4 + HEADER_BYTES + \
            HEADER_BYTES_PER_LAYER * self.layers


def refuse(folder: Path, what: str):
    raise ConfigError(f"The model folder {quote(folder.name, marks='“”')} {what} {CAN_RUN}", "model")


def read_json(folder: Path, name: str):
    """The folder's JSON file `name`, read with model_json's bounds, or its ConfigError."""
    try:
        return model_json.read(folder / name)
    except model_json.Refused as err:
        refuse(folder, f"has a {name} {err}.")


def read_shape(folder: Path) -> Shape:
    """The architecture config.json describes, or a ConfigError saying why the lab cannot run it."""
    if not (folder / "config.json").is_file():
        refuse(folder, "has no config.json, so the lab cannot tell what model it holds.")
    cfg = read_json(folder, "config.json")
    if not isinstance(cfg, dict):
        refuse(folder, "has a config.json that is not a JSON object.")
    kind = cfg.get("model_type")
    if not isinstance(kind, str) or kind not in FAMILIES:
        refuse(folder, f"holds a model of type {quote(kind, marks='“”')}, which the lab cannot run.")
    try:
        shape = _bert_shape(cfg) if kind == "bert" else _gpt2_shape(cfg)
    except _Unsupported as err:
        refuse(folder, f"holds a {FAMILIES[kind]} with {err}, which the lab cannot run.")
    except KeyError as err:
        refuse(folder, f"has a config.json that lacks a size ({err}).")
    except model_json.Refused as err:
        refuse(folder, f"has a config.json {err}.")
    if shape.d_model % shape.heads:
        refuse(folder, f"has a config.json whose sizes cannot make a model ({shape.layers} layers, {shape.heads} "
                       f"heads, d_model {shape.d_model}: each head needs an equal share of d_model).")
    return shape


class _Unsupported(Exception):
    """A setting of a supported family that core does not implement (its message says which)."""


def _wrong(key: str, value, should: str) -> model_json.Refused:
    return model_json.Refused(f"whose {key} is {quote(json.dumps(value), 40, marks='')}, not {should}")


def _size(cfg: dict, key: str, what: str, default=None, least: int = 1) -> int:
    """cfg[key], a whole number from `least` to the lab's bound for `what` (KeyError if absent without a default)."""
    value = cfg[key] if default is None else cfg.get(key, default)
    if type(value) is not int or not least <= value <= MOST[what]:  # type(): true and false are not sizes
        raise _wrong(key, value, f"a whole number from {least} to {MOST[what]:,}")
    return value


def _field(cfg: dict, key: str, default, kind: type):
    if type(value := cfg.get(key, default)) is not kind:
        raise _wrong(key, value, "true or false" if kind is bool else "a name")
    return value


def _eps(cfg: dict, key: str, default: float) -> float:
    value = cfg.get(key, default)
    if type(value) not in (int, float) or not 0 <= value < 1:  # finite: model_json refuses the others
        raise _wrong(key, value, "a small number from 0 to 1")
    return float(value)


def _float_bytes(cfg: dict) -> int:
    return 8 if cfg.get("torch_dtype") == "float64" else 4


def _bert_shape(cfg: dict) -> Shape:
    if (where := _field(cfg, "position_embedding_type", "absolute", str)) != "absolute":
        raise _Unsupported(f"position embeddings {quote(where, marks='“”')} (the lab reads absolute ones)")
    if _field(cfg, "is_decoder", False, bool):
        raise _Unsupported("is_decoder set (the lab reads BERT as an encoder)")
    act = _activation(_field(cfg, "hidden_act", "gelu", str))
    return Shape("bert", _size(cfg, "num_hidden_layers", "layers"), _size(cfg, "num_attention_heads", "heads"),
                 _size(cfg, "hidden_size", "d_model"), _size(cfg, "intermediate_size", "d_ff"),
                 _size(cfg, "vocab_size", "vocab_size"), _size(cfg, "max_position_embeddings", "max_positions"),
                 _eps(cfg, "layer_norm_eps", 1e-12), act,
                 type_vocab_size=_size(cfg, "type_vocab_size", "type_vocab_size", default=2, least=0),
                 float_bytes=_float_bytes(cfg))


def _gpt2_shape(cfg: dict) -> Shape:
    if _field(cfg, "add_cross_attention", False, bool):
        raise _Unsupported("cross-attention")
    if not _field(cfg, "scale_attn_weights", True, bool):
        raise _Unsupported("scores not divided by √d_k")
    act = _activation(_field(cfg, "activation_function", "gelu_new", str))
    D = _size(cfg, "n_embd", "d_model")
    d_ff = 4 * D if cfg.get("n_inner") is None else _size(cfg, "n_inner", "d_ff")
    return Shape("gpt2", _size(cfg, "n_layer", "layers"), _size(cfg, "n_head", "heads"), D, d_ff,
                 _size(cfg, "vocab_size", "vocab_size"), _size(cfg, "n_positions", "max_positions"),
                 _eps(cfg, "layer_norm_epsilon", 1e-5), act,
                 scale_by_layer=_field(cfg, "scale_attn_by_inverse_layer_idx", False, bool),
                 float_bytes=_float_bytes(cfg))


def _activation(name: str) -> str:
    if name not in BERT_ACTIVATIONS:
        raise _Unsupported(f"the activation {quote(name, marks='“”')} (the lab has {', '.join(BERT_ACTIVATIONS)})")
    return BERT_ACTIVATIONS[name]


def weight_files(folder: Path) -> list[Path]:
    """The weights' files (several, for a sharded checkpoint), or a ConfigError if there are none."""
    for name in WEIGHT_FILES:
        path = folder / name
        if path.is_file():
            if not name.endswith(".index.json"):
                return [path]
            try:
                shards = sorted(set(read_json(folder, name)["weight_map"].values()))
            except (KeyError, TypeError, AttributeError):
                refuse(folder, f"has an unreadable {name}.")
            # The index names files; only plain names in this folder are read (no paths elsewhere).
            if not shards or any(not isinstance(s, str) or Path(s).name != s for s in shards):
                refuse(folder, f"has a {name} that names files outside the folder.")
            return [folder / s for s in shards]
    refuse(folder, "has no weights (model.safetensors or pytorch_model.bin).")


def checked_weight_files(folder: Path, shape: Shape) -> list[Path]:
    """The weights' files, once their sizes on disk fit the model config.json describes (nothing is read:
    a file far larger than its config.json's model would fill memory before it could be refused)."""
    files = weight_files(folder)
    try:
        size = sum(path.stat().st_size for path in files)
    except OSError:
        refuse(folder, "names weights files that are not there.")
    if size > shape.most_file_bytes:
        refuse(folder, f"has weights of {size / 1e6:,.1f} MB, more than the {shape.most_file_bytes / 1e6:,.1f} MB "
                       "that the model its config.json describes can take, so the lab does not read them.")
    return files


def read_tensors(folder: Path, shape: Shape) -> dict:
    """Every tensor of the folder's weights, by its name, in float32 on the CPU."""
    import torch

    tensors = {}
    for path in checked_weight_files(folder, shape):
        try:
            if path.suffix == ".safetensors":
                from safetensors.torch import load_file

                part = load_file(str(path))
            else:  # the older pickle format: weights_only refuses anything but tensors
                part = torch.load(str(path), map_location="cpu", weights_only=True)
        except Exception:  # noqa: BLE001  (a truncated or foreign file fails in many ways, all one answer)
            refuse(folder, f"has a {path.name} that cannot be read (truncated, or not a weights file).")
        if not isinstance(part, dict):
            refuse(folder, f"has a {path.name} that holds no table of tensors.")
        tensors |= {k: v.float() for k, v in part.items() if isinstance(v, torch.Tensor) and v.is_floating_point()}
    return tensors


def tokenizer_bytes(folder: Path) -> bytes:
    """The folder's tokenizer.json, read only within MAX_TOKENIZER_BYTES (its size on disk looked at first),
    or a ConfigError naming the file and the bound."""
    path = folder / "tokenizer.json"
    if not path.is_file():
        refuse(folder, "has no tokenizer.json, so the lab cannot turn a sentence into its word pieces "
                      "(tokenizer.save_pretrained(folder) writes one).")
    try:
        return model_json.read_bytes(path, MAX_TOKENIZER_BYTES)
    except model_json.Refused as err:
        refuse(folder, f"has a tokenizer.json {err}, so the lab does not read it.")


def checked_tokenizer(folder: Path):
    """Whether the folder's tokenizer.json is there and within MAX_TOKENIZER_BYTES, from its size on disk
    alone (a folder's listing reads nothing); a ConfigError if not."""
    path = folder / "tokenizer.json"
    if not path.is_file() or path.stat().st_size > MAX_TOKENIZER_BYTES:
        tokenizer_bytes(folder)  # raises its sentence


def read_tokenizer(folder: Path):
    """The folder's tokenizer.json, read by `tokenizers` (never truncated: long texts are refused by the lab)."""
    raw = tokenizer_bytes(folder)
    from tokenizers import Tokenizer

    try:
        tok = Tokenizer.from_str(raw.decode("utf-8"))
    except Exception:  # noqa: BLE001
        refuse(folder, "has a tokenizer.json that `tokenizers` cannot read.")
    tok.no_truncation()
    tok.no_padding()
    return tok


def size_on_disk(folder: Path) -> int:
    """Bytes of the folder's files (links followed: the Hugging Face cache links into its blobs)."""
    total = 0
    for path in folder.iterdir():
        try:
            total += path.stat().st_size if path.is_file() else 0
        except OSError:  # a dangling link
            pass
    return total
