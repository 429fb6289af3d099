"""A hall under load: student sessions through HAProxy, for several class sizes and hall sizes.

Driven from classroom_load.py:

    python benchmarks/classroom_load.py --target http://127.0.0.1:8501 --sessions 30,100,200
    python benchmarks/classroom_load.py --hall 1,2 --sessions 30,100,200 [--seconds 60]

`--target` loads a hall (or one lab) that is already running. `--hall 1,2` starts a hall of 1
and one of 2 lab processes (`python -m hall` on loopback, each with its own HAProxy and Redis),
then plays each class size on each hall in turn, so that both halls meet the same machine
(the same neighbours) and their figures can be compared as ratios. Every session changes a
sidebar control every 1-3 s, as in classroom_load.py, without renders (they would take a core
of this 2-core machine away from the labs being compared).

Reported per run: control changes measured, reruns per second (changes finished / seconds),
change -> settled p50 / p95 / max, errors (reruns not finished within 30 s, dropped
connections, exceptions on the page), each lab process's CPU (% of one core) and the load
client's own CPU.
"""

import asyncio
import contextlib
import os
import random
import tempfile
import time
from pathlib import Path

from streamlit_client import Session

from hall.background import running_hall

LAST_TIMES: list[float] = []  # the running load's finished changes so far (for rerun_profile.py)


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:  # the process was restarted meanwhile
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def student(s: Session, stop_at: float, seed: int):
    rng = random.Random(seed)
    while time.monotonic() < stop_at:
        await s.think(rng.uniform(1.0, 3.0))
        if time.monotonic() >= stop_at:
            break
        took = await s.rerun(s.random_change(rng))
        if took is not None:
            s.stats["times"].append(took)


async def arrive(url: str, count: int, stats: dict) -> list[Session]:
    """Students open the lab one after another; a connection refused counts as an error."""
    sessions = []
    for i in range(count):
        s = Session(url, i, stats)
        try:
            await asyncio.wait_for(s.connect(), 60)
        except (OSError, TimeoutError, KeyError) as err:
            s.error(f"could not connect: {err!r}")
            continue
        sessions.append(s)
    return sessions


async def one_run(url: str, count: int, seconds: float, pids: dict[str, int]) -> dict:
    LAST_TIMES.clear()
    stats = {"errors": [], "times": LAST_TIMES}
    sessions = await arrive(url, count, stats)
    await asyncio.sleep(2)
    cpu0 = {name: cpu_seconds(pid) for name, pid in pids.items()}
    client0, t0 = time.process_time(), time.monotonic()
    await asyncio.gather(*(student(s, t0 + seconds, 1000 * count + i) for i, s in enumerate(sessions)))
    elapsed = time.monotonic() - t0
    cpu = {name: 100 * (cpu_seconds(pid) - cpu0[name]) / elapsed for name, pid in pids.items()}
    stats["stopping"] = True
    await asyncio.gather(*(s.close() for s in sessions))
    times = sorted(stats["times"])  # (a copy: LAST_TIMES stays as it was)
    pct = (lambda q: 1000 * times[min(len(times) - 1, int(q * len(times)))]) if times else (lambda q: float("nan"))
    return {"sessions": count, "changes": len(times), "reruns/s": len(times) / elapsed, "p50": pct(0.5),
            "p95": pct(0.95), "max": pct(1.0), "errors": len(stats["errors"]), "cpu": cpu,
            "client cpu": 100 * (time.process_time() - client0) / elapsed, "first errors": stats["errors"][:3]}


def row_text(label: str, r: dict) -> str:
    labs = " / ".join(f"{v:.0f}" for k, v in r["cpu"].items() if k.startswith("lab"))
    proxy = f"{r['cpu']['haproxy']:.0f}" if "haproxy" in r["cpu"] else "-"
    return (f"| {label} | {r['sessions']} | {r['changes']} | {r['reruns/s']:.1f} | {r['p50']:.0f} / {r['p95']:.0f} / "
            f"{r['max']:.0f} | {r['errors']} | {labs or '-'} | {proxy} | "
            f"{r['client cpu']:.0f} |")


HEADER = ("| hall | sessions | changes | reruns/s | change → settled p50 / p95 / max (ms) | errors | "
          "lab CPU (% of a core, each) | HAProxy CPU % | load client CPU % |\n" + "| --- " * 9 + "|")


def target(url: str, sizes: list[int], seconds: float):
    print(HEADER)
    for n in sizes:
        r = asyncio.run(one_run(url, n, seconds, {}))
        print(row_text(url, r), flush=True)
        for line in r["first errors"]:
            print("  error:", line)


def halls(sizes_of_halls: list[int], sizes: list[int], seconds: float, pause: float = 5.0):
    """Start every hall, then play each class size on each hall in turn."""
    with tempfile.TemporaryDirectory(prefix="hall-load-") as tmp, contextlib.ExitStack() as stack:
        running = {w: stack.enter_context(running_hall(Path(tmp) / f"hall{w}", workers=w)) for w in sizes_of_halls}
        rows = []
        print(HEADER, flush=True)
        for n in sizes:
            for w, h in running.items():
                pids = {k: v for k, v in h.current()["processes"].items() if k.startswith("lab") or k == "haproxy"}
                r = asyncio.run(one_run(h.info["url"], n, seconds, pids))
                rows.append((w, r))
                print(row_text(f"{w} lab process{'es' if w > 1 else ''}", r), flush=True)
                for line in r["first errors"]:
                    print("  error:", line)
                time.sleep(pause)
        summary(rows, sizes_of_halls)
        for w, h in running.items():  # an overloaded process failing its health checks would drop its class
            log = (h.run_dir / "haproxy.log").read_text(errors="replace").splitlines()
            downs = sum(line.startswith("Server labs/") and " is DOWN" in line for line in log)
            print(f"hall of {w}: lab processes marked down by HAProxy during the run: {downs}")


def summary(rows: list[tuple[int, dict]], sizes_of_halls: list[int]):
    if len(sizes_of_halls) < 2:
        return
    one, most = min(sizes_of_halls), max(sizes_of_halls)
    print(f"\n| sessions | p95 with {most} ÷ with {one} | reruns/s with {most} ÷ with {one} |\n| --- | --- | --- |")
    by = {(w, r["sessions"]): r for w, r in rows}
    for n in sorted({r["sessions"] for _, r in rows}):
        a, b = by[(one, n)], by[(most, n)]
        print(f"| {n} | {b['p95'] / a['p95']:.2f} | {b['reruns/s'] / a['reruns/s']:.2f} |")
