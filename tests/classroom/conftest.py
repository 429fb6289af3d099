"""Room registries under test: the in-process one and the Redis one, on a fake clock.

The Redis tests start their own throwaway `redis-server` on a free loopback port, with a
password and no persistence, and stop it at the end; they skip only where the binary is
missing (install it with scripts/system-packages.sh)."""

import contextlib
import secrets
import shutil
import subprocess
import time
import uuid

import pytest

from classroom.rooms import MemoryRooms, RoomLimits
from core import AttentionConfig
from tests.conftest import free_port

FAST_PIN = 2**4  # scrypt cost in tests; one test runs the real one
LESSON = AttentionConfig().to_json()


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 1_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float):
        self.now += seconds


@contextlib.contextmanager
def redis_server():
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (scripts/system-packages.sh installs it)")
    import redis

    port, password = free_port(), secrets.token_hex(16)
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--requirepass", password,
                             "--save", "", "--appendonly", "no", "--protected-mode", "yes"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(host="127.0.0.1", port=port, password=password, decode_responses=True)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        yield client
    finally:
        client.close()
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="session")
def redis_client():
    with redis_server() as client:
        yield client


@pytest.fixture(params=["memory", "redis"])
def make(request):
    """make(limits=None, clock=None) -> a fresh registry of the parametrised kind, and its clock."""

    def build(limits: RoomLimits | None = None, clock: Clock | None = None):
        clock = clock or Clock()
        if request.param == "memory":
            return MemoryRooms(limits, clock=clock, pin_cost=FAST_PIN), clock
        from classroom.rooms.redis_rooms import RedisRooms

        client = request.getfixturevalue("redis_client")
        return RedisRooms(client, prefix=f"test-{uuid.uuid4().hex[:8]}:", limits=limits, clock=clock,
                          pin_cost=FAST_PIN), clock

    build.kind = request.param
    return build


@pytest.fixture
def rooms(make):
    return make()[0]


def sid(i: int = 0) -> str:
    """A browser session id like the pages make."""
    return f"session{i:06d}"
