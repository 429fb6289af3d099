"""A hall in a subprocess, for the tests and the load benchmark: start it, read it, stop it."""

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .run import ROOT, free_port


@dataclass
class RunningHall:
    info: dict  # hall.json as it was when the hall came up
    proc: subprocess.Popen  # `python -m hall`, the supervisor
    run_dir: Path
    output: Path  # what the supervisor printed

    def current(self) -> dict:
        """hall.json now (the supervisor writes it again when it restarts a process)."""
        return read_info(self.run_dir)


@contextlib.contextmanager
def running_hall(folder: Path, workers: int = 2, bind: str = "127.0.0.1", start_seconds: float = 180,
                 env: dict | None = None):
    """`python -m hall` on a free loopback port, its run dir and media under `folder`, one render
    worker; `env` is added to the environment of the hall and its processes.

    Yields a RunningHall once the proxy answers (its `info` is hall.json: url, port, redis_url,
    processes, labs, run_dir); stops the hall with SIGTERM (as Ctrl+C would) when the block ends."""
    run_dir, media = folder / "run", folder / "media"
    folder.mkdir(parents=True, exist_ok=True)
    (run_dir / "hall.json").unlink(missing_ok=True)  # an earlier hall's: not the one to wait for
    argv = [sys.executable, "-m", "hall", "--workers", str(workers), "--bind", bind, "--port", str(free_port()),
            "--run-dir", str(run_dir), "--render-workers", "1"]
    with open(folder / "hall.out", "wb") as out:
        proc = subprocess.Popen(argv, cwd=ROOT, env={**os.environ, **(env or {}), "ATTENTION_LAB_MEDIA": str(media)},
                                stdout=out, stderr=subprocess.STDOUT)
    try:
        info = _wait_for_info(proc, run_dir / "hall.json", folder / "hall.out", start_seconds)
        yield RunningHall(info, proc, run_dir, folder / "hall.out")
    finally:
        stop(proc)


def _wait_for_info(proc: subprocess.Popen, path: Path, out: Path, seconds: float) -> dict:
    deadline = time.monotonic() + seconds
    while not path.is_file():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the hall did not start:\n{out.read_text(errors='replace')[-3000:]}")
        time.sleep(0.3)
    return json.loads(path.read_text(encoding="utf-8"))


def read_info(run_dir) -> dict:
    return json.loads((Path(run_dir) / "hall.json").read_text(encoding="utf-8"))


def stop(proc: subprocess.Popen, seconds: float = 60) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode
