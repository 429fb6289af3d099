"""Where a lesson runs: the device choices, and "auto" made concrete (CUDA, then Apple's MPS, then the CPU)."""

import torch

DEVICE_CHOICES = ("auto", "cpu", "cuda", "mps")


def available_devices() -> list[str]:
    """The concrete devices this machine can run on, fastest first."""
    found = []
    if torch.cuda.is_available():
        found.append("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        found.append("mps")
    return found + ["cpu"]


def resolve_device(name: str = "auto") -> torch.device:
    """Turn a device choice into a `torch.device`; "auto" takes the first available one."""
    if name == "auto":
        return torch.device(available_devices()[0])
    if name not in available_devices():
        raise ValueError(f"the device '{name}' is not available on this machine")
    return torch.device(name)
