"""Room registries under test: the in-process one and the Redis one, on a fake clock.

The Redis tests start their own throwaway `redis-server` (tests/conftest.py: redis_server)."""

import uuid

import pytest

from classroom.rooms import MemoryRooms, RoomLimits
from core import AttentionConfig
from tests.conftest import redis_server

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


@pytest.fixture(scope="session")
def redis_client():
    with redis_server() as client:
        yield client


@pytest.fixture(params=["memory", "redis"])
def make(request):
    """make(limits=None, clock=None, **kwargs) -> a fresh registry of the parametrised kind, and its clock."""

    def build(limits: RoomLimits | None = None, clock: Clock | None = None, **kwargs):
        """kwargs: `wall` (the epoch clock), `kept` (a store of kept answers; by default the backend's own)."""
        clock = clock or Clock()
        if request.param == "memory":
            return MemoryRooms(limits, clock=clock, pin_cost=FAST_PIN, **kwargs), clock
        from classroom.rooms.redis_rooms import RedisRooms

        client = request.getfixturevalue("redis_client")
        prefix = kwargs.pop("prefix", f"test-{uuid.uuid4().hex[:8]}:")
        return RedisRooms(client, prefix=prefix, limits=limits, clock=clock, pin_cost=FAST_PIN, **kwargs), clock

    build.kind = request.param
    return build


@pytest.fixture
def rooms(make):
    return make()[0]


def sid(i: int = 0) -> str:
    """A browser session id like the pages make."""
    return f"session{i:06d}"
