"""A lecture hall for the tests: `python -m hall` with 2 lab processes, HAProxy and Redis on loopback."""

import shutil
import socket
from pathlib import Path

import pytest

from hall.background import running_hall
from hall.run import PROGRAMS


def missing_binaries() -> str:
    missing = [f"{b} (Debian package {pkg})" for b, pkg in PROGRAMS.items() if shutil.which(b) is None]
    return f"not installed: {', '.join(missing)}; `make system` installs them" if missing else ""


# The render worker renders with tests/hall/fake_render.py (6 s, no manim) unless a lesson asks for a real render.
FAKE_RENDER = {"ATTENTION_LAB_TEST_RENDER": "tests.hall.fake_render:render"}


@pytest.fixture(scope="session")
def hall(tmp_path_factory):
    """A running hall of 2 lab processes and 1 render worker (a hall.background.RunningHall)."""
    if missing_binaries():
        pytest.skip(missing_binaries())
    folder = tmp_path_factory.mktemp("hall")
    with running_hall(folder, workers=2, env=FAKE_RENDER) as running:
        yield running


def listening(port: int) -> set[str]:
    """The local addresses on which something listens on this TCP port (from /proc/net/tcp{,6})."""
    found = set()
    for table, family in (("/proc/net/tcp", socket.AF_INET), ("/proc/net/tcp6", socket.AF_INET6)):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                raw = bytes.fromhex(address)  # the kernel's words, each in host (little-endian) order
                raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
                found.add(socket.inet_ntop(family, raw))
    return found
