"""What only the Redis registry has: rooms shared by several lab processes, keys that expire
in Redis itself, nothing left behind a closed room. (Everything else runs against both
registries in test_registry.py and test_races.py.)"""

import subprocess
import sys
import uuid

import pytest

from classroom.questions import focus_question
from classroom.rooms import MemoryRooms, make_registry
from core import AttentionConfig

from .conftest import FAST_PIN, LESSON, Clock, sid

pytest.importorskip("redis")
from classroom.rooms.redis_rooms import TTL_MARGIN_S, RedisRooms  # noqa: E402

Q = focus_question(AttentionConfig(), 0, 1)


def two_processes(client):
    prefix, clock = f"test-{uuid.uuid4().hex[:8]}:", Clock()
    return [RedisRooms(client, prefix=prefix, clock=clock, pin_cost=FAST_PIN) for _ in range(2)], prefix


def test_a_room_opened_in_one_process_is_run_from_another(redis_client):
    (a, b), _ = two_processes(redis_client)
    key = a.open("123456", LESSON)
    b.join(key.code, sid(1))
    n = b.ask(key, Q)  # the teacher's next request may land on the other process
    a.answer(key.code, sid(1), n, Q.answer[0])
    b.reveal(key)
    assert a.student_view(key.code, sid(1)).correct is True
    assert b.teacher_view(key).current.correct == 1


def test_room_keys_expire_in_redis_and_a_closed_room_leaves_nothing(redis_client):
    (rooms, _), prefix = two_processes(redis_client)
    key = rooms.open("123456", LESSON)
    rooms.join(key.code, sid(1))
    rooms.join(key.code, sid(2), "127.0.0.2")
    n = rooms.ask(key, Q)
    rooms.answer(key.code, sid(1), n, 0)
    rooms.answer(key.code, sid(2), n, 0)
    rooms.remove(key, rooms.teacher_view(key).roster[1].tag)
    room_keys = [k for k in redis_client.scan_iter(f"{prefix}room:*")]
    # the room, its members, their devices, removed seats, barred devices, one round's answers, their devices
    # and their times, and the seats that answered
    assert len(room_keys) == 9
    limit_ms = (rooms.limits.idle_seconds + TTL_MARGIN_S) * 1000
    for k in room_keys:
        assert 0 < redis_client.pttl(k) <= limit_ms
    rooms.close(key)
    assert list(redis_client.scan_iter(f"{prefix}room:*")) == []
    assert redis_client.zcard(f"{prefix}rooms") == 0


def test_an_idle_room_is_dropped_by_the_next_open(redis_client):
    (rooms, _), prefix = two_processes(redis_client)
    key = rooms.open("123456", LESSON)
    rooms._clock.advance(rooms.limits.idle_seconds + 1)
    rooms.open("123456", LESSON)
    assert not redis_client.exists(f"{prefix}room:{{{key.code}}}") and redis_client.zcard(f"{prefix}rooms") == 1


def test_make_registry_picks_redis_from_the_environment(redis_client):
    assert isinstance(make_registry({}), MemoryRooms)
    kw = redis_client.connection_pool.connection_kwargs
    url = f"redis://:{kw['password']}@{kw['host']}:{kw['port']}/0"
    rooms = make_registry({"ATTENTION_LAB_REDIS_URL": url})
    assert isinstance(rooms, RedisRooms)
    rooms.close(rooms.open("123456", LESSON))


@pytest.mark.slow  # a fresh Python process
def test_importing_the_rooms_package_starts_nothing_and_needs_no_streamlit():
    code = ("import sys, threading; import classroom.rooms, classroom.rooms.redis_rooms, classroom.rooms.address; "
            "assert 'streamlit' not in sys.modules, 'streamlit imported'; "
            "assert threading.active_count() == 1, 'a thread started'")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_redis_down_is_a_plain_room_message_not_a_traceback():
    """Nothing listens on the port (Redis stopped, or restarting): every kind of call says so in
    words, as a RoomError that pages show like any other room message."""
    from classroom.rooms import RoomError, RoomsUnavailable
    from tests.conftest import free_port

    rooms = RedisRooms.from_url(f"redis://:pw@127.0.0.1:{free_port()}/0", pin_cost=FAST_PIN)
    for attempt in (lambda: rooms.open("123456", LESSON), lambda: rooms.join("7K3M-Q9TX", sid(1)),
                    lambda: rooms.student_view("7K3M-Q9TX", sid(1))):
        with pytest.raises(RoomsUnavailable, match="Rooms are briefly unavailable") as err:
            attempt()
        assert isinstance(err.value, RoomError) and "Traceback" not in str(err.value)
