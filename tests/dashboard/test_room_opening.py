"""Issue 47: who may open a room. A room's teacher reads the presenter view's notes, which state the measured
answers, so a student who could open a room of their own (a second tab, a PIN of their choice) read every
answer before the reveal. A room is opened from the lab's own computer or a device named in
ATTENTION_LAB_TEACHER_DEVICES (classroom/rooms/clients.py `may_open_rooms`); anyone else reads where rooms are
opened instead of the form, is refused if they send it anyway, and still joins a room or takes one back with
its code and PIN.

AppTest sessions have no address: they are the lab's own computer, as for every other limit (`address_of`
gives None), so another device is played here by the address the one reader gives (`client_address`); then
the real server (tests/dashboard/lab_harness.py, a room open with PIN 246810), with devices played from
loopback source addresses other than 127.0.0.1 (Linux routes all of 127/8 here)."""

import contextlib

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.testing.v1 import AppTest
from streamlit.util import calc_hash
from websockets.sync.client import connect

from classroom.rooms import clients
from classroom.rooms.clients import OPENED_ELSEWHERE, TEACHER_DEVICES_ENV
from dashboard.room import session as room_session

from .conftest import messages, no_exception
from .test_room_pages import PIN, teacher, texts

HARNESS_PIN = "246810"  # the room lab_harness.py opens


@pytest.fixture(autouse=True)
def fresh():
    room_session.registry.clear()
    clients.teacher_devices.cache_clear()
    yield
    room_session.registry.clear()
    clients.teacher_devices.cache_clear()


@pytest.fixture
def device(monkeypatch):
    """This process's AppTest sessions come from `address` (as the one reader of an address gives it)."""
    def at(address: str):
        monkeypatch.setattr(room_session, "client_address", lambda: address)
    return at


def widget_keys(at: AppTest) -> set:
    return {w.key for w in at.text_input}


def test_another_device_reads_where_rooms_are_opened_instead_of_the_open_forms(make_app, device):
    device("192.168.1.30")
    side = make_app()
    no_exception(side)
    assert "room_open_pin_side" not in widget_keys(side) and "room_join_code_sidebar" in widget_keys(side)
    assert OPENED_ELSEWHERE in " ".join(c.value for c in side.sidebar.caption)
    page = make_app(page="room")
    no_exception(page)
    assert "room_open_pin" not in widget_keys(page)
    assert {"room_join_code_page", "room_reclaim_code", "room_reclaim_pin"} <= widget_keys(page)
    assert [i.value for i in page.info] == [OPENED_ELSEWHERE]


def test_open_room_refuses_another_device_even_when_the_form_is_sent(device):
    """The refusal is the server's, not the form's absence: open_room itself says no."""
    def script():
        import streamlit as st

        from dashboard.room import session

        st.session_state["opened"] = session.open_room("135790")
        session.messages()

    device("127.0.0.9")
    at = AppTest.from_function(script, default_timeout=60).run()
    no_exception(at)
    assert at.session_state["opened"] is False and "room_teacher" not in at.session_state
    assert [w.value for w in at.warning] == [OPENED_ELSEWHERE]


def test_a_named_device_opens_a_room_and_an_unnamed_one_takes_it_back_with_code_and_pin(make_app, device,
                                                                                       monkeypatch):
    monkeypatch.setenv(TEACHER_DEVICES_ENV, "teacher-laptop, 192.168.1.0/24")  # the first: logged, left out
    device("192.168.1.30")
    t, key = teacher(make_app)  # the sidebar's form, as on the lab's own computer
    assert t.session_state["room_teacher"] == key
    device("10.9.9.9")
    other = make_app(page="room")
    assert "room_open_pin" not in widget_keys(other)
    other.text_input(key="room_reclaim_code").input(key.code)
    other.text_input(key="room_reclaim_pin").input(PIN)
    other.button[[b.label for b in other.button].index("Take it back")].click().run()
    no_exception(other)
    assert other.session_state["room_teacher"].code == key.code, messages(other)
    assert "You run this room" in texts(other)


# -- the real server -----------------------------------------------------------------------------------
class Tab:
    """One browser session on the Room page of a lab at `port`, from the loopback source address `address`:
    what the last run (after any st.rerun it made) showed."""

    def __init__(self, port: int, address: str):
        self.ws = contextlib.ExitStack().enter_context(connect(  # closed by close()
            f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"], source_address=(address, 0),
            open_timeout=30))
        self.alerts, self.ids, self.buttons = [], {}, {}
        self.run()

    def run(self, **widgets):
        """A run of /room, sending the values of the text inputs named by key and a press of the button named
        by its label (`press=`), as a browser sends a submitted form."""
        press = widgets.pop("press", None)
        states = [{"id": self.ids[k], "string_value": v} for k, v in widgets.items()]
        if press:
            states.append({"id": self.buttons[press], "trigger_value": True})
        self.ws.send(BackMsg(rerun_script={"query_string": "", "page_script_hash": calc_hash("room"),
                                           "widget_states": {"widgets": states}}).SerializeToString())
        for raw in self.ws:
            msg = ForwardMsg()
            msg.ParseFromString(raw)
            kind = msg.WhichOneof("type")
            if kind == "new_session":  # a run starts (again, after an st.rerun): what it draws replaces the last
                self.alerts, self.ids, self.buttons = [], {}, {}
            elif kind == "script_finished" and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return self
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                el = msg.delta.new_element
                what = el.WhichOneof("type")
                if what == "alert":
                    self.alerts.append(el.alert.body)
                elif hasattr(getattr(el, what), "id") and getattr(el, what).id:
                    self.ids[getattr(el, what).id.rsplit("-", 1)[-1]] = getattr(el, what).id
                    if what == "button":
                        self.buttons[el.button.label] = el.button.id
        raise AssertionError("the run never finished")

    def teacher(self) -> bool:
        return "room_lock" in self.ids  # the Room page of a room's teacher (its seats' switch)

    def close(self):
        self.ws.close()


def open_room(tab: Tab) -> Tab:
    return tab.run(room_open_pin="135790", press="Open a room")


@pytest.mark.slow
def test_over_the_network_only_the_labs_computer_opens_a_room_and_any_device_takes_one_back(lab):
    server = lab(renders=0)  # a room is open in it, PIN 246810
    own, student = Tab(server.port, "127.0.0.1"), Tab(server.port, "127.0.0.9")
    try:
        assert "room_open_pin" in own.ids and "room_open_pin" not in student.ids
        assert student.alerts == [OPENED_ELSEWHERE]
        assert {"room_join_code_page", "room_reclaim_code", "room_reclaim_pin"} <= student.ids.keys()
        forged = dict(student.ids, room_open_pin=own.ids["room_open_pin"])  # the form's ids, as the lab drew them
        student.ids, student.buttons = forged, {**student.buttons, "Open a room": own.buttons["Open a room"]}
        assert not open_room(student).teacher(), "a device sent the form it was not shown, and opened a room"
        assert open_room(own).teacher(), "the lab's own computer opens a room"
        assert student.run(room_reclaim_code=server.code, room_reclaim_pin=HARNESS_PIN, press="Take it back").teacher()
        assert server.check()["room"].startswith("gone"), "the room was taken back: its first key stopped working"
    finally:
        own.close(), student.close()


@pytest.mark.slow
def test_a_device_named_in_the_teacher_devices_opens_a_room_and_its_neighbour_does_not(lab):
    server = lab(renders=0, env={TEACHER_DEVICES_ENV: "teacher-laptop, 127.0.0.8/30"})  # .8 to .11
    named, neighbour = Tab(server.port, "127.0.0.9"), Tab(server.port, "127.0.0.12")
    try:
        assert open_room(named).teacher(), named.alerts
        assert "room_open_pin" not in neighbour.ids and neighbour.alerts == [OPENED_ELSEWHERE]
    finally:
        named.close(), neighbour.close()
