"""The CPU's numbers: the same on every x86-64 machine with AVX2, and the same run after run.

PyTorch picks its CPU kernels by the processor it finds: ATen's vector kernels by instruction set (AVX2
or AVX-512), MKL's matrix products by maker and instruction set, and MKL's results may also depend on
how the arrays lie in memory. Measured on an AMD EPYC with AVX-512 (docs/watch-it-learn.md):
- the default film came out another film than on the machine its figures were measured on (its copy
  accuracy first passed 0.9 at step 582, not 603): a class would see numbers the page was never
  checked against;
- one lesson computed twice in one lab process differed in its last bits, so the presenter's question,
  computed again, was no longer the room's current one, and its answers and reveal did not show.

So before the first kernel runs (core's first import), ATen's kernels are pinned to AVX2 and MKL to its
AVX2 code path in strict mode (Conditional Numerical Reproducibility: the same bits whatever the
alignment). Films and figures are then one machine's as much as another's, wherever AVX2 is (every
x86-64 laptop of the last ten years); an ARM machine (Apple's M-series) computes its own, which the
pages measure and say themselves. A value set in the environment wins (to compare against native
kernels: `ATEN_CPU_CAPABILITY=avx512`, say). Speed: docs/performance.md.
"""

import os
import platform
import warnings

import torch

PINNED = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2,STRICT"}


def pin():
    """Set PINNED in the environment, where nothing set them and the CPU has AVX2. A program that ran a
    kernel before importing core has its kernels fixed already: it is warned."""
    if platform.machine().lower() in ("x86_64", "amd64") and torch.cpu._is_avx2_supported():
        for name, value in PINNED.items():
            os.environ.setdefault(name, value)
        wanted = os.environ["ATEN_CPU_CAPABILITY"].upper()
        if wanted in ("AVX2", "AVX512", "DEFAULT") and torch.backends.cpu.get_cpu_capability() != wanted:
            warnings.warn(f"torch ran a kernel before core was imported, so its CPU kernels are this machine's "
                          f"own ({torch.backends.cpu.get_cpu_capability()}), not {wanted}: trained films and the "
                          "last bits of a lesson may differ from other machines'. Import core first.", stacklevel=2)


pin()
