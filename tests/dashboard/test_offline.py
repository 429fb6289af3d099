"""The lab never reaches outside the machine, however it is started: Streamlit, told no address,
looks up its external one on the internet (checkip.amazonaws.com) at start, and again for a
websocket from another origin.

Each server runs with tests/dashboard/offline/sitecustomize.py, which records (and refuses) every
name lookup, TCP connection or UDP datagram that would leave the machine."""

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from dashboard.serve import free_port

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
RECORDER = Path(__file__).with_name("offline")


@pytest.mark.parametrize("address", [[], ["--server.address", "0.0.0.0"], ["--server.address", "127.0.0.1"]],
                         ids=["no address", "make classroom", "make run"])
def test_a_lab_started_without_an_address_reaches_nothing_outside(tmp_path, address):
    port, outside = free_port(), tmp_path / "outside.txt"
    env = {**os.environ, "PYTHONPATH": f"{RECORDER}{os.pathsep}{ROOT}", "LAB_TEST_OUTSIDE": str(outside),
           "ATTENTION_LAB_MEDIA": str(tmp_path / "media")}
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen([sys.executable, "-m", "dashboard.serve", "--server.headless", "true",
                               "--server.port", str(port), *address], cwd=ROOT, env=env, stdout=log,
                              stderr=subprocess.STDOUT)
    try:
        for _ in range(200):  # a hang guard
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
                break
            except OSError:
                assert server.poll() is None, (tmp_path / "server.log").read_text()
                time.sleep(0.3)
        end = time.monotonic() + 30
        while "URL" not in (tmp_path / "server.log").read_text() and time.monotonic() < end:
            time.sleep(0.2)  # the start-up lines (Streamlit prints them once the server listens)
        # a page of another origin opens the lab's websocket: Streamlit's origins check runs, and refuses it
        with pytest.raises(InvalidStatus, match="403"):
            with connect(f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"],
                         origin="http://lab-elsewhere.example", open_timeout=30):
                pass
    finally:
        server.terminate()
        server.wait(timeout=60)
        log.close()
    shown = (tmp_path / "server.log").read_text()
    assert "URL" in shown, shown  # it started and printed where to find it
    assert not outside.exists(), f"the lab reached outside: {outside.read_text()}"
