"""`python -m dashboard.serve [streamlit run options]`: the lab's server, as `make run`,
`make classroom`, the hall and the container start it: `streamlit run dashboard/app.py` with three
fixes to Streamlit installed first (`install`). This is the one module that uses Streamlit's internals;
each use is checked at start-up against the pinned version (`check`), which says plainly what is
missing rather than failing later in a student's session, and tests/dashboard/test_serve.py fails
when the pinned Streamlit no longer needs a fix.

The restart fix. The lesson view and its controls (lesson/rerun.py) live in a fragment,
and a control inside a fragment asks the server to rerun that fragment only, by its id. After
the server restarts under an open page (a hall failover moves the student to another process;
`make classroom` is restarted), the page is still on screen but the new process has never run
it: it holds no fragment, and Streamlit ignores a rerun of a fragment it does not hold, so every
such control did nothing until the student touched something outside the fragment. With the
fix, a session whose first request names a fragment it does not hold runs the whole app
instead: the page is redrawn from its address (the lesson and the page's view are in it). That
first move itself is not applied (the new process never saw the widget). Later in a session,
Streamlit's own handling stays: there an unknown fragment is one a full run has just removed.

The widget-state fix: a widget state that its widget cannot read (a crafted message) is dropped
before the run (`_drop_undecodable_widget_states`).

The lookup fix. The lab never reaches outside the machine, and Streamlit would: told no
`browser.serverAddress`, it asks checkip.amazonaws.com for this machine's external address to print
it at start, and it asks again whenever a websocket comes from a page of another origin (its
allowed-origins check). `main` gives Streamlit the address to print (`offline`;
.streamlit/config.toml has one too, for a server started some other way), and `install` answers the
origins check's question with "unknown", as Streamlit itself does when the lookup fails.

One internal is read, not patched: `opening_query_string`, the address's `embed_options`, which
Streamlit keeps out of `st.query_params`, tells which theme a link forces (display.py).

Per device (dashboard/devices.py decides): `session_id()`, the running session's own id (clear_cache
does not change it), `session_alive(id)` (Runtime.is_active_session: False once its websocket closed),
`session_client(id)` (who it is, from its websocket's handshake, before any of its scripts runs),
and a gate every rerun passes first, on the event loop (`set_rerun_gate`): `gate(session id, later,
whole page?)` runs it now (True), or not (False: dropped, or `later()` called when its turn comes); a
request it holds back gives its button presses to the session's next (`with_presses`).

As the server starts, `main` makes uvicorn (Streamlit's server) believe no proxy's X-Forwarded-For,
which it took from any connection of 127.0.0.1 or ::1 (a local tunnel's: a client named its own
device); the lab reads the header from the proxies it is told of (process.py `start`, clients.py).

As the server stops (Ctrl+C, SIGTERM: Streamlit's own handlers end its loop), `main` stops what
the process runs (dashboard/process.py `stop`: the render queue and its manim processes), which
would otherwise keep starting renders for nobody before Python could exit.
"""

import functools
import logging
import os
import random
import socket
import sys
import threading
import warnings
import weakref
from pathlib import Path

APP = Path(__file__).resolve().with_name("app.py")
log = logging.getLogger(__name__)
PINNED = "1.67.0"  # requirements.txt; the internals below are the ones this version has

_LOCK = threading.Lock()
_installed = []  # one entry once install() ran in this process


def check() -> list[str]:
    """Why the fixes cannot go in (empty when they can): another version than the pinned one, whose
    internals nobody has checked (tests/dashboard/test_serve.py shows each fix is still needed on
    the pinned one), or internals the lab uses that this Streamlit lacks."""
    import streamlit
    from streamlit import net_util
    from streamlit.proto.ClientState_pb2 import ClientState
    from streamlit.runtime import scriptrunner
    from streamlit.runtime.app_session import AppSession

    if streamlit.__version__ != PINNED:
        return [f"Streamlit {streamlit.__version__} is not the pinned {PINNED}, whose internals its fixes are for"]
    missing = [f"AppSession.{name}" for name in ("request_rerun", "has_fragment") if not hasattr(AppSession, name)]
    if not hasattr(net_util, "get_external_ip"):
        missing.append("net_util.get_external_ip")
    if "fragment_id" not in ClientState.DESCRIPTOR.fields_by_name:
        missing.append("ClientState.fragment_id")
    if not hasattr(scriptrunner, "get_script_run_ctx"):
        missing.append("scriptrunner.get_script_run_ctx")
    from streamlit.runtime import Runtime

    if not hasattr(Runtime, "is_active_session"):
        missing.append("Runtime.is_active_session")
    if not hasattr(Runtime, "get_client"):
        missing.append("Runtime.get_client")
    from streamlit.runtime.state import common, session_state

    if not hasattr(session_state.SessionState, "on_script_will_rerun"):
        missing.append("SessionState.on_script_will_rerun")
    if not hasattr(common, "unpack_widget_state_value"):
        missing.append("state.common.unpack_widget_state_value")
    from streamlit.runtime.scriptrunner_utils import script_requests

    if not hasattr(script_requests, "_coalesce_widget_states"):
        missing.append("script_requests._coalesce_widget_states")
    return [f"this Streamlit lacks {name}" for name in missing]


def install():
    """Make a session's first request run the whole app when it names a fragment the session
    does not hold (see above). Idempotent; app.py calls it too, for a server started some other way.
    On another version than the pinned one, or without the internals it needs, it warns once and leaves
    Streamlit as it is. Each function it replaces keeps Streamlit's own as `__wrapped__` (the tests call it)."""
    with _LOCK:  # `python -m dashboard.serve` runs this file as __main__ and app.py imports it again:
        from streamlit.runtime.app_session import AppSession  # so the mark is on Streamlit's class

        if _installed or getattr(getattr(AppSession, "request_rerun", None), "lab_first_request_runs_whole", False):
            return
        _installed.append(True)
        missing = check()
        if missing:
            warnings.warn("attention-lab: " + "; ".join(missing) + ". So its fixes are off: after a restart of "
                          "the server a page's controls inside its lesson view do nothing until the sidebar is "
                          "touched, a crafted widget state fails a session's runs until a reload, and a websocket "
                          "from another origin may make the server look up its external address online. Install "
                          f"streamlit=={PINNED} (requirements.txt).", RuntimeWarning, stacklevel=2)
            return
        from streamlit import net_util

        @functools.wraps(net_util.get_external_ip)
        def no_external_ip():  # Streamlit's external-address lookup, answered without the internet: unknown
            return None

        net_util.get_external_ip = no_external_ip
        from streamlit.proto.ClientState_pb2 import ClientState

        answered = weakref.WeakSet()  # sessions that have had a rerun request
        held = weakref.WeakKeyDictionary()  # session -> its request the gate held back (put off, or dropped)
        request_rerun = AppSession.request_rerun

        @functools.wraps(request_rerun)
        def first_request_runs_whole(session, client_state):
            gate = getattr(AppSession, "lab_rerun_gate", None)  # on the class: `python -m` makes two copies of us
            if gate is not None and client_state is not None:
                client_state = with_presses(held.pop(session, client_state), client_state)
                if not gate(session.id, lambda: first_request_runs_whole(session, client_state),
                            not client_state.fragment_id):
                    held[session] = client_state  # a later request of the session takes its presses along
                    return None
            if client_state is not None and session not in answered:
                answered.add(session)
                if client_state.fragment_id and not session.has_fragment(client_state.fragment_id):
                    whole = ClientState()
                    whole.CopyFrom(client_state)
                    whole.fragment_id = ""
                    client_state = whole
            return request_rerun(session, client_state)

        first_request_runs_whole.lab_first_request_runs_whole = True
        AppSession.request_rerun = first_request_runs_whole
        _drop_undecodable_widget_states()


def _drop_undecodable_widget_states():
    """A widget state that its widget cannot read (a crafted message: bad JSON for the mask editor) is
    dropped before the run, with a log line; Streamlit would otherwise fail the whole run, before any
    of the app's code, with its error box, until a reload."""
    from streamlit.proto.WidgetStates_pb2 import WidgetStates
    from streamlit.runtime.state.common import unpack_widget_state_value
    from streamlit.runtime.state.session_state import SessionState

    will_rerun = SessionState.on_script_will_rerun

    def readable(session_state, state) -> bool:
        metadata = session_state._new_widget_state.widget_metadata.get(state.id)
        if metadata is None or state.WhichOneof("value") not in ("json_value", "string_value"):
            return True  # only text is read here: other kinds (uploads) are consumed when read
        try:
            metadata.deserializer(unpack_widget_state_value(state))
            return True
        except Exception:
            log.warning("a widget state its widget cannot read was dropped (%s)", state.id[:80])
            return False

    @functools.wraps(will_rerun)
    def on_script_will_rerun(self, fresh_widget_states, **kwargs):
        if fresh_widget_states is not None:
            kept = [w for w in fresh_widget_states.widgets if readable(self, w)]
            if len(kept) != len(fresh_widget_states.widgets):
                fresh_widget_states = WidgetStates(widgets=kept)
        return will_rerun(self, fresh_widget_states, **kwargs)

    SessionState.on_script_will_rerun = on_script_will_rerun


def with_presses(waiting, latest):
    """`latest`, a session's rerun request, with what it must not lose of `waiting`, one the gate held back
    and `latest` replaces: its button presses (a browser sends a press once: Streamlit's own queue merges
    requests so, with its `_coalesce_widget_states`), and the whole page if either ran it, or if they ran two
    different parts (a whole run runs every part). Without this, a device's timer tick that followed a press
    while the device waited its turn (dashboard/devices.py) ran in the press's place, and the press was lost."""
    if waiting is latest:
        return latest
    from streamlit.proto.ClientState_pb2 import ClientState
    from streamlit.runtime.scriptrunner_utils.script_requests import _coalesce_widget_states

    merged = ClientState()
    merged.CopyFrom(latest)
    states = _coalesce_widget_states(waiting.widget_states, latest.widget_states)
    if states is not None:
        merged.widget_states.CopyFrom(states)
    if waiting.fragment_id != latest.fragment_id:
        merged.fragment_id = ""
    merged.is_auto_rerun = waiting.is_auto_rerun and latest.is_auto_rerun  # a press is a person's, not a timer's
    return merged


def set_rerun_gate(gate):
    """dashboard/devices.py's gate: (session id, how to run it later) -> whether the rerun runs now."""
    from streamlit.runtime.app_session import AppSession

    AppSession.lab_rerun_gate = gate


def _runtime():
    """Streamlit's runtime when a server runs; None without one, and in AppTest (its stand-in is a mock)."""
    from streamlit.runtime import Runtime

    return Runtime.instance() if Runtime.exists() and type(Runtime.instance()) is Runtime else None


def session_id() -> str | None:
    """The id of the session whose script runs in this thread; None outside a server's run (AppTest: one fixed id)."""
    from streamlit.runtime import scriptrunner

    ctx = scriptrunner.get_script_run_ctx()
    return ctx.session_id if ctx is not None and _runtime() is not None else None


def session_alive(session: str) -> bool:
    """Whether Streamlit's session `session` is still connected (True where no server runs: AppTest)."""
    runtime = _runtime()
    return runtime is None or runtime.is_active_session(session)


def session_client(session: str) -> tuple[str | None, list[str]]:
    """Who session `session` is, as its script's `st.context` would say, readable before any script runs (the
    rerun gate's question): its connection's address (None for this machine's 127.0.0.1 and ::1, as
    st.context.ip_address) and its X-Forwarded-For headers' values. (None, []) where no server runs."""
    runtime = _runtime()
    context = getattr(runtime.get_client(session), "client_context", None) if runtime is not None else None
    if context is None:
        return None, []
    peer = context.remote_ip
    return (None if peer in ("127.0.0.1", "::1") else peer,
            [value for name, value in context.headers if name.lower() == "x-forwarded-for"])


def offline(args: list[str]) -> list[str]:
    """`streamlit run` options with an address for Streamlit to print, so that it asks no web service
    for one: the address given with --server.address, or this machine's on the local network when it
    listens on every interface (unset, 0.0.0.0 or ::); options that name one are kept as they are."""
    if any(a.startswith("--browser.serverAddress") for a in args):
        return list(args)
    address = None
    for i, arg in enumerate(args):
        if arg == "--server.address" and i + 1 < len(args):
            address = args[i + 1]
        elif arg.startswith("--server.address="):
            address = arg.partition("=")[2]
    if address in (None, "", "0.0.0.0", "::"):
        from classroom.rooms.address import lan_address

        address = lan_address()
    return [*args, "--browser.serverAddress", address]


def opening_query_string() -> str:
    """The raw query string of the address this run was opened with, embed options included."""
    from streamlit.runtime import scriptrunner

    ctx = getattr(scriptrunner, "get_script_run_ctx", lambda: None)()
    return getattr(ctx, "query_string", "") if ctx else ""


# Ports for the lab's own servers (the tests', the benchmarks', the hall's labs and Redis): below
# the ephemeral ranges from which the kernel gives outgoing connections their local port (Linux
# 32768-60999; macOS and Windows 49152-65535). A port from bind(0) came from that range, and a
# connection opened between the pick and the server's bind could take it: the server then failed to
# start, while another server answered on its port.
OWN_PORTS = range(20000, 32768)
_handed_out: set[int] = set()


def free_port() -> int:
    """A loopback TCP port that nothing holds now and that this process has not handed out before;
    random in OWN_PORTS, so that two processes picking at once rarely pick the same."""
    while True:
        port = random.choice(OWN_PORTS)
        if port in _handed_out:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:  # held, or still in TIME_WAIT after an earlier server
                continue
        _handed_out.add(port)
        return port


def listens(pid: int, port: int) -> bool:
    """Whether process `pid` itself holds the listening TCP socket on `port`, so that a health check
    that answers comes from the server one started, not from another on the same port (Linux, from
    /proc; elsewhere True)."""
    tables = [Path("/proc/net/tcp"), Path("/proc/net/tcp6")]
    if not tables[0].exists():
        return True
    inodes = set()
    for table in (t for t in tables if t.exists()):
        for line in table.read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and int(fields[1].rpartition(":")[2], 16) == port:  # 0A: LISTEN
                inodes.add(f"socket:[{fields[9]}]")
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:  # gone
        return False
    for fd in fds:
        try:
            if os.readlink(fd) in inodes:
                return True
        except OSError:
            continue
    return False


def main(argv: list[str] | None = None):
    from dashboard import process

    process.start()  # the process's settings for a server: at its start, never on import
    install()
    from streamlit.web import cli

    try:
        cli.main(["run", str(APP), *offline(sys.argv[1:] if argv is None else argv)], prog_name="streamlit")
    finally:
        process.stop()


if __name__ == "__main__":
    main()
