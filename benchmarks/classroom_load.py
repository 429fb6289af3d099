"""A classroom at once: 30 student sessions on one lab server, some of them rendering videos.

Starts the lab (`streamlit run dashboard/app.py`, as `make classroom` does, but bound to
127.0.0.1 on a free port, with its render cache in a temporary folder), then:

1. memory: server RSS (from /proc) with 0 sessions (after one warm-up session, so that
   modules and shared caches are loaded), then with N idle sessions; the difference / N is
   the idle memory of one session;
2. load: every session changes a sidebar control (temperature, seed, ÷√d_k, the sentence,
   d_model) every 1-3 s for `--seconds`; `--renderers` of them first press "Render with my
   settings", each with a lesson of its own (a different seed), and keep moving controls;
3. drain: waits (bounded) for every requested video to appear in the cache.

Reported: p50/p95/max time from a change sent to that rerun finished (`script_finished`),
errors (exceptions or `st.error` on the page, dropped connections, reruns that never
finished), server RSS in total and per session, the render queue over time (finished mp4s
and running renders, i.e. `.`-prefixed temporary folders, in the cache; waiting = requested
- finished - running), and whether each renderer's page showed its video.

The client: Streamlit's own websocket protocol (`/_stcore/stream`, protobuf `BackMsg` /
`ForwardMsg` from `streamlit.proto`), not browser pages. Measured here (2 cores): 5 lab pages
in one headless Chromium take ~1.1 GB (PSS) and ~40 % of a core while each moves a slider every
2 s, so 30 pages would need ~2.4 cores for Chromium alone and the figures would measure
Chromium starving the server. The protocol client sends what the browser sends (a
`rerun_script` with the changed widget's state, the page and the query string; the
fragments' auto-reruns that poll render progress), all 30 sessions in one asyncio process at a
few % of a core (printed). Its "settled" is the server's side: the rerun's last delta and
`script_finished` received; the browser's paint adds tens of ms (benchmarks/dashboard_bench.py).

What it found (2-core machine, 30 × 60 s, 4 renders):
- Streamlit's `gc.collect()` after every run (runner.postScriptGC) walks the ~250 000 objects
  torch, Altair and pandas leave loaded: ~160 ms of server time per change, so 30 students
  saturate the one core the server's Python can use (p50 5.4 s, p95 7.1 s). With those
  objects frozen once (`gc.freeze()` after the first run) the same load gives p50 36 ms,
  p95 119 ms.
- Streamlit's file watcher (on by default) re-imports the dashboard in every session after a
  dashboard module changes on disk (a `git pull` or an edit during class); with 30 sessions
  some of those reruns failed with `KeyError: 'dashboard.video.studio'` inside the import
  machinery. This script serves with `--server.fileWatcherType none` so that edits in the
  checkout cannot leak into the figures; `--server-option server.fileWatcherType=auto`
  measures the default (without edits it costs nothing measurable).

    python benchmarks/classroom_load.py [--sessions 30] [--seconds 60] [--renderers 4]

A lecture hall (several lab processes behind HAProxy, `make hall`): see hall_load.py.

    python benchmarks/classroom_load.py --target http://127.0.0.1:8501 --sessions 30,100,200
    python benchmarks/classroom_load.py --hall 1,2 --sessions 30,100,200

Loopback only; every loop is bounded; the server is stopped at the end.
"""

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import hall_load
from lab_server import start_streamlit, stop
from streamlit_client import Session

EXTRA: list[str] = []  # extra `streamlit run` options (--server-option)


# -- the server -----------------------------------------------------------------------------
def start_server(media: Path):
    log = open(media / "server.log", "wb")  # noqa: SIM115 (the server writes it until it stops)
    return start_streamlit("dashboard/app.py", ("--server.fileWatcherType", "none", *EXTRA),
                           env={"ATTENTION_LAB_MEDIA": str(media)}, log=log)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def render_state(media: Path) -> tuple[int, int]:
    """(finished videos, renders running) as the cache folder shows them."""
    renders = media / "renders"
    if not renders.is_dir():
        return 0, 0
    finished = len(list(renders.glob("*/*.mp4")))
    running = sum(1 for d in renders.iterdir() if d.is_dir() and d.name.startswith("."))
    return finished, running


async def student(s: Session, stop_at: float, seed: int, render_seed: int | None):
    rng = random.Random(seed)
    if render_seed is not None:  # a lesson of its own, then the button
        await s.rerun({"ctl_seed": str(render_seed)})
        await s.rerun({"studio_render": True})
        s.stats["requested"] += 1
    while time.monotonic() < stop_at and not s.stats.get("stopping"):
        await s.think(rng.uniform(1.0, 3.0))
        if time.monotonic() >= stop_at:
            break
        change = s.random_change(rng)
        if render_seed is not None and "ctl_seed" in change:
            change = {"ctl_temperature": 1.0}  # keep the seed its video was made with
        took = await s.rerun(change)
        if took is not None:
            s.stats["times"].append(took)


# -- the run --------------------------------------------------------------------------------
async def sample_queue(media: Path, stats: dict, until):
    t0 = time.monotonic()
    while not until():
        finished, running = render_state(media)
        waiting = max(0, stats["requested"] - finished - running)
        stats["queue"].append((time.monotonic() - t0, finished, running, waiting))
        await asyncio.sleep(1.0)


async def classroom(port: int, pid: int, media: Path, args) -> dict:
    stats = {"errors": [], "times": [], "queue": [], "requested": 0}
    warm = Session(f"http://127.0.0.1:{port}", -1, stats)
    await warm.connect()
    await warm.close()
    await asyncio.sleep(3)
    rss0 = rss_mb(pid)
    sessions = [Session(f"http://127.0.0.1:{port}", i, stats) for i in range(args.sessions)]
    for s in sessions:  # one after another, as students arrive
        await s.connect()
    await asyncio.sleep(5)
    rss_idle = rss_mb(pid)
    stats["rss"] = {"no sessions": rss0, "idle": rss_idle, "per idle session": (rss_idle - rss0) / args.sessions}

    stop_at = time.monotonic() + args.seconds
    drained = False
    sampler = asyncio.create_task(sample_queue(media, stats, lambda: drained))
    peak = [rss_idle]

    async def watch_rss():
        while not drained:
            peak[0] = max(peak[0], rss_mb(pid))
            await asyncio.sleep(0.5)

    async def progress():
        t0, cpu0 = time.monotonic(), cpu_seconds(pid)
        while not drained:
            await asyncio.sleep(5)
            t, cpu = time.monotonic(), cpu_seconds(pid)
            print(f"  {t - t0:4.0f} s: {len(stats['times'])} changes, {len(stats['errors'])} errors, server "
                  f"{rss_mb(pid):.0f} MB, {100 * (cpu - cpu0) / 5:.0f} % CPU, renders {render_state(media)}",
                  file=sys.stderr, flush=True)
            cpu0 = cpu

    watcher = asyncio.gather(watch_rss(), progress())
    renderers = set(range(0, args.sessions, max(1, args.sessions // max(1, args.renderers)))[:args.renderers])
    await asyncio.gather(*(student(s, stop_at, i, 1000 + i if i in renderers else None)
                           for i, s in enumerate(sessions)))
    stats["rss"]["after load"] = rss_mb(pid)
    deadline = time.monotonic() + args.render_wait
    while time.monotonic() < deadline and render_state(media)[0] < stats["requested"]:
        await asyncio.sleep(1.0)
    for i in renderers:  # what each renderer's page shows now
        await sessions[i].rerun({})
    stats["videos shown"] = sum(sessions[i].saw_video for i in renderers)
    stats["render failed on page"] = sum(sessions[i].saw_failure for i in renderers)
    drained = True
    await asyncio.gather(sampler, watcher)
    stats["rss"]["peak"] = peak[0]
    stats["stopping"] = True
    return stats, sessions


def report(stats: dict, args, seconds: float):
    times = sorted(stats["times"])
    p = (lambda q: times[min(len(times) - 1, int(q * len(times)))] * 1000) if times else (lambda q: float("nan"))
    finished = stats["queue"][-1][1] if stats["queue"] else 0
    rss = stats["rss"]
    print(f"\n{args.sessions} sessions × {args.seconds:g} s, {args.renderers} rendering (wall {seconds:.0f} s)")
    print("| figure | value | goal |\n| --- | --- | --- |")
    print(f"| control changes measured | {len(times)} | |")
    cpu = 100 * stats["client cpu"] / seconds
    print(f"| load client CPU ({args.sessions} sessions, one process) | {cpu:.0f} % of a core | |")
    print(f"| change → settled p50 / p95 / max | {p(0.5):.0f} / {p(0.95):.0f} / {p(1.0) if times else 0:.0f} ms"
          f" | p95 < 1000 ms |")
    print(f"| errors | {len(stats['errors'])} | 0 |")
    print(f"| server RSS: no sessions / {args.sessions} idle / peak under load | {rss['no sessions']:.0f} / "
          f"{rss['idle']:.0f} / {rss['peak']:.0f} MB | |")
    print(f"| server RSS per idle session | {rss['per idle session']:.1f} MB | < 20 MB |")
    print(f"| server RSS per session under load (peak - none) / N | "
          f"{(rss['peak'] - rss['no sessions']) / args.sessions:.1f} MB | |")
    print(f"| renders requested / finished / shown on the page | {stats['requested']} / {finished} / "
          f"{stats['videos shown']} | all |")
    print("\nrender queue (t s: finished, running, waiting):")
    changes = [row for i, row in enumerate(stats["queue"]) if i == 0 or row[1:] != stats["queue"][i - 1][1:]]
    print("  " + "; ".join(f"{t:.0f}: {f}, {r}, {w}" for t, f, r, w in changes))
    for line in stats["errors"][:20]:
        print("  error:", line)
    if times:
        print(f"\n(mean {statistics.mean(times) * 1000:.0f} ms over {len(times)} changes)")


def server_tracebacks(log: Path, most: int = 3):
    """The server's distinct tracebacks (their last lines), to say what the errors were."""
    seen: dict[str, str] = {}
    for block in log.read_text(errors="replace").split("Traceback (most recent call last):")[1:]:
        lines = [ln for ln in block.strip().splitlines() if ln.strip()]
        seen.setdefault(lines[-1] if lines else "", "\n".join(lines[-8:]))
    print(f"\nserver tracebacks: {len(seen)} distinct")
    for text in list(seen.values())[:most]:
        print(text, "\n")


async def run_and_report(port, pid, media, args, t0):
    cpu0 = time.process_time()
    stats, sessions = await classroom(port, pid, media, args)
    stats["client cpu"] = time.process_time() - cpu0
    report(stats, args, time.monotonic() - t0)
    if stats["errors"]:
        server_tracebacks(media / "server.log")
    if args.keep_log:
        Path(args.keep_log).write_bytes((media / "server.log").read_bytes())
    await asyncio.gather(*(s.close() for s in sessions))


def main():
    if "--scenario" in sys.argv[1:]:  # `--scenario room`: a teacher's room of students answering
        import room_scenario

        return room_scenario.main(sys.argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", default="30", help="sessions; a list (30,100,200) with --target or --hall")
    parser.add_argument("--target", metavar="URL", help="load this running hall or lab (loopback) instead")
    parser.add_argument("--hall", metavar="N,M", help="start halls of N and M lab processes and load each in turn")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--renderers", type=int, default=4, help="sessions that also request a video")
    parser.add_argument("--render-wait", type=float, default=600.0, help="at most this long for renders to finish")
    parser.add_argument("--server-option", action="append", default=[], metavar="NAME=VALUE",
                        help="a `streamlit run` option, e.g. runner.postScriptGC=false (repeatable)")
    parser.add_argument("--keep-log", metavar="PATH", help="copy the server's log here")
    args = parser.parse_args()
    sizes = [int(n) for n in args.sessions.split(",")]
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    if args.target:
        return hall_load.target(args.target, sizes, args.seconds)
    if args.hall:
        return hall_load.halls([int(n) for n in args.hall.split(",")], sizes, args.seconds)
    args.sessions = sizes[0]
    for option in args.server_option:
        name, _, value = option.partition("=")
        EXTRA.extend([f"--{name.removeprefix('--')}", value])
    print(f"server options: --server.fileWatcherType none {' '.join(EXTRA)}", flush=True)
    with tempfile.TemporaryDirectory(prefix="classroom-") as tmp:
        media = Path(tmp)
        proc, port = start_server(media)
        t0 = time.monotonic()
        try:
            asyncio.run(run_and_report(port, proc.pid, media, args, t0))
        finally:
            stop(proc)


if __name__ == "__main__":
    main()
