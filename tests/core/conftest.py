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
