"""One device is one student (dashboard/devices.py): its sessions and its reruns are bounded, and a
clear_cache message neither resets what a session holds nor seats it twice.

The bookkeeping on its own first (fast); then the real server (`dashboard.serve`, through
tests/dashboard/lab_harness.py, with a room open), with devices played from distinct loopback
addresses: on Linux all of 127.0.0.0/8 is this machine, so a client binds 127.0.0.9 as its source
and the lab sees a second device.
"""

import contextlib
import socket
import time
from urllib.parse import urlencode

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.util import calc_hash
from websockets.sync.client import connect

from dashboard import devices, serve
from dashboard.devices import CPU_BURST, CPU_PER_S, REFUSED, Devices
from tests.dashboard.test_hostile_server import one_run, wait_for


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_a_device_holds_its_bound_of_live_sessions_and_a_closed_one_frees_its_place():
    live = set()
    devices = Devices(2, alive=lambda s: s in live, clock=Clock())
    for session in ("a1", "a2"):
        live.add(session)
        assert devices.enter(session, "10.0.0.9")
    live.add("a3")
    assert not devices.enter("a3", "10.0.0.9") and not devices.enter("a3", "10.0.0.9"), "refused for its life"
    assert devices.gate("a3") == -1.0, "a refused session's reruns are dropped"
    assert devices.enter("b1", "10.0.0.7"), "another device is not counted with it"
    assert all(devices.enter(f"local{n}", None) for n in range(10)), "the lab's own machine is trusted"
    live.discard("a1")  # its tab closed
    live.add("a4")
    assert devices.enter("a4", "10.0.0.9")
    assert devices.enter("a2", "10.0.0.9"), "an admitted session stays admitted"


def test_a_devices_reruns_pass_at_their_rate_after_a_burst_whichever_session_asks():
    clock = Clock()
    devices = Devices(5, alive=lambda s: True, clock=clock, rate=4.0, burst=3, part_rate=10.0, part_burst=1)
    assert devices.enter("a1", "10.0.0.9") and devices.enter("a2", "10.0.0.9")
    assert [devices.gate(s) for s in ("a1", "a2", "a1")] == [None, None, None]  # the burst
    assert devices.gate("a2") == pytest.approx(0.25), "the next token comes at 4 a second"
    clock.now += 0.25
    assert devices.gate("a1") is None and devices.gate("a1") == pytest.approx(0.25)
    assert devices.gate("not yet admitted") is None, "a session's first run is never held back"
    assert devices.gate("a1", whole=False) is None and devices.gate("a2", whole=False) == pytest.approx(0.1), \
        "a fragment's reruns have a budget of their own"


def test_a_devices_runs_spend_its_cpu_and_a_device_in_debt_waits_until_it_is_paid():
    """Issue 47, a hostile pass after item 9: six admitted tabs rerunning the heaviest lesson (over a second of
    CPU each) slowed an honest student's join from 3 to 8 s, within the device's bound of runs."""
    clock = Clock()
    devices = Devices(6, alive=lambda s: True, clock=clock, rate=100.0, burst=100, part_rate=100.0, part_burst=100)
    assert devices.enter("a1", "10.0.0.9") and devices.enter("a2", "10.0.0.9") and devices.enter("b1", "10.0.0.7")
    devices.charge("a1", CPU_BURST - 1.0)
    assert devices.gate("a2") is None, "within the burst: at once, whichever session spent it"
    devices.charge("a2", 3.0)  # 2 s in debt
    assert devices.gate("a1") == pytest.approx(2.0 / CPU_PER_S) and devices.gate("a2", whole=False) == pytest.approx(
        2.0 / CPU_PER_S), "a whole run or a fragment's, the device waits until its debt is paid"
    assert devices.gate("b1") is None, "another device pays nothing"
    clock.now += 2.0 / CPU_PER_S
    assert devices.gate("a1") is None
    devices.charge("local", 1000.0)  # a session of the lab's own machine (never entered with a device)
    assert devices.gate("local") is None
    clock.now += 1000
    assert devices._cpu_left("10.0.0.9") == CPU_BURST, "an idle device's budget refills to its burst, no more"


def test_spending_charges_the_outermost_run_once_however_it_ends(monkeypatch):
    """A fragment runs inside a whole run (charged once, as the whole run's) or alone (charged as a run); st.rerun
    and st.stop end a run with an exception."""
    clock = Clock()
    mine = Devices(6, alive=lambda s: True, clock=clock)
    mine.enter("a1", "10.0.0.9")
    monkeypatch.setattr(devices, "DEVICES", mine)
    monkeypatch.setattr(serve, "session_id", lambda: "a1")
    charged = []
    monkeypatch.setattr(mine, "charge", lambda session, seconds: charged.append((session, seconds)))

    def burn(seconds: float):
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass

    with pytest.raises(RuntimeError), devices.spending():
        burn(0.05)
        with devices.spending():  # a fragment inside the whole run
            burn(0.05)
        raise RuntimeError("st.rerun")
    assert len(charged) == 1 and charged[0][0] == "a1" and 0.1 <= charged[0][1] < 1.0, charged
    with devices.spending():  # a fragment's run alone
        burn(0.02)
    assert len(charged) == 2 and 0.02 <= charged[1][1] < charged[0][1]


def test_a_sessions_first_request_is_admitted_or_refused_before_it_runs_and_a_device_is_told_a_few_times():
    """Issue 47 item 9: a device past its bound gets its refusal's run (the sentence) TELL_BURST times, then one a
    second; its other new sessions get no run at all, so a script opening sessions by the hundred costs no
    script run each. A known session, or the lab's own machine's, is left to the rate gate."""
    clock, live = Clock(), set()
    devices = Devices(2, alive=lambda s: s in live, clock=clock)
    live.update(f"t{n}" for n in range(40))
    assert devices.first("t0", lambda: "10.0.0.9") is True and devices.first("t1", lambda: "10.0.0.9") is True
    assert devices.first("t0", lambda: "10.0.0.9") is None, "an admitted session is the rate gate's"
    told = [devices.first(f"t{n}", lambda: "10.0.0.9") for n in range(2, 2 + devices.budgets["told"][1] + 5)]
    assert told == [True] * devices.budgets["told"][1] + [False] * 5
    assert devices.gate("t2") == -1.0 and devices.first("t2", lambda: "10.0.0.9") is None, "refused for its life"
    clock.now += 1 / devices.budgets["told"][0]
    assert devices.first("t30", lambda: "10.0.0.9") is True and devices.first("t31", lambda: "10.0.0.9") is False
    assert devices.first("t32", lambda: "10.0.0.7") is True, "another device has its own places"
    assert devices.first("t33", lambda: None) is None, "the lab's own machine"
    asked = []
    assert devices.first("t33", lambda: asked.append(1)) is None and asked == [], "its device is read once"


def test_a_session_key_is_stable_secret_and_alive_only_while_its_session_is():
    live = {"st-1"}
    devices = Devices(2, alive=lambda s: s in live)
    key = devices.key("st-1")
    assert key == devices.key("st-1") and len(key) == 32 and "st-1" not in key
    assert devices.key_alive(key) and devices.key_alive("greedy"), "a key no session has (a script's) never goes"
    live.clear()
    assert not devices.key_alive(key)
    devices.forget_gone()
    assert not devices.key_alive(key), "a gone session's key stays gone after its session is forgotten"


# -- the real server -----------------------------------------------------------------------------------
def from_address(port: int, address: str) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(address, 0))


class Tab:
    """A browser session on the lab, from `address` (a loopback source address: the lab's device), sending
    X-Forwarded-For: `forwarded` if given (as a proxy does, or a client that forges it)."""

    def __init__(self, port: int, address: str, query: str = "", page: str = "room", forwarded: str | None = None):
        self.ws = contextlib.ExitStack().enter_context(connect(
            f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"], sock=from_address(port, address),
            open_timeout=30, additional_headers={"X-Forwarded-For": forwarded} if forwarded else {}))
        self.query, self.page = query, page

    def run(self, *before: bytes) -> tuple[list[str], set[str]]:
        """Messages sent first, then one full run: its error and warning boxes and widget keys."""
        for raw in before:
            self.ws.send(raw)
        return one_run(self.ws, self.query, self.page)

    def close(self):
        self.ws.close()


@pytest.mark.slow
def test_one_device_gets_its_bound_of_sessions_another_device_still_gets_in(lab):
    server = lab(renders=0, env={"ATTENTION_LAB_DEVICE_SESSIONS": "3"})
    tabs = [Tab(server.port, "127.0.0.9") for _ in range(3)]
    try:
        for tab in tabs:
            said, keys = tab.run()
            assert not any("tabs of the lab open" in s for s in said) and keys, said
        extra = Tab(server.port, "127.0.0.9")
        said, keys = extra.run()
        assert said == [REFUSED.format(limit=3, env="ATTENTION_LAB_DEVICE_SESSIONS=N make classroom")], said
        other = Tab(server.port, "127.0.0.10")
        said, _ = other.run()
        assert not any("tabs of the lab open" in s for s in said), "another device is not counted with the first"
        tabs.pop().close()  # one of the first device's tabs closes: its place is free

        def another_gets_in() -> bool:
            tab = Tab(server.port, "127.0.0.9")
            tabs.append(tab)
            return not any("tabs of the lab open" in s for s in tab.run()[0])

        wait_for(another_gets_in, "a new tab of the first device got in after one closed", 20)
    finally:
        for tab in tabs:
            tab.close()


@pytest.mark.slow
def test_on_the_real_server_a_devices_runs_of_the_heaviest_lesson_are_charged_to_its_cpu(lab):
    """Each run's CPU time reaches its device's budget through the server's script thread (the gate then holds
    a device in debt: the bookkeeping's test above). The refill is slowed to nothing, so what is left is what
    two runs cost."""
    server = lab(renders=0, env={"LAB_TEST_CPU_PER_S": "0.000001"})
    heavy = urlencode({"text": " ".join(["the cat sat on the mat because it was warm"] * 6), "d_model": "1024",
                       "num_heads": "64"})
    with connect(f"ws://127.0.0.1:{server.port}/_stcore/stream", subprotocols=["streamlit"],
                 source_address=("127.0.0.9", 0), open_timeout=30) as ws:
        for _ in range(2):
            said, _ = one_run(ws, heavy, "multi-head")
            assert not said, said
    assert server.say("cpu 127.0.0.9")["left"] < CPU_BURST - 0.02, "64 heatmaps twice cost no CPU?"
    assert server.say("cpu 127.0.0.8")["left"] == CPU_BURST, "a device that ran nothing spent nothing"


@pytest.mark.slow
def test_clear_cache_does_not_seat_a_tab_twice(lab):
    """A student's tab joins the room (no cookie: a script), then sends Streamlit's clear_cache ([40, 1]),
    which empties its st.session_state, and runs again: still one member. Its seat is the session's key
    (devices.session_key, which clear_cache does not change), the key its films and renders count against."""
    server = lab(renders=3)
    tab = Tab(server.port, "127.0.0.9", f"code={server.code}")
    try:
        said, keys = tab.run()
        assert "room_leave" in keys, said
        assert server.check()["members"] == 1
        attack = BackMsg(clear_cache=True).SerializeToString()
        assert attack == bytes([40, 1])
        said, keys = tab.run(attack, attack)
        time.sleep(0.5)
        after = server.check()
        assert after["members"] == 1, "clear_cache seated the same tab a second time"
        assert after["room"] == "open" and after["limit"].startswith("held"), after
    finally:
        tab.close()


def first_runs(tabs: list[Tab], expected: int, grace: float = 3.0) -> list[list[str] | None]:
    """Each tab's first run asked for at once (all the requests sent before any answer is read): the warnings
    and errors each run showed, or None for a tab whose run did not come. Runs come as slowly as the machine
    lets them (at most a minute); once `expected` have, the others get `grace` seconds more."""
    for tab in tabs:
        tab.ws.send(BackMsg(rerun_script={"query_string": tab.query, "page_script_hash": calc_hash(tab.page)})
                    .SerializeToString())
    shown, deadline = [], time.monotonic() + 60
    for tab in tabs:
        said = []
        while True:
            try:
                msg = ForwardMsg.FromString(tab.ws.recv(timeout=max(0.05, deadline - time.monotonic())))
            except TimeoutError:
                shown.append(None)
                break
            if msg.WhichOneof("type") == "script_finished":
                shown.append(said)
                if sum(s is not None for s in shown) == expected:
                    deadline = min(deadline, time.monotonic() + grace)
                break
            if msg.WhichOneof("type") == "delta" and msg.delta.new_element.WhichOneof("type") == "alert":
                said.append(msg.delta.new_element.alert.body)
    return shown


@pytest.mark.slow
def test_a_device_opening_tabs_by_the_dozen_gets_its_bound_a_few_refusals_and_no_run_for_the_rest(lab):
    """Issue 47 item 9 on the real server: one device (127.0.0.9) opens 40 tabs and asks for all their first
    runs at once. Its bound (2) runs the page; TELL_BURST more show the refusal (plus one a second while the
    server answered them); the rest never run. Another device still gets in."""
    server = lab(renders=0, env={"ATTENTION_LAB_DEVICE_SESSIONS": "2"})
    tabs = [Tab(server.port, "127.0.0.9") for _ in range(40)]
    try:
        t0 = time.monotonic()
        shown = first_runs(tabs, 2 + devices.TELL_BURST)
        took = time.monotonic() - t0
        refused = [said for said in shown if said is not None and any("tabs of the lab open" in s for s in said)]
        ran = [said for said in shown if said is not None and said not in refused]
        rate, burst = devices.TELLS_PER_S, devices.TELL_BURST
        assert len(ran) == 2, shown
        assert burst <= len(refused) <= burst + rate * took + 1, (len(refused), took)
        assert shown.count(None) == 40 - 2 - len(refused) > 0
        other = Tab(server.port, "127.0.0.10")
        tabs.append(other)
        assert admitted(other), "another device is not counted with the first"
    finally:
        for tab in tabs:
            tab.close()


def admitted(tab: Tab) -> bool:
    return not any("tabs of the lab open" in s for s in tab.run()[0])


@pytest.mark.slow
def test_on_dual_stack_the_labs_own_machine_is_trusted_and_a_student_is_one_device_whatever_it_forwards(lab):
    """Issue 47, item 7: served on `::`, 127.0.0.1 arrives as ::ffff:127.0.0.1, and the teacher's own laptop
    was bounded as a student's device. A student (127.0.0.9, as ::ffff:127.0.0.9) is one device, however
    its tabs fill in X-Forwarded-For: the lab names no proxy by default (item 10)."""
    server = lab(renders=0, env={"ATTENTION_LAB_DEVICE_SESSIONS": "1"}, address="::")
    tabs = []
    try:
        for _ in range(2):
            tabs.append(Tab(server.port, "127.0.0.1"))
            assert admitted(tabs[-1]), "the lab's own machine was bounded as a device"
        tabs.append(Tab(server.port, "127.0.0.9", forwarded="10.1.2.3"))
        assert admitted(tabs[-1])
        tabs.append(Tab(server.port, "127.0.0.9", forwarded="10.1.2.4"))
        assert not admitted(tabs[-1]), "a forwarded address from a proxy nobody named made a second device"
    finally:
        for tab in tabs:
            tab.close()


@pytest.mark.slow
def test_a_forwarded_address_counts_only_from_a_proxy_the_lab_is_told_of(lab):
    """Issue 47, item 10: uvicorn took X-Forwarded-For from any connection of 127.0.0.1, so a local tunnel
    passed on a client's forgery. Here 127.0.0.9 is the named proxy: the clients it forwards are devices;
    another loopback client (127.0.0.10) and this machine (127.0.0.1) forward nothing."""
    server = lab(renders=0, env={"ATTENTION_LAB_DEVICE_SESSIONS": "1", "ATTENTION_LAB_TRUSTED_PROXIES": "127.0.0.9"})
    tabs = []

    def tab(address: str, forwarded: str | None = None) -> bool:
        tabs.append(Tab(server.port, address, forwarded=forwarded))
        return admitted(tabs[-1])

    try:
        assert tab("127.0.0.9", "10.1.2.3")
        assert tab("127.0.0.9", "10.1.2.4"), "a second client behind the proxy counted as the proxy"
        assert not tab("127.0.0.9", "10.1.2.3"), "the forwarded client holds its bound"
        assert not tab("127.0.0.9", "6.6.6.6, 10.1.2.3"), "the address the client wrote left of its own counted"
        assert tab("127.0.0.10", "10.1.2.5")
        assert not tab("127.0.0.10"), "a client that is no named proxy counted as the address it forwarded"
        assert tab("127.0.0.1", "10.1.2.3"), "this machine's forwarded address was believed"
    finally:
        for one in tabs:
            one.close()
