"""`python -m dashboard.serve [streamlit run options]`: the lab's server, as `make run`,
`make classroom`, the hall and the container start it. It is `streamlit run dashboard/app.py`
with one fix to Streamlit (1.67) installed first, so that a page survives a restart of its
server.

The fix. A page's controls that sit inside a fragment (page 1's head and step buttons,
the "Predict first" switch, everything drawn from the lesson: `lesson_fragment.py`; the sidebar's
temperature and the other page-only settings: `sidebar.page_only_controls`) ask the
server to rerun that fragment only, by its id. After the server restarts under an open page (a
hall failover moves the student to another process; `make classroom` is restarted), the page
is still on screen but the new process has never run it: it holds no fragment, and Streamlit
ignores a rerun of a fragment it does not hold. Every such control then did nothing at all
until the student touched something outside the fragments. With the fix, a session whose first
request names a fragment it does not hold runs the whole app instead: the page is redrawn from
its address (the lesson and the page's view are in it), and from then on every control works.
That first move itself is not applied (the new process never saw the widget, so it draws it
with the address's value), just as a first move of a sidebar control outside the fragments.

Later in a session, Streamlit's own handling stays: there an unknown fragment is one a full
run has just removed, and dropping its rerun is right.
"""

import sys
import threading
import weakref
from pathlib import Path

APP = Path(__file__).resolve().with_name("app.py")

_LOCK = threading.Lock()


def install():
    """Make a session's first request run the whole app when it names a fragment the session
    does not hold (see above). Idempotent; app.py calls it too, for a server started some other way."""
    from streamlit.proto.ClientState_pb2 import ClientState
    from streamlit.runtime.app_session import AppSession

    with _LOCK:  # marked on Streamlit's class: `python -m dashboard.serve` runs this file as __main__ too
        if getattr(AppSession.request_rerun, "lab_first_request_runs_whole", False):
            return

        answered = weakref.WeakSet()  # sessions that have had a rerun request
        request_rerun = AppSession.request_rerun

        def first_request_runs_whole(session, client_state):
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


def main(argv: list[str] | None = None):
    install()
    from streamlit.web import cli

    cli.main(["run", str(APP), *(sys.argv[1:] if argv is None else argv)], prog_name="streamlit")


if __name__ == "__main__":
    main()
