"""The rerun gate (dashboard/serve.py installs it, dashboard/devices.py decides): every rerun a browser asks
for passes it; one past its device's rate or CPU waits its turn, the session's latest request replacing one
still waiting, with that one's button presses."""

import asyncio
import threading

from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.WidgetStates_pb2 import WidgetState, WidgetStates
from streamlit.runtime.app_session import AppSession, AppSessionState

from dashboard import devices, serve
from dashboard.devices import Devices


def test_every_rerun_a_browser_asks_for_passes_the_gate_which_can_hold_it_back():
    serve.install()
    seen = []

    class Session:
        id = "st-1"

    serve.set_rerun_gate(lambda session, later, whole: seen.append((session, whole)) or False)
    try:
        assert AppSession.request_rerun(Session(), ClientState()) is None
        assert AppSession.request_rerun(Session(), ClientState(fragment_id="lesson_view")) is None
        assert seen == [("st-1", True), ("st-1", False)]
    finally:
        serve.set_rerun_gate(devices.rerun_gate)


def test_a_rerun_past_the_rate_runs_when_its_turn_comes_and_the_latest_replaces_one_waiting(monkeypatch):
    monkeypatch.setattr(devices, "DEVICES", Devices(5, alive=lambda s: True, rate=10.0, burst=1))  # whole runs
    assert devices.DEVICES.enter("st-1", "10.0.0.9")
    ran = []

    async def main():
        assert devices.rerun_gate("st-1", lambda: ran.append("first")) is True  # the burst
        assert devices.rerun_gate("st-1", lambda: ran.append("second")) is False
        assert devices.rerun_gate("st-1", lambda: ran.append("third")) is False
        await asyncio.sleep(0.3)

    # In a thread of its own: a browser test before this one in the same worker leaves Playwright's loop
    # running in this thread, and asyncio.run refuses to start inside a running loop.
    worker = threading.Thread(target=asyncio.run, args=(main(),))
    worker.start()
    worker.join(timeout=30)
    assert ran == ["third"], "one run when the token came, of the latest request"



class StartingSession:
    """A session that holds every fragment: Streamlit's request_rerun starts its run with
    `_create_scriptrunner`, which keeps the run's data here instead."""

    _state = AppSessionState.APP_NOT_RUNNING
    _scriptrunner = None
    id = "st-1"

    def __init__(self):
        self._client_state, self.runs = ClientState(), []

    def has_fragment(self, fragment_id: str) -> bool:
        return True

    def _create_scriptrunner(self, rerun_data):
        self.runs.append(rerun_data)


def test_a_press_the_gate_held_back_runs_with_the_timer_tick_that_replaced_it():
    """A teacher's "Ask the class" waits for its device's turn; the room panel's timer ticks meanwhile and
    its request replaces the press's (dashboard/devices.py runs a session's latest): the one run that
    comes is the whole page's, with the press, and with the tick's newer widget values."""
    serve.install()
    session, held = StartingSession(), []
    ask = ClientState(widget_states=WidgetStates(widgets=[WidgetState(id="room_ask", trigger_value=True)]))
    tick = ClientState(fragment_id="live", is_auto_rerun=True,
                       widget_states=WidgetStates(widgets=[WidgetState(id="room_head", int_value=2)]))
    serve.set_rerun_gate(lambda _, later, whole: held.append((later, whole)) or False)
    try:
        AppSession.request_rerun(session, ask)
        AppSession.request_rerun(session, tick)
        assert [whole for _, whole in held] == [True, True], "the tick asks for the press's whole run"
        serve.set_rerun_gate(lambda *_: True)
        held[-1][0]()  # the latest request's turn has come
    finally:
        serve.set_rerun_gate(devices.rerun_gate)
    (run,) = session.runs
    states = {w.id: w for w in run.widget_states.widgets}
    assert states["room_ask"].trigger_value, "the press reached the run"
    assert states["room_head"].int_value == 2
    assert run.fragment_id is None and not run.is_auto_rerun
