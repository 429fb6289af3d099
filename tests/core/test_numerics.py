"""core/numerics.py: importing core pins the CPU's kernels before any runs (ATen's to AVX2, MKL's to its AVX2 path,
strict), where the CPU has AVX2; a value set in the environment wins. Each check runs in a fresh Python process,
since a process fixes its kernels at its first one."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
PINNABLE = torch.cpu._is_avx2_supported() and os.uname().machine == "x86_64"


def _python(code: str, **env) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ATEN_CPU_CAPABILITY", "MKL_CBWR")}
    done = subprocess.run([sys.executable, "-W", "always", "-c", textwrap.dedent(code)], cwd=ROOT,
                          env={**clean, **env}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


KERNELS = """
    import os
    import torch  # imported first, as a program importing core later may; no kernel run yet
    import core
    core.run_trace(core.PRESETS["default"])
    print(torch.backends.cpu.get_cpu_capability(), os.environ.get("MKL_CBWR"))
"""


@pytest.mark.slow  # fresh Python processes importing torch
def test_importing_core_pins_the_kernels_to_avx2_where_the_cpu_has_it():
    native = _python("import torch; print(torch.backends.cpu.get_cpu_capability())").stdout.strip()
    done = _python(KERNELS)
    assert done.stdout.strip() == ("AVX2 AVX2,STRICT" if PINNABLE else f"{native} None")
    assert "Warning" not in done.stderr


@pytest.mark.slow
def test_kernels_set_in_the_environment_win():
    done = _python(KERNELS, ATEN_CPU_CAPABILITY="default", MKL_CBWR="COMPATIBLE")
    assert done.stdout.strip() == "DEFAULT COMPATIBLE" and "Warning" not in done.stderr


@pytest.mark.slow
@pytest.mark.skipif(not PINNABLE, reason="nothing is pinned on a CPU without AVX2")
def test_a_kernel_run_before_core_is_imported_is_warned_of():
    done = _python(KERNELS.replace("import torch  #", "import torch; torch.ones(3).sum()  # a kernel, then core;"))
    native = _python("import torch; print(torch.backends.cpu.get_cpu_capability())").stdout.strip()
    assert done.stdout.strip() == f"{native} AVX2,STRICT"
    assert "torch ran a kernel before core was imported" in done.stderr
