"""Start child processes, restart the ones that die, stop them all cleanly.

Each child runs in a process group of its own, so that stopping it stops what it started
(Streamlit's script threads, manim's ffmpeg) and so that Ctrl+C in the teacher's terminal
reaches only the supervisor, which then stops the children in order. On Linux a child also
gets SIGTERM if the supervisor itself is killed, so no lab outlives its hall.
"""

import ctypes
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

QUICK_DEATH = 10.0  # a child that dies sooner than this after its start backs off longer
MAX_BACKOFF = 30.0


def _die_with_parent():  # runs in the child between fork and exec
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


@dataclass
class Child:
    """One supervised program: `argv` run from `cwd` with `env`, its output appended to `log`."""

    name: str
    argv: list[str]
    log: Path
    env: dict[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    stdin: bytes = b""  # written to the program's standard input at every start (e.g. a config)
    last: bool = False  # stopped after the others (Redis: the labs may still talk to it while they stop)
    proc: subprocess.Popen | None = None
    started: float = 0.0
    restarts: int = 0
    backoff: float = 1.0
    due: float = 0.0  # when a dead child is started again

    def start(self):
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                self.argv, cwd=self.cwd, env={**os.environ, **self.env}, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.PIPE if self.stdin else subprocess.DEVNULL, start_new_session=True,
                preexec_fn=_die_with_parent if sys.platform == "linux" else None)
        if self.stdin:
            self.proc.stdin.write(self.stdin)
            self.proc.stdin.close()
        self.started = time.monotonic()

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig: int):
        if self.alive:
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass


class Supervisor:
    def __init__(self, say=print):
        self.children: list[Child] = []
        self.say = say
        self.stopping = False
        self.on_restart = lambda child: None  # e.g. write the new pid down

    def add(self, child: Child) -> Child:
        self.children.append(child)
        child.start()
        return child

    def check(self):
        """Restart every child that died (after its back-off); call it every fraction of a second."""
        now = time.monotonic()
        for child in self.children:
            if self.stopping or child.alive:
                continue
            if child.due == 0.0:  # just found dead
                quick = now - child.started < QUICK_DEATH
                child.backoff = min(MAX_BACKOFF, child.backoff * 2) if quick else 1.0
                child.due = now + child.backoff
                self.say(f"{child.name} exited (code {child.proc.returncode}); starting it again in "
                         f"{child.backoff:.0f} s")
            elif now >= child.due:
                child.due, child.restarts = 0.0, child.restarts + 1
                child.start()
                self.on_restart(child)

    def run(self, poll: float = 0.25):
        """Supervise until SIGINT or SIGTERM, then stop every child."""
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: setattr(self, "stopping", True))
        while not self.stopping:
            self.check()
            time.sleep(poll)
        self.stop()

    def stop(self, grace: float = 10.0):
        """SIGTERM to every child's group (those marked `last` after the others), SIGKILL after `grace`."""
        self.stopping = True
        for stage in ([c for c in self.children if not c.last], [c for c in self.children if c.last]):
            for child in stage:
                child.signal(signal.SIGTERM)
            deadline = time.monotonic() + grace
            while any(c.alive for c in stage) and time.monotonic() < deadline:
                time.sleep(0.05)
            for child in stage:
                child.signal(signal.SIGKILL)
                if child.proc is not None:
                    child.proc.wait()
