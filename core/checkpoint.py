"""A local checkpoint folder, as `save_pretrained` writes one: what it is, and its files read.

A folder holds config.json (the architecture and its sizes), model.safetensors (or the older
pytorch_model.bin, or shards named by an index) and tokenizer.json. Each is read with its own
library (json, safetensors, torch with `weights_only=True`, tokenizers); nothing is downloaded
and no hub client is imported. Whatever stops a folder from running raises one `ConfigError`
sentence that names the folder, what is wrong, and what the lab can run.
"""

import json
from dataclasses import dataclass
from pathlib import Path

from .errors import ConfigError

CAN_RUN = ('The lab runs BERT-family encoders (model_type "bert", absolute positions) and GPT-2 '
           '(model_type "gpt2"), from a folder with config.json, model.safetensors or pytorch_model.bin, '
           'and tokenizer.json.')
FAMILIES = {"bert": "BERT", "gpt2": "GPT-2"}  # model_type -> the family's name, as a person says it
BERT_ACTIVATIONS = {"gelu": "gelu", "relu": "relu", "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh"}
WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                "pytorch_model.bin.index.json")


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


def refuse(folder: Path, what: str):
    raise ConfigError(f"The model folder “{folder.name}” {what} {CAN_RUN}", "model")


def read_shape(folder: Path) -> Shape:
    """The architecture config.json describes, or a ConfigError saying why the lab cannot run it."""
    path = folder / "config.json"
    if not path.is_file():
        refuse(folder, "has no config.json, so the lab cannot tell what model it holds.")
    try:
        cfg = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        refuse(folder, "has a config.json that is not readable JSON.")
    if not isinstance(cfg, dict):
        refuse(folder, "has a config.json that is not a JSON object.")
    kind = cfg.get("model_type")
    if kind not in FAMILIES:
        refuse(folder, f"holds a model of type “{kind}”, which the lab cannot run.")
    try:
        shape = _bert_shape(cfg) if kind == "bert" else _gpt2_shape(cfg)
    except _Unsupported as err:
        refuse(folder, f"holds a {FAMILIES[kind]} with {err}, which the lab cannot run.")
    except (KeyError, TypeError, ValueError) as err:
        refuse(folder, f"has a config.json that lacks or mistypes a size ({err}).")
    sizes = (shape.layers, shape.heads, shape.d_model, shape.d_ff, shape.vocab_size, shape.max_positions)
    if min(sizes) < 1 or shape.d_model % shape.heads:
        refuse(folder, f"has a config.json whose sizes cannot make a model ({shape.layers} layers, {shape.heads} "
                       f"heads, d_model {shape.d_model}: each head needs an equal share of d_model).")
    return shape


class _Unsupported(Exception):
    """A setting of a supported family that core does not implement (its message says which)."""


def _bert_shape(cfg: dict) -> Shape:
    if cfg.get("position_embedding_type", "absolute") != "absolute":
        raise _Unsupported(f"position embeddings “{cfg['position_embedding_type']}” (the lab reads absolute ones)")
    if cfg.get("is_decoder"):
        raise _Unsupported("is_decoder set (the lab reads BERT as an encoder)")
    act = _activation(cfg.get("hidden_act", "gelu"))
    return Shape("bert", int(cfg["num_hidden_layers"]), int(cfg["num_attention_heads"]), int(cfg["hidden_size"]),
                 int(cfg["intermediate_size"]), int(cfg["vocab_size"]), int(cfg["max_position_embeddings"]),
                 float(cfg.get("layer_norm_eps", 1e-12)), act, type_vocab_size=int(cfg.get("type_vocab_size", 2)))


def _gpt2_shape(cfg: dict) -> Shape:
    if cfg.get("add_cross_attention"):
        raise _Unsupported("cross-attention")
    if not cfg.get("scale_attn_weights", True):
        raise _Unsupported("scores not divided by √d_k")
    act = _activation(cfg.get("activation_function", "gelu_new"))
    D = int(cfg["n_embd"])
    return Shape("gpt2", int(cfg["n_layer"]), int(cfg["n_head"]), D, int(cfg.get("n_inner") or 4 * D),
                 int(cfg["vocab_size"]), int(cfg["n_positions"]), float(cfg.get("layer_norm_epsilon", 1e-5)), act,
                 scale_by_layer=bool(cfg.get("scale_attn_by_inverse_layer_idx", False)))


def _activation(name) -> str:
    if name not in BERT_ACTIVATIONS:
        raise _Unsupported(f"the activation “{name}” (the lab has {', '.join(BERT_ACTIVATIONS)})")
    return BERT_ACTIVATIONS[name]


def weight_files(folder: Path) -> list[Path]:
    """The weights' files (several, for a sharded checkpoint), or a ConfigError if there are none."""
    for name in WEIGHT_FILES:
        path = folder / name
        if path.is_file():
            if not name.endswith(".index.json"):
                return [path]
            try:
                shards = sorted(set(json.loads(path.read_text(encoding="utf-8"))["weight_map"].values()))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, AttributeError):
                refuse(folder, f"has an unreadable {name}.")
            # The index names files; only plain names in this folder are read (no paths elsewhere).
            if not shards or any(not isinstance(s, str) or Path(s).name != s for s in shards):
                refuse(folder, f"has a {name} that names files outside the folder.")
            return [folder / s for s in shards]
    refuse(folder, "has no weights (model.safetensors or pytorch_model.bin).")


def read_tensors(folder: Path) -> dict:
    """Every tensor of the folder's weights, by its name, in float32 on the CPU."""
    import torch

    tensors = {}
    for path in weight_files(folder):
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


def read_tokenizer(folder: Path):
    """The folder's tokenizer.json, read by `tokenizers` (never truncated: long texts are refused by the lab)."""
    path = folder / "tokenizer.json"
    if not path.is_file():
        refuse(folder, "has no tokenizer.json, so the lab cannot turn a sentence into its word pieces "
                      "(tokenizer.save_pretrained(folder) writes one).")
    from tokenizers import Tokenizer

    try:
        tok = Tokenizer.from_file(str(path))
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
