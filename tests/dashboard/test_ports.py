"""The ports of the lab's own servers: never one the kernel may give an outgoing connection, and a
server that answers is known to be the one started (the hall's lab1 was once served by a stranger)."""

import os
import socket
import subprocess
import sys
from pathlib import Path

from dashboard import serve
from dashboard.serve import free_port, listens


def test_free_port_is_below_the_kernels_ephemeral_range_and_never_handed_out_twice():
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    ports = [free_port() for _ in range(300)]
    assert max(ports) < min(low, 49152)
    assert len(set(ports)) == len(ports)


def test_free_port_skips_the_ports_others_hold(monkeypatch):
    held = [socket.socket() for _ in range(2)]
    try:
        for _ in range(50):  # three free ports in a row: the first two then held by this test
            start = free_port()
            try:
                for offset, s in enumerate(held):
                    s.bind(("127.0.0.1", start + offset))
                with socket.socket() as probe:
                    probe.bind(("127.0.0.1", start + 2))
                break
            except OSError:
                for s in held:
                    s.close()
                held = [socket.socket() for _ in range(2)]
        monkeypatch.setattr(serve, "OWN_PORTS", range(start, start + 3))
        monkeypatch.setattr(serve, "_handed_out", set())
        assert free_port() == start + 2
    finally:
        for s in held:
            s.close()


def test_listens_names_the_process_that_holds_the_port_and_no_other():
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-c", "import socket, sys\ns = socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1])))\n"
                               "s.listen(); print('up', flush=True); sys.stdin.read()", str(port)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout.readline().strip() == "up"
        assert listens(server.pid, port)
        assert not listens(os.getpid(), port)  # the test process answers nothing on it
        assert not listens(server.pid, free_port())
    finally:
        server.stdin.close()
        server.wait(timeout=10)
    assert not listens(server.pid, port)  # gone
