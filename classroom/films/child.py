"""`python -m classroom.films.child FD LAB_PID TRAINER MEDIA THREADS`: the in-process FilmService's
trainer process; it trains films one at a time, told over a socket (fd FD) by the lab.

A fresh interpreter started by exec (never a fork of a process full of Streamlit's threads,
and, unlike multiprocessing's "spawn", without re-importing the lab's main module), in a
session of its own, so Ctrl+C in the lab's terminal is the lab's to handle. It imports torch
and the trainer once and then serves one film after another, so a student's Train does not
wait for torch to load. It dies with the lab: PR_SET_PDEATHSIG kills it when the thread that
started it ends (the lab killed, even by SIGKILL), and a send to a lab that is gone fails and
ends it. After IDLE_S without a film it exits (the service starts another when one is asked for).

The socket carries pickled tuples (multiprocessing.connection). Lab → child: ("train",
settings as a dict), ("stop",). Child → lab: ("started",), ("progress", step, total, loss, accuracy or None),
("done", seconds), ("stopped",), ("error", traceback), ("unsaved", reason), and ("broken",
traceback) when the trainer cannot even be imported.
"""

import ctypes
import os
import signal
import sys
import time
import traceback

IDLE_S = 600.0


def die_with_parent(parent_pid: int):
    """SIGKILL this process when its parent's starting thread ends; exit now if the parent is already gone."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    if os.getppid() != parent_pid:  # the parent died before prctl
        os._exit(1)


def main(conn, lab_pid: int, trainer: str, media_dir: str, threads: int, idle_s: float = IDLE_S):
    die_with_parent(lab_pid)
    try:
        import torch

        from classroom.films.store import FilmStore
        from core.film import LearnSettings
        from jobs.job import resolve

        torch.set_num_threads(threads)
        train = resolve(trainer)
        store = FilmStore(media_dir, cap_bytes=0)  # the lab evicts: it keeps the cap
    except Exception:
        conn.send(("broken", traceback.format_exc()))
        return
    try:
        while conn.poll(idle_s):
            message = conn.recv()
            if message[0] == "train":  # (a "stop" for a film that already ended is dropped)
                _one(conn, train, store, LearnSettings.from_dict(message[1]))
    except (EOFError, BrokenPipeError, ConnectionResetError):
        pass  # the lab is gone


def _one(conn, train, store, settings):
    conn.send(("started",))
    stopped = False

    def should_stop() -> bool:
        nonlocal stopped
        while not stopped and conn.poll():
            stopped = conn.recv()[0] == "stop"
        return stopped

    def progress(step: int, total: int, loss: float, accuracy: float | None = None):
        conn.send(("progress", int(step), int(total), float(loss), None if accuracy is None else float(accuracy)))

    start = time.monotonic()
    try:
        film = train(settings, progress=progress, should_stop=should_stop)
    except (BrokenPipeError, ConnectionResetError):
        raise
    except Exception:
        conn.send(("stopped",) if stopped else ("error", traceback.format_exc()))
        return
    if stopped:
        conn.send(("stopped",))
        return
    seconds = time.monotonic() - start
    try:
        store.save(film)
    except OSError as err:  # the disk: full, read-only, a folder removed under us
        conn.send(("unsaved", err.strerror or str(err)))
        return
    except Exception:  # a film the trainer made wrong: say so like any failure of training
        conn.send(("error", traceback.format_exc()))
        return
    conn.send(("done", seconds))


if __name__ == "__main__":
    from multiprocessing.connection import Connection

    fd, lab_pid, trainer, media_dir, threads = sys.argv[1:6]
    main(Connection(int(fd)), int(lab_pid), trainer, media_dir, int(threads))
