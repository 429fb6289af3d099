"""The hall's own Redis: on loopback, with a generated password, nothing written to disk.

The password reaches redis-server on its standard input (not its command line, which every
user of the machine can read in `ps`) and the lab processes in ATTENTION_LAB_REDIS_URL.
Persistence is off: the hall keeps renders' bookkeeping and rooms there, which a restart may
lose (the videos themselves live in the shared media folder).
"""

import os
import secrets
import subprocess
import time


def new_password() -> str:
    return secrets.token_urlsafe(32)  # 256 bits; URL-safe, so the URL needs no quoting


def redis_url(password: str, port: int, host: str = "127.0.0.1") -> str:
    return f"redis://:{password}@{host}:{port}/0"


def redis_config(password: str, port: int) -> str:
    """redis.conf's lines for the hall (given to `redis-server -` on stdin by the supervisor)."""
    return "\n".join([
        "bind 127.0.0.1 -::1",
        f"port {port}",
        "protected-mode yes",
        f"requirepass {password}",
        'save ""',
        "appendonly no",
        "daemonize no",
        'logfile ""',
        "",
    ])


def ping(password: str, port: int) -> bool:
    """True once Redis answers PONG to an authenticated client (redis-cli, password in its env)."""
    try:
        out = subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(port), "ping"], capture_output=True,
                             text=True, timeout=5, env={**os.environ, "REDISCLI_AUTH": password})
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.stdout.strip() == "PONG"


def wait_ready(proc: subprocess.Popen, password: str, port: int, seconds: float = 20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("redis-server exited at start: see redis.log in the hall's folder")
        if ping(password, port):
            return
        time.sleep(0.1)
    raise TimeoutError("redis-server did not answer")
