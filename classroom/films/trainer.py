"""The lab's side of one trainer process (child.py): start it, give it a film, follow the film to its end.

Progress comes over a socket that the service's thread reads, not through a progress file:
the same wait that reads progress sees the process end (the socket reads EOF), and a "stop"
travels back on it, so a cancelled or killed training is known within a fraction of a second.
"""

import logging
import os
import socket
import subprocess
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path

from classroom.films.jobs import BROKEN, CRASHED, SHUTTING_DOWN, STOPPED, THREADS, TIMED_OUT, TIMEOUT_S, FilmJob, killed

log = logging.getLogger(__name__)

STOP_GRACE_S = 3.0  # a trainer that has not stopped this long after "stop" is terminated
POLL_S = 0.2  # how often a follow looks at a stop or a shutdown while the trainer is silent
ROOT = Path(__file__).resolve().parents[2]  # where `classroom` is importable from
# OpenMP threads that sleep at a barrier instead of spinning: on a busy machine (the lab's own
# server, a browser) a spinning thread waits for one that is not scheduled, and a training with 2
# threads ran several times slower than with 1 in our measurements. Set by the environment wins.
OMP_WAIT_POLICY = "PASSIVE"


class Trainer:
    """One trainer process (`python -m classroom.films.child`, a fresh interpreter by exec: never a
    fork of the lab's threads) and the lab's end of its socket. Only the thread that started it
    may use the socket; it must live as long as the process (PR_SET_PDEATHSIG is per thread)."""

    def __init__(self, trainer: str, media_dir, threads: int = THREADS):
        ours, theirs = socket.socketpair()
        self.seconds_per_step = None
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "classroom.films.child", str(theirs.fileno()), str(os.getpid()), trainer,
                 str(Path(media_dir).resolve()), str(threads)],
                pass_fds=[theirs.fileno()], cwd=ROOT, start_new_session=True,
                env={"OMP_WAIT_POLICY": OMP_WAIT_POLICY, **os.environ})
        finally:
            theirs.close()  # only the child holds its end now: ours reads EOF the moment it ends
        self.conn = Connection(ours.detach())

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, *message) -> bool:
        try:
            self.conn.send(message)
            return True
        except OSError:  # the process ended; what it said before is still read, then EOF
            return False

    def kill(self):
        """SIGTERM, then SIGKILL if it is still there after 2 s; reaps it. Safe from any thread."""
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(2)

    def train(self, job: FilmJob, closed) -> bool:
        """Train `job`'s film and follow it to its end; False if the process ended before it took
        the film (it was idle and timed out: try a fresh one). `closed()`: the service is stopping."""
        self.send("train", job.settings.to_dict())
        started, stop_sent, deadline = False, None, time.monotonic() + TIMEOUT_S
        while not job.finished.is_set():
            if closed() or time.monotonic() > deadline:
                self.kill()
                job.end("failed", SHUTTING_DOWN if closed() else TIMED_OUT)
                break
            if job._stop and stop_sent is None:
                stop_sent = time.monotonic() if self.send("stop") else 0.0
            elif stop_sent is not None and time.monotonic() - stop_sent > STOP_GRACE_S:
                self.kill()  # it did not stop in time: the next film gets a fresh process
                job.end("failed", STOPPED)
                break
            try:
                if not self.conn.poll(POLL_S):
                    continue
                message = self.conn.recv()
            except (EOFError, OSError):  # the process ended (or closed its end: then it is made to end)
                self.kill()
                if closed():  # shutdown() killed it
                    job.end("failed", SHUTTING_DOWN)
                    break
                if not started:
                    return False
                if not job._stop:
                    log.error("The trainer of film %s ended (exit code %s)", job.key, self.proc.returncode)
                job.end("failed", STOPPED if job._stop else killed(self.proc.returncode))
                break
            started = started or message[0] in ("started", "progress")
            self._handle(message, job)
        return True

    def _handle(self, message: tuple, job: FilmJob):
        kind = message[0]
        if kind == "progress":
            job.progress(*message[1:])
        elif kind == "done":
            self.seconds_per_step = message[1] / max(1, job.settings.steps)
            job.step = job.total
            job.end("done")
        elif kind == "stopped":
            job.end("failed", STOPPED)
        elif kind == "unsaved":
            log.error("Film %s was trained but could not be saved: %s", job.key, message[1])
            job.end("failed", f"The film could not be saved ({message[1]}).")
        elif kind in ("error", "broken"):  # the trainer raised, or could not even be imported
            log.error("Training film %s failed:\n%s", job.key, message[1])
            job.end("failed", BROKEN if kind == "broken" else CRASHED)
