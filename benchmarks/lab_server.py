"""A Streamlit app served for a benchmark: on 127.0.0.1 only, on a free port, until stopped."""

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from dashboard.serve import free_port

ROOT = Path(__file__).resolve().parents[1]


def start_streamlit(script, options=(), env=None, log=None, tree: Path = ROOT) -> tuple[subprocess.Popen, int]:
    """`streamlit run script` from the root of `tree` (this checkout, or another one such as an old
    commit's git worktree; the lab as `make run` serves it: `python -m dashboard.serve`); returns
    (process, port) once it answers."""
    port = free_port()
    lab = (tree / script).resolve() == tree / "dashboard" / "app.py"
    run = ["-m", "dashboard.serve"] if lab else ["-m", "streamlit", "run", str(script)]
    cmd = [sys.executable, *run, "--server.headless", "true",
           "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
           *options]
    out = log if log is not None else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, cwd=tree, env={**os.environ, **(env or {})}, stdout=out, stderr=subprocess.STDOUT)
    for _ in range(200):
        if proc.poll() is not None:
            raise RuntimeError(f"{script} exited before serving")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
            return proc, port
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise RuntimeError(f"{script} did not start")


def stop(proc: subprocess.Popen, grace: float = 30.0) -> None:
    """Stop a server started here: terminate, wait up to `grace` seconds, then kill."""
    proc.terminate()
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
