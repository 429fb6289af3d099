"""A lecture hall for the tests: `python -m hall` with 2 lab processes, HAProxy and Redis on loopback."""

import shutil
import subprocess

import pytest

from hall.background import running_hall

NEEDS = {"haproxy": "haproxy", "redis-server": "redis-server", "redis-cli": "redis-tools"}


def missing_binaries() -> str:
    missing = [f"{b} (Debian package {pkg})" for b, pkg in NEEDS.items() if shutil.which(b) is None]
    return f"not installed: {', '.join(missing)}; `make system` installs them" if missing else ""


@pytest.fixture(scope="session")
def hall(tmp_path_factory):
    """A running hall of 2 lab processes (a hall.background.RunningHall)."""
    if missing_binaries():
        pytest.skip(missing_binaries())
    folder = tmp_path_factory.mktemp("hall")
    with running_hall(folder, workers=2) as running:
        yield running


def listening(port: int) -> set[str]:
    """The local addresses on which something listens on this TCP port (from `ss`)."""
    out = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True, check=True).stdout
    return {line.split()[3].rsplit(":", 1)[0].strip("[]") for line in out.splitlines() if line.strip()}

