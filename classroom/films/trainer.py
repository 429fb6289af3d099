"""The lab's side of one trainer process (child.py): start it, give it a film, follow the film to its
end; and the in-process film queue's runner (jobs.Runner), one trainer process per queue thread.

Progress comes over a socket that the service's thread reads, not through a progress file:
the same wait that reads progress sees the process end (the socket reads EOF), and a "stop"
travels back on it, so a cancelled or killed training is known within a fraction of a second.
"""

import logging
import os
import socket
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path

from classroom.films.task import BROKEN, CRASHED, SHUTTING_DOWN, STOPPED, THREADS, TIMED_OUT, TIMEOUT_S, Curve, killed
from core.film import LearnSettings
from jobs import Failed, Runner

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
        self.seconds = None  # how long the last film trained, as the process measured it
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

    def train(self, settings: LearnSettings, progress, should_stop) -> bool:
        """Train one film and follow it to its end: True once it is saved; False if the process ended
        before it took the film (it was idle and timed out: try a fresh one). Raises Failed otherwise.
        `progress(step, total, loss)`; `should_stop()`: a "stop" is sent, then the process is killed
        if it has not stopped within STOP_GRACE_S."""
        self.send("train", settings.to_dict())
        started, stop_sent, deadline = False, None, time.monotonic() + TIMEOUT_S
        while True:
            if time.monotonic() > deadline:
                self.kill()
                raise Failed(TIMED_OUT)
            if stop_sent is None and should_stop():
                stop_sent = time.monotonic() if self.send("stop") else 0.0
            elif stop_sent is not None and time.monotonic() - stop_sent > STOP_GRACE_S:
                self.kill()  # it did not stop in time: the next film gets a fresh process
                raise Failed(STOPPED)
            try:
                if not self.conn.poll(POLL_S):
                    continue
                message = self.conn.recv()
            except (EOFError, OSError):  # the process ended (or closed its end: then it is made to end)
                self.kill()
                if not started:
                    return False
                if stop_sent is None:
                    log.error("The trainer of film %s ended (exit code %s)", settings.key(), self.proc.returncode)
                raise Failed(STOPPED if stop_sent is not None else killed(self.proc.returncode)) from None
            started = started or message[0] in ("started", "progress")
            if self._handle(message, settings, progress):
                return True

    def _handle(self, message: tuple, settings: LearnSettings, progress) -> bool:
        """One message of the trainer: True once the film is saved."""
        kind = message[0]
        if kind == "progress":
            progress(*message[1:])
        elif kind == "done":
            self.seconds = message[1]
            return True
        elif kind == "stopped":
            raise Failed(STOPPED)
        elif kind == "unsaved":
            log.error("Film %s was trained but could not be saved: %s", settings.key(), message[1])
            raise Failed(f"The film could not be saved ({message[1]}).")
        elif kind in ("error", "broken"):  # the trainer raised, or could not even be imported
            log.error("Training film %s failed:\n%s", settings.key(), message[1])
            raise Failed(BROKEN if kind == "broken" else CRASHED)
        return False


class TrainerRunner(Runner):
    """One film thread's trainer process: started by `warm`, or with the thread's first film, and
    again if it ended (idle, or killed). PR_SET_PDEATHSIG ties it to the thread that started it."""

    def __init__(self, task):
        super().__init__(task)
        self.trainer: Trainer | None = None
        self._lock, self._killed = threading.Lock(), False

    def warm(self):
        self._trainer()

    def _trainer(self) -> Trainer | None:
        """This thread's trainer process, started afresh if it ended; None once the queue killed it."""
        trainer = self.trainer
        if trainer is not None and trainer.alive():
            return trainer
        if trainer is not None:
            trainer.kill()
            trainer.conn.close()
        with self._lock:  # kill() ends what is in self.trainer: a new one is either there or never started
            if self._killed:
                return None
            self.trainer = Trainer(self.task.trainer, self.task.media_dir, self.task.threads)
            return self.trainer

    def run(self, job, progress, should_stop):
        for _ in range(2):  # a second time if the process ended (idle) just as the film was sent
            if (trainer := self._trainer()) is None:
                raise Failed(SHUTTING_DOWN)
            if trainer.train(job.request, Curve(progress), should_stop):
                break
        else:
            raise Failed(killed(trainer.proc.returncode))
        progress.worked(trainer.seconds)
        try:
            self.task.store.evict(keep={job.key})
        except OSError:
            log.exception("Could not bring the film cache under its cap (the new film is kept)")

    def close(self):
        if self.trainer is not None:
            self.trainer.kill()
            self.trainer.conn.close()

    def kill(self):
        with self._lock:
            self._killed = True
            trainer = self.trainer
        if trainer is not None:
            trainer.kill()
