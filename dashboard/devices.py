"""One device is one student: who is asking, and how much of the server one device may hold.

A device is what the server really knows of a machine: its network address (dashboard/room/session.py
`client_address`: the connection's own, or the X-Forwarded-For of a proxy the lab is told to trust, as the
hall's HAProxy). A script has one device and as many sessions (tabs, cookies, websockets) as it likes, so
the lab bounds per device:

- sessions: a device holds at most `sessions_per_device` connected sessions (ATTENTION_LAB_DEVICE_SESSIONS,
  default DEFAULT_SESSIONS: a student's phone or laptop with a few tabs). One more is refused when it first
  asks for a run, before any script runs (the gate below reads its device from its websocket's handshake):
  its first run only shows the sentence, and only while its device has refusals to tell (TELLS_PER_S, after
  TELL_BURST: a student's extra tab is told, a script opening tabs by the hundred gets no run at all);
  every later rerun is dropped before a thread starts. A session whose tab closed frees its place at once
  (the runtime's own word).
- reruns: a device's sessions together run the whole page at most RUNS_PER_S a second and a part of
  it (a fragment) PARTS_PER_S (each after a burst); a rerun past that waits its turn, the latest
  replacing one still waiting (dashboard/serve.py, the rerun gate), so a script rerunning without
  pause costs the class one device's share, not the server.
- CPU: a device's sessions together spend at most CPU_PER_S of a script thread's CPU a second (after
  CPU_BURST): each run's CPU time is charged to its device when it ends (`spending`), and a device in debt
  waits, its latest rerun replacing one still waiting, until the debt is paid. A student's heavy lesson
  runs at once; a device that reruns it without pause gets a quarter of a core.
- jobs (films, renders): `who()` is this session as the job queues see it: its session key, its
  device, whether it holds a room's teacher key (jobs/policy.py: per-device quota, the teacher first).
  Jobs whose sessions have all gone are cancelled: `alive(key)`, handed to jobs at import.

The lab's own machine (127.0.0.1 or ::1, an IPv4-mapped ::ffff:127.0.0.1 included: a screen or browser on
the laptop that serves) is trusted and not bounded, as the room's limits trust it (classroom/rooms/clients.py);
in a hall, every connection comes through HAProxy with the client's address, and each lab process bounds
the sessions it serves (HAProxy keeps a browser on one process). The counts live here, in module state,
not in a Streamlit cache: a `clear_cache` message empties those for everyone (dashboard/process.py).

`session_key()` is this session's id for the lab (a job's requester, a room's seat without a cookie):
derived from Streamlit's session id with a secret of this process, so it lasts as long as the session,
clear_cache or not, and says nothing of Streamlit's id.
"""

import asyncio
import contextlib
import hmac
import logging
import os
import secrets
import threading
import time
import uuid

import streamlit as st

import jobs
from classroom.rooms.clients import address_of, trusted_proxies
from dashboard import serve
from dashboard.room import session as room_session

log = logging.getLogger(__name__)
SESSIONS_ENV = "ATTENTION_LAB_DEVICE_SESSIONS"
DEFAULT_SESSIONS = 6  # a phone or laptop with a few tabs of the lab; a reload's old session has gone by then
# A device's reruns a second, all its sessions together, and how many at once before the rate holds:
# the whole page (a sidebar change, a reload: a student makes a few a minute) and a part of it (a
# fragment: a tab's timer polls once or twice a second, a control of the lesson view moves).
RUNS_PER_S, BURST = 2.0, 10
PARTS_PER_S, PART_BURST = 8.0, 24
TELLS_PER_S, TELL_BURST = 1.0, 10  # a device's refused sessions whose first run shows why (a shared computer room's)
# A device's script CPU seconds a second, all its sessions together, and what it may spend at once: a run of the
# heaviest lesson (64 heads of 64 tokens on Multi-head) costs over a second of the one interpreter every session
# shares, so runs alone do not bound what a device takes from the class (docs/performance.md).
CPU_PER_S, CPU_BURST = 0.25, 5.0
PRUNE_S = 30.0  # how often the sessions that have gone are forgotten
_SECRET = secrets.token_bytes(32)
REFUSED = ("This device already has {limit} tabs of the lab open. Close one of the others, then reload this "
           "page. (A shared computer or tablet cart? The teacher can raise the limit: {env}.)")


def sessions_per_device(environ=None) -> int:
    try:
        return max(1, int((os.environ if environ is None else environ).get(SESSIONS_ENV, DEFAULT_SESSIONS)))
    except ValueError:
        return DEFAULT_SESSIONS


class Devices:
    """The sessions of each device in this process, and each device's rerun budget (a token bucket)."""

    def __init__(self, limit: int, alive=serve.session_alive, clock=time.monotonic, rate: float = RUNS_PER_S,
                 burst: int = BURST, part_rate: float = PARTS_PER_S, part_burst: int = PART_BURST):
        self.limit, self.alive, self.clock = limit, alive, clock
        # (whole page?) -> (rate, burst); "told": a device's refusals that run to show the sentence
        self.budgets = {True: (rate, burst), False: (part_rate, part_burst), "told": (TELLS_PER_S, TELL_BURST)}
        self._lock = threading.Lock()
        self._device: dict[str, str] = {}  # Streamlit session id -> its device (admitted sessions)
        self._refused: set[str] = set()
        self._local: set[str] = set()  # sessions of the lab's own machine (never bounded)
        self._keys: dict[str, str | None] = {}  # session key -> Streamlit session id (None: no server runs)
        self._pruned = clock()
        self._gone: set[str] = set()  # keys of sessions found gone at the last prune or since
        self._tokens: dict[tuple, tuple[float, float]] = {}  # (device, whole page?) -> (tokens, when counted)
        self._cpu: dict[str, tuple[float, float]] = {}  # device -> (CPU seconds it may spend, when counted)

    def enter(self, session: str, device: str | None) -> bool:
        """Whether `session` (Streamlit's id) may run; its first run decides, for its life."""
        if self.clock() - self._pruned > PRUNE_S:
            self._pruned = self.clock()
            self.forget_gone()
        with self._lock:
            if session in self._device or device is None:
                return True
            if session in self._refused:
                return False
        mine = [s for s, d in list(self._device.items()) if d == device]
        live = [s for s in mine if self.alive(s)]  # outside the lock: asks the runtime
        with self._lock:
            for gone in set(mine) - set(live):
                self._device.pop(gone, None)
            self._refused.discard(session)
            if len(live) >= self.limit:
                self._refused.add(session)
                return False
            self._device[session] = device
            return True

    def first(self, session: str, device_of) -> bool | None:
        """A session's request before this process has seen it run: None when it is known (admitted, refused,
        or the lab's own machine's: the gate then decides); else whether its first run runs: an admitted
        session's always, a refused one's while its device has a refusal to tell (its run shows why).
        `device_of()` reads the session's device: only for a session not known yet, not on every rerun."""
        with self._lock:
            if session in self._device or session in self._refused or session in self._local:
                return None
        device = device_of()
        if device is None:
            with self._lock:
                self._local.add(session)
            return None
        if self.enter(session, device):
            return True
        with self._lock:
            return self._take((device, "told")) is None

    def _take(self, budget: tuple) -> float | None:
        """One token of `budget` (device, kind), under the lock: None if there was one, else seconds to the next."""
        rate, burst = self.budgets[budget[1]]
        tokens, then = self._tokens.get(budget, (float(burst), self.clock()))
        now = self.clock()
        tokens = min(float(burst), tokens + (now - then) * rate)
        if tokens >= 1.0:
            self._tokens[budget] = (tokens - 1.0, now)
            return None
        self._tokens[budget] = (tokens, now)
        return (1.0 - tokens) / rate

    def _cpu_left(self, device: str) -> float:
        """The CPU seconds `device` may still spend now (below 0: its debt), under the lock."""
        now = self.clock()
        left, then = self._cpu.get(device, (CPU_BURST, now))
        left = min(CPU_BURST, left + (now - then) * CPU_PER_S)
        self._cpu[device] = (left, now)
        return left

    def charge(self, session: str, seconds: float):
        """A run of `session` took `seconds` of CPU: its device's (nothing for the lab's own machine)."""
        with self._lock:
            device = self._device.get(session)
            if device is not None:
                self._cpu[device] = (self._cpu_left(device) - seconds, self.clock())

    def gate(self, session: str, whole: bool = True) -> float | None:
        """The rerun gate (dashboard/serve.py): None to run now, -1 to drop, else seconds to wait.
        `whole`: a run of the whole page, else of a fragment (each has its own budget of runs; both spend
        the device's CPU)."""
        with self._lock:
            if session in self._refused:
                return -1.0
            device = self._device.get(session)
            if device is None:
                return None  # the lab's own machine, or a session before its first run
            if (left := self._cpu_left(device)) < 0:
                return -left / CPU_PER_S
            return self._take((device, whole))

    def forget_gone(self):
        """Drop the sessions that have gone, their keys and the budgets of devices left without a session."""
        with self._lock:
            sessions = set(self._device) | self._refused | self._local
            sessions |= {s for s in self._keys.values() if s is not None}
        gone = {s for s in sessions if not self.alive(s)}  # outside the lock: asks the runtime
        with self._lock:
            for s in gone:
                self._device.pop(s, None)
            self._refused -= gone
            self._local -= gone
            # a gone session's key is remembered until the next prune (PRUNE_S: beyond its jobs' grace)
            self._gone = {k for k, s in self._keys.items() if s in gone}
            self._keys = {k: s for k, s in self._keys.items() if s not in gone}
            self._tokens = {d: t for d, t in self._tokens.items() if d[0] in self._device.values()}
            self._cpu = {d: c for d, c in self._cpu.items() if d in self._device.values()}

    def key(self, session: str | None) -> str:
        """The key of Streamlit's session `session`; None: a new key for a run outside a server, always alive."""
        key = uuid.uuid4().hex if session is None else hmac.new(_SECRET, session.encode(), "sha256").hexdigest()[:32]
        with self._lock:
            self._keys[key] = session
        return key

    def key_alive(self, key: str) -> bool:
        """Whether the session of this key is still connected. A key this process never made is not a
        session's (a script's, a tool's: "greedy"), and is never gone."""
        with self._lock:
            if key not in self._keys:
                return key not in self._gone
            session = self._keys[key]
        return session is None or self.alive(session)


_pending: dict = {}  # session -> how to run its latest put-off rerun (used on the server's event loop only)


def rerun_gate(session: str, later, whole: bool = True) -> bool:
    """dashboard/serve.py's rerun gate: whether a rerun runs now. A session's first request is admitted or
    refused here, before any script runs (`Devices.first`); a refused session's reruns are dropped, and one
    past its device's rate is run when a token is there, the session's latest request replacing one
    still waiting (with that one's button presses: dashboard/serve.py `with_presses`)."""
    try:
        runs = DEVICES.first(session, lambda: address_of(*serve.session_client(session), trusted_proxies()))
        if runs is not None:
            return runs
        wait = DEVICES.gate(session, whole)
    except Exception:  # a bug here must not stop the lab: the run goes ahead
        log.exception("the rerun gate failed")
        return True
    if wait is None:
        return True
    if wait < 0:
        return False
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # not on the server's loop: run it
        return True
    if session not in _pending:
        loop.call_later(wait, lambda: _pending.pop(session, lambda: None)())
    _pending[session] = later
    return False


DEVICES = Devices(sessions_per_device())
serve.set_rerun_gate(rerun_gate)
jobs.watch_sessions(DEVICES.key_alive)


def session_key() -> str:
    """This session's id for the lab (see the module's doc); a random one kept in the session where no
    Streamlit session runs (a bare script)."""
    session = serve.session_id()
    if session is None:
        if "devices_session" not in st.session_state:
            st.session_state["devices_session"] = DEVICES.key(None)
        return st.session_state["devices_session"]
    return DEVICES.key(session)


_runs = threading.local()  # how deep this script thread is in `spending` (a fragment runs inside a whole run)


@contextlib.contextmanager
def spending():
    """Around a whole run (app.py) and each fragment's (lesson/rerun.py): the script thread's CPU time, charged
    to this session's device once the outermost ends, however it ends (st.rerun and st.stop are exceptions)."""
    depth = getattr(_runs, "depth", 0)
    _runs.depth, start = depth + 1, time.thread_time()
    try:
        yield
    finally:
        _runs.depth = depth
        if depth == 0 and (session := serve.session_id()) is not None:
            DEVICES.charge(session, time.thread_time() - start)


def device() -> str | None:
    """This session's device: its network address; None for the lab's own machine (127.0.0.1 or ::1, in any
    form: dashboard/room/session.py `client_address`)."""
    return room_session.client_address()


def who() -> jobs.Requester:
    """This session as the job queues see it."""
    return jobs.Requester(session_key(), device() or "", teacher=room_session.teacher_key() is not None)


def admit_session():
    """At the top of every full run: a session past its device's bound is told so, and runs nothing more."""
    session = serve.session_id()
    if session is None or DEVICES.enter(session, device()):
        return
    st.error(REFUSED.format(limit=DEVICES.limit, env=f"{SESSIONS_ENV}=N make classroom"))
    st.stop()
