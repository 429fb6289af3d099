"""Classroom rooms under load: state memory per student, and what a student's poll costs.

- In-process registry: tracemalloc over 1000 students joining and answering one question
  (the session ids exist beforehand, as they do in the pages' session state).
- Redis registry (if redis-server is installed; a throwaway one on a loopback port): bytes
  that Redis reports for the room's keys, per student; and one student poll (a Lua script)
  as a multiple of a bare PING round trip measured in the same run.

Run: .venv/bin/python benchmarks/rooms_bench.py
"""

import secrets
import shutil
import subprocess
import time
import tracemalloc
import uuid

from classroom.questions import focus_question
from classroom.rooms import MemoryRooms, RoomLimits
from core import AttentionConfig
from dashboard.serve import free_port

STUDENTS = 1000
LESSON = AttentionConfig().to_json()
QUESTION = focus_question(AttentionConfig(), 0, 1)
LIMITS = RoomLimits(max_members=STUDENTS)


def fill(rooms, sessions):
    key = rooms.open("123456", LESSON)
    for s in sessions:
        rooms.join(key.code, s)
    n = rooms.ask(key, QUESTION)
    for i, s in enumerate(sessions):
        rooms.answer(key.code, s, n, i % len(QUESTION.choices))
    return key


def memory_per_student():
    sessions = [uuid.uuid4().hex for _ in range(STUDENTS)]
    rooms = MemoryRooms(LIMITS, pin_cost=2**4)
    rooms.open("123456", LESSON)  # warm up: imports, caches
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    key = rooms.open("123456", LESSON)
    empty = tracemalloc.take_snapshot()
    for s in sessions:
        rooms.join(key.code, s)
    joined = tracemalloc.take_snapshot()
    n = rooms.ask(key, QUESTION)
    asked = tracemalloc.take_snapshot()
    for i, s in enumerate(sessions):
        rooms.answer(key.code, s, n, i % len(QUESTION.choices))
    answered = tracemalloc.take_snapshot()
    tracemalloc.stop()

    def grew(a, b):
        return sum(stat.size_diff for stat in b.compare_to(a, "filename"))

    print(f"in-process: an empty room {grew(before, empty):,} B; per student joined "
          f"{grew(empty, joined) / STUDENTS:.0f} B; a question {grew(joined, asked):,} B; per answer "
          f"{grew(asked, answered) / STUDENTS:.0f} B (session ids themselves: ~{len(sessions[0]) + 49} B each, "
          f"held by the pages anyway)")


def redis_figures():
    binary = shutil.which("redis-server")
    if binary is None:
        print("redis: skipped (redis-server is not installed)")
        return
    import redis

    from classroom.rooms.redis_rooms import RedisRooms

    port, password = free_port(), secrets.token_hex(16)
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--requirepass", password,
                             "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL)
    try:
        client = redis.Redis(port=port, password=password, decode_responses=True)
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        rooms = RedisRooms(client, limits=LIMITS, pin_cost=2**4)
        sessions = [uuid.uuid4().hex for _ in range(STUDENTS)]
        key = fill(rooms, sessions)
        room = f"attention-lab:room:{{{key.code}}}"
        sizes = {k: client.memory_usage(k, samples=0) for k in (room, room + ":m", room + ":a:1")}
        print(f"redis: the room hash {sizes[room]:,} B; per student joined {sizes[room + ':m'] / STUDENTS:.0f} B; "
              f"per answer {sizes[room + ':a:1'] / STUDENTS:.0f} B")
        ping = best(lambda: client.ping())
        poll = best(lambda: rooms.student_view(key.code, sessions[0]))
        print(f"redis: one student poll = {poll / ping:.1f}× a PING round trip ({STUDENTS} students in the room)")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def best(fn, repeat: int = 5, number: int = 200) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times)


if __name__ == "__main__":
    memory_per_student()
    redis_figures()
