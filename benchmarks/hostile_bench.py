"""A hostile class (issue 28, the rooms part): one flooder beside 30 honest students and their teacher.

Against the room registry itself (this process's memory, and Redis when redis-server is
installed: a throwaway one on a loopback port), with the production limits and PIN hashing.
Threads stand for the lab's sessions, as Streamlit runs them:

- the teacher opens a room from its laptop (10.0.2.1), changes the lesson every second and asks
  a question every 4 s; 30 students (10.0.1.1-30) join with the right code, poll every 0.5 s and
  vote on every question;
- the flooder (10.0.0.66, 4 threads, no pause) sends wrong codes, wrong PINs, room openings and
  joins with the right code from a fresh session each time: everything issue 28 played.

Printed: p50 / p95 / max of the honest joins, votes and lesson changes, how many of them were
refused (the target is none, and a p95 of at most 2 s), and what the flooder got; and the same
class without the flooder, played just before in the same run, as the reference for the ratio.
The real lab over websockets: benchmarks/hostile_ws.py (the same attacks against a served lab).

Run: .venv/bin/python benchmarks/hostile_bench.py [--seconds 20]
"""

import argparse
import statistics
import threading
import time
import uuid
from collections import Counter, defaultdict

from classroom.questions import focus_question
from classroom.rooms import MemoryRooms, RoomError, TooManyTries
from core import AttentionConfig

STUDENTS = 30
LESSON = AttentionConfig()
QUESTION = focus_question(LESSON, 0, 1)
TEACHER, FLOODER = "10.0.2.1", "10.0.0.66"


class Run:
    def __init__(self, rooms, seconds: float):
        self.rooms, self.until = rooms, time.monotonic() + seconds
        self.times, self.refused, self.flood = defaultdict(list), Counter(), Counter()
        self.lock = threading.Lock()

    def timed(self, what: str, call):
        t0 = time.perf_counter()
        try:
            return call()
        except RoomError as err:
            with self.lock:
                self.refused[f"{what}: {str(err)[:60]}"] += 1
        finally:
            with self.lock:
                self.times[what].append(time.perf_counter() - t0)

    def going(self) -> bool:
        return time.monotonic() < self.until


def teacher(run: Run, key, ready: threading.Event):
    ready.wait()
    temperature, last_ask = 1.0, 0.0
    while run.going():
        temperature = 0.5 if temperature == 1.0 else 1.0
        lesson = LESSON.replace(temperature=temperature).to_json()
        run.timed("lesson change", lambda text=lesson: run.rooms.set_lesson(key, text))
        if time.monotonic() - last_ask > 4:
            run.rooms.ask(key, QUESTION)
            last_ask = time.monotonic()
        run.rooms.teacher_view(key)
        time.sleep(1.0)


def student(run: Run, code: str, i: int, joined: threading.Barrier):
    session, address = uuid.uuid4().hex, f"10.0.1.{i + 1}"
    run.timed("join", lambda: run.rooms.join(code, session, address))
    joined.wait()
    voted = 0
    while run.going():
        view = run.rooms.student_view(code, session)
        if view.round and view.round != voted and not view.revealed:
            run.timed("vote", lambda n=view.round: run.rooms.answer(code, session, n, i % len(QUESTION.choices)))
            voted = view.round
        time.sleep(0.5)


def flooder(run: Run, code: str, k: int):
    attacks = ("wrong code", "wrong PIN", "open", "seat grab")
    n = k
    while run.going():
        attack = attacks[n % len(attacks)]
        n += 1
        session = uuid.uuid4().hex
        try:
            if attack == "wrong code":
                run.rooms.join("AAAA-AAAA", session, FLOODER)
            elif attack == "wrong PIN":
                run.rooms.reclaim(code, "000000", session, FLOODER)
            elif attack == "open":
                run.rooms.open("123456", LESSON.to_json(), session, FLOODER)
            else:
                run.rooms.join(code, session, FLOODER)
            outcome = "let through"
        except TooManyTries:
            outcome = "refused: too many"
        except RoomError as err:
            outcome = "refused: full" if "already has" in str(err) else "wrong"
        with run.lock:
            run.flood[(attack, outcome)] += 1


def p95(xs: list) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(0.95 * len(xs)))]


def play(rooms, seconds: float, flooders: int = 4) -> Run:
    key = rooms.open("246810", LESSON.to_json(), uuid.uuid4().hex, TEACHER)
    run = Run(rooms, seconds)
    ready = threading.Event()
    joined = threading.Barrier(STUDENTS, action=ready.set)
    threads = [threading.Thread(target=flooder, args=(run, key.code, k)) for k in range(flooders)]
    threads += [threading.Thread(target=teacher, args=(run, key, ready))]
    threads += [threading.Thread(target=student, args=(run, key.code, i, joined)) for i in range(STUDENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    run.view = rooms.teacher_view(key)
    return run


def report(label: str, seconds: float, calm: Run, run: Run):
    print(f"\n{label}: {STUDENTS} students + teacher beside a flooder, {seconds:g} s")
    print("| honest action | count | p50 ms | p95 ms | max ms | refused | p95 / p95 without the flooder |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for what in ("join", "vote", "lesson change"):
        xs, ref = sorted(run.times[what]), p95(calm.times[what])
        refused = sum(n for k, n in run.refused.items() if k.startswith(what))
        print(f"| {what} | {len(xs)} | {1000 * statistics.median(xs):.1f} | {1000 * p95(xs):.1f} | "
              f"{1000 * xs[-1]:.1f} | {refused} | {p95(xs) / ref:.2f} ({1000 * ref:.1f} ms) |")
    for reason, n in run.refused.items():
        print(f"  refused: {n} × {reason}")
    print("flooder:", ", ".join(f"{a} {o}: {n}" for (a, o), n in sorted(run.flood.items())))
    print(f"room at the end: {run.view.members} members, {run.view.present} present")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15)
    args = parser.parse_args()
    calm = play(MemoryRooms(), args.seconds, flooders=0)
    report("in-process registry", args.seconds, calm, play(MemoryRooms(), args.seconds))
    import shutil

    if shutil.which("redis-server") is None:
        print("\nRedis registry: skipped (redis-server is not installed)")
        return
    from classroom.rooms.redis_rooms import RedisRooms
    from tests.classroom.conftest import redis_server  # the throwaway loopback server the tests use

    with redis_server() as client:
        calm = play(RedisRooms(client, prefix=f"bench-{uuid.uuid4().hex[:8]}:"), args.seconds, flooders=0)
        run = play(RedisRooms(client, prefix=f"bench-{uuid.uuid4().hex[:8]}:"), args.seconds)
        report("Redis registry", args.seconds, calm, run)


if __name__ == "__main__":
    main()
