"""A hostile visitor against the real lab server (`dashboard.serve`, as `make run` starts it), and
Ctrl+C under a full render queue.

The server runs tests/dashboard/lab_harness.py: the lab with a room opened and renders queued in it
(one renderer; each render a stand-in that never ends, tests/dashboard/slow_worker.py, so no manim).
"""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.util import calc_hash
from websockets.sync.client import connect

from dashboard.serve import free_port

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
HARNESS = Path(__file__).with_name("lab_harness.py")


class Lab:
    def __init__(self, tmp_path: Path, renders: int, env: dict | None = None, address: str = "127.0.0.1"):
        self.port, self.starts = free_port(), tmp_path / "starts.txt"
        self.starts.touch()
        env = {**os.environ, "ATTENTION_LAB_MEDIA": str(tmp_path / "media"), "ATTENTION_LAB_RENDER_WORKERS": "1",
               "LAB_TEST_RENDERS": str(renders), "LAB_TEST_STARTS": str(self.starts), "PYTHONPATH": str(ROOT),
               **(env or {})}
        self.proc = subprocess.Popen(
            [sys.executable, str(HARNESS), "--server.headless", "true", "--server.address", address,
             "--server.port", str(self.port)], cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True)
        self.code = json.loads(self._line())["code"]
        for _ in range(200):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/_stcore/health", timeout=1)
                return
            except OSError:
                assert self.proc.poll() is None, "the lab exited at start"
                time.sleep(0.3)
        raise AssertionError("the lab never answered")

    def _line(self) -> str:
        line = self.proc.stdout.readline()
        while line and not line.startswith("{"):  # Streamlit's own start-up lines
            line = self.proc.stdout.readline()
        assert line, "the lab exited"
        return line

    def check(self) -> dict:
        return self.say("check")

    def say(self, line: str) -> dict:
        """A line to the harness ("ask N", "reveal"): its JSON answer."""
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return json.loads(self._line())

    def started(self) -> list[list[int]]:
        """(worker pid, its child's pid) of every render that started."""
        return [[int(p) for p in line.split()] for line in self.starts.read_text().splitlines() if line]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for pids in self.started():
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


def wait_for(condition, what: str, limit: float = 60.0):
    """A hang guard, not a speed check."""
    end = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < end, f"never: {what}"
        time.sleep(0.1)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except OSError:
        return False


def test_the_clear_cache_message_leaves_rooms_and_render_limits_in_place(lab):
    """Streamlit's `clear_cache` BackMsg (two bytes, sendable from any browser's console) empties
    st.cache_resource for every session: the room and the render queue must not live there."""
    server = lab(renders=3)  # one session's 3 renders: its limit; one renderer, so one runs
    wait_for(lambda: len(server.started()) == 1, "the first render started")
    before = server.check()
    assert before["room"] == "open" and before["limit"].startswith("held"), before
    attack = BackMsg(clear_cache=True).SerializeToString()
    assert attack == bytes([40, 1])
    with connect(f"ws://127.0.0.1:{server.port}/_stcore/stream", subprotocols=["streamlit"]) as ws:
        ws.send(BackMsg(rerun_script={"query_string": f"code={server.code}"}).SerializeToString())
        ws.send(attack)
        ws.send(attack)
        time.sleep(1.0)  # the session's messages are handled in order; give the server a moment
    after = server.check()
    assert after["room"] == "open", after["room"]
    assert after["limit"].startswith("held"), after["limit"]
    time.sleep(1.0)
    assert len(server.started()) == 1, "a second render ran beside the first with one renderer"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_the_lab_and_its_renders_with_a_full_queue(lab, sig):
    server = lab(renders=6)  # one running, five queued behind it
    wait_for(lambda: len(server.started()) == 1, "the first render started")
    server.proc.send_signal(sig)
    try:
        server.proc.wait(timeout=60)  # a hang guard: before the fix, this never ended
    except subprocess.TimeoutExpired:
        pytest.fail(f"the lab was still running 60 s after {sig.name}")
    started = server.started()
    wait_for(lambda: not any(alive(pid) for pids in started for pid in pids), "the render processes ended", 10)
    time.sleep(0.5)
    assert server.started() == started and len(started) == 1, "a queued render started after the signal"


def room_page(port: int, query: str, device: str, cookies: str | None = None) -> tuple[list[str], set[str]]:
    """A fresh browser session on the Room page (`/room?query`) from the loopback address `device` (the
    connection's own address, as a phone on the network has; Linux routes all of 127/8 here): the warnings
    shown, and widget keys. `cookies`: the Cookie header a browser would send."""
    headers = {"Cookie": cookies} if cookies else {}
    with connect(f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"], additional_headers=headers,
                 source_address=(device, 0)) as ws:
        return one_run(ws, query, alerts=("WARNING",))


def one_run(ws, query: str, page: str = "room", alerts=("WARNING", "ERROR")) -> tuple[list[str], set[str]]:
    """One full run of `page` on the open websocket `ws`: the alerts of those kinds it showed, and widget keys."""
    said, keys = [], set()
    ws.send(BackMsg(rerun_script={"query_string": query, "page_script_hash": calc_hash(page)}).SerializeToString())
    for raw in ws:
        msg = ForwardMsg()
        msg.ParseFromString(raw)
        if msg.WhichOneof("type") == "script_finished":
            return said, keys
        if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
            el = msg.delta.new_element
            if el.WhichOneof("type") == "alert" and el.alert.Format.Name(el.alert.format) in alerts:
                said.append(el.alert.body)
            keys.add(getattr(getattr(el, el.WhichOneof("type")), "id", "").rsplit("-", 1)[-1])
    raise AssertionError("the run never finished")


def test_a_flooder_is_counted_by_its_address_over_fresh_sessions_and_a_classmate_still_joins(lab):
    """The real server's wiring of the room limits (tests/classroom/test_limits.py plays the registry):
    a script that opens a new session for every wrong code is refused by its network address (each session
    on its own is under its limit), and a student at another address then joins with the right code."""
    server = lab(renders=0, env={"LAB_TEST_CODES_PER_ADDRESS": "3"})  # 3 wrong codes per address and minute
    wrong = ("2222" if server.code[:4] != "2222" else "3333") + server.code[4:]
    refused = None
    for n in range(1, 8):  # two windows' worth at most (a window may end during the loop)
        said, _ = room_page(server.port, f"code={wrong}", "127.0.0.66")
        if any("Too many" in s for s in said):
            refused = (n, said)
            break
        assert any("No open room has that code" in s for s in said), said
    assert refused is not None, "7 fresh sessions from one address each had their wrong code looked at"
    assert "from this network address" in " ".join(refused[1]), refused
    said, keys = room_page(server.port, f"code={server.code}", "127.0.1.7")
    assert said == [] and "room_leave" in keys, f"a classmate at another address was not let in: {said}"


def test_one_device_holds_two_seats_over_fresh_sessions_and_a_copied_seat_cookie_is_no_seat_elsewhere(lab):
    """Issue 39 over the network: devices are distinct loopback addresses (Linux routes all of 127/8 here),
    which the lab reads from the connection itself. A device's third fresh session gets no seat; a seat
    cookie copied to another device gets that device a seat of its own, never the first one's."""
    server = lab(renders=0, env={"LAB_TEST_PRESENT_SECONDS": "600"})  # each session here ends after one run
    join = f"code={server.code}"
    for _ in range(2):
        said, keys = room_page(server.port, join, "127.0.0.66")
        assert said == [] and "room_leave" in keys, said
    said, keys = room_page(server.port, join, "127.0.0.66")
    assert "room_leave" not in keys and "already has 2 seats in this room" in " ".join(said), said
    seat = f"attention_lab_seat={'c0ffee' * 6}"  # a seat cookie, as the classmate's browser keeps it
    # the classmate; a copy of the cookie on another device; the classmate's reload, in the seat it had
    for device in ("127.0.0.77", "127.0.0.88", "127.0.0.77"):
        said, keys = room_page(server.port, join, device, cookies=seat)
        assert said == [] and "room_leave" in keys, said
    # 3 seats: the copy took the classmate's seat; 5: the cookie was not read (the reload took a new seat)
    assert server.check()["devices"] == [1, 1, 2, 3]
