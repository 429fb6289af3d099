"""dashboard/serve.py's three fixes to Streamlit's internals go in on the pinned version only, and
each is still needed there: the tests below call Streamlit's own code (each replaced function keeps
it as `__wrapped__`) and fail when the pinned Streamlit no longer does what a fix is for, so that a
fix that has become unnecessary is found and removed. Each fix at work in a real server or app:
test_restart.py, test_controls.py (a crafted mask-editor state), test_offline.py."""

import json
from pathlib import Path

import pytest
import streamlit
from streamlit import net_util
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.WidgetStates_pb2 import WidgetState, WidgetStates
from streamlit.runtime.app_session import AppSession, AppSessionState
from streamlit.runtime.state.common import WidgetMetadata
from streamlit.runtime.state.session_state import SessionState
from streamlit.web.server import server_util

from dashboard import serve

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module", autouse=True)
def installed():
    serve.install()  # as app.py does in every test that opens the app: idempotent


def test_the_installed_streamlit_is_the_pinned_one_with_every_internal_the_fixes_use():
    pins = [line for line in (ROOT / "requirements.txt").read_text().splitlines() if line.startswith("streamlit")]
    assert pins == [f"streamlit=={serve.PINNED}"]
    assert streamlit.__version__ == serve.PINNED
    assert serve.check() == []
    assert AppSession.request_rerun.lab_first_request_runs_whole


def test_another_version_of_streamlit_is_refused_by_name(monkeypatch):
    monkeypatch.setattr(streamlit, "__version__", "1.99.0")
    assert serve.check() == [f"Streamlit 1.99.0 is not the pinned {serve.PINNED}, whose internals its fixes are for"]


# -- the restart fix ------------------------------------------------------------------------------
class Proceeded(Exception):
    """request_rerun went past its early checks, on to start a run."""


class NewProcessSession:
    """A session of a process that has never run the page: it holds no fragment. Whatever
    request_rerun reads beyond its early checks raises Proceeded."""

    _state = AppSessionState.APP_NOT_RUNNING
    id = "a-new-process-session"  # the rerun gate's (dashboard/devices.py) key: it lets a first run through

    def has_fragment(self, fragment_id: str) -> bool:
        return False

    def __getattr__(self, name):
        raise Proceeded(name)


def test_streamlit_still_drops_a_rerun_of_a_fragment_the_session_does_not_hold():
    """Why the fix: after a restart, a control in the lesson's fragment asks for a rerun of that
    fragment, which the new process does not hold, and Streamlit runs nothing."""
    streamlits = AppSession.request_rerun.__wrapped__
    assert streamlits(NewProcessSession(), ClientState(fragment_id="lesson_view")) is None
    with pytest.raises(Proceeded):
        streamlits(NewProcessSession(), ClientState())  # the same request for the whole app runs


def test_with_the_fix_only_a_sessions_first_request_for_an_unknown_fragment_runs_the_whole_app():
    session = NewProcessSession()
    with pytest.raises(Proceeded):
        AppSession.request_rerun(session, ClientState(fragment_id="lesson_view"))
    assert AppSession.request_rerun(session, ClientState(fragment_id="lesson_view")) is None  # Streamlit's own


# -- the lookup fix -------------------------------------------------------------------------------
def test_streamlits_origin_check_still_looks_up_the_external_address_online(monkeypatch):
    """Why the fix: a websocket from a page of another origin makes Streamlit ask a web service for
    this machine's address (and again next time: a failed lookup is not kept)."""
    asked = []
    monkeypatch.setattr(net_util, "_make_blocking_http_get", lambda url, timeout=5: asked.append(url))
    monkeypatch.setattr(net_util, "get_internal_ip", lambda: None)
    monkeypatch.setattr(net_util, "_external_ip", None)
    assert not server_util.is_url_from_allowed_origins("http://lab-elsewhere.example")
    assert asked == [], "the fix answers without the internet"
    monkeypatch.setattr(net_util, "get_external_ip", net_util.get_external_ip.__wrapped__)  # Streamlit's own
    assert not server_util.is_url_from_allowed_origins("http://lab-elsewhere.example")
    assert asked and all("checkip.amazonaws.com" in url for url in asked)
    before = len(asked)
    server_util.is_url_from_allowed_origins("http://lab-elsewhere.example")
    assert len(asked) > before


# -- the widget-state fix -------------------------------------------------------------------------
def with_an_editor() -> SessionState:
    """A session with one widget whose value is JSON text, read by its deserializer (as st.data_editor's is)."""
    state = SessionState()
    state._new_widget_state.set_widget_metadata(WidgetMetadata(
        id="editor", deserializer=lambda value: value if value is None else json.loads(value), serializer=json.dumps,
        value_type="string_value", callback=lambda: None))
    return state


CRAFTED = WidgetStates(widgets=[WidgetState(id="editor", string_value="not json {")])


def test_streamlit_still_fails_the_run_on_a_widget_state_its_widget_cannot_read():
    with pytest.raises(json.JSONDecodeError):
        SessionState.on_script_will_rerun.__wrapped__(with_an_editor(), CRAFTED)


def test_with_the_fix_the_unreadable_widget_state_is_dropped_before_the_run():
    state = with_an_editor()
    state.on_script_will_rerun(CRAFTED)
    assert "editor" not in state._new_widget_state.states
