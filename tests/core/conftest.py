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
    from core.config import ConfigError
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
    transformers = pytest.importorskip("transformers", reason="transformers (requirements-dev.txt) is the reference")
    from core.pretrained import model_dir

    folder = model_dir()
    model = transformers.BertModel.from_pretrained(folder, attn_implementation="eager").eval()
    return {"model": model, "tokenizer": transformers.AutoTokenizer.from_pretrained(folder),
            "vocab_tokenizer": transformers.BertTokenizer(str(folder / "vocab.txt"))}
