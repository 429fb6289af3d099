"""Where one lab process's time goes under a class's load: py-spy on the server, by category.

    python benchmarks/rerun_profile.py [--sessions 100] [--seconds 40] [--server-option runner.postScriptGC=true]

Starts one lab (as `make classroom` does, on loopback), plays `--sessions` students (each
changing a control every 1-3 s, hall_load.py's client), and samples the server with py-spy
(`--gil`: only the thread holding the GIL, which is the one core's worth of Python work a
lab process has; `--nonblocking`: the server is not paused to be sampled) over the middle of
the load. Each sample is put in the first category whose rule matches its stack; the report
gives each category's share and its milliseconds of GIL time per rerun (samples x interval /
reruns finished while sampling).

py-spy is a dev tool (requirements-dev.txt); it needs to ptrace the server (root, or
CAP_SYS_PTRACE, or kernel.yama.ptrace_scope = 0).
"""

import argparse
import asyncio
import collections
import shutil
import tempfile
from pathlib import Path

import hall_load
from lab_server import start_streamlit, stop

RATE = 100  # samples per second
# (category, rule over the stack's frames) in order: the first rule that matches takes the sample.
CATEGORIES = [
    ("Streamlit's gc.collect() after each run (runner.postScriptGC)", lambda f: f[-1].startswith(
        "ScriptRunner._on_script_finished")),
    ("event loop: websocket, messages out, health", lambda f: f[0].endswith("MainThread")),
    ("chart data → Arrow, Vega-Lite element (Streamlit)", lambda f: _any(f, "streamlit/elements/vega_charts.py")),
    ("Altair: building and copying chart objects", lambda f: _any(f, "altair/")),
    ("pandas: building the charts' tables", lambda f: _any(f, "pandas/") and _any(f, "dashboard/charts/heatmaps.py")),
    ("core: computing the trace (cache misses)", lambda f: _any(f, "core/")),
    ("sidebar controls and URL (dashboard/controls.py)", lambda f: _any(f, "dashboard/controls.py")),
    ("other widgets and text of the pages", lambda f: _any(f, "code_to_exec")),
    ("Streamlit around the run (session, widgets' state, messages)", lambda f: _any(f, "script_runner.py")),
    ("anything else", lambda f: True),
]


def _any(frames, text: str) -> bool:
    return any(text in frame for frame in frames)


def categorise(raw: Path) -> tuple[collections.Counter, int]:
    counts, total = collections.Counter(), 0
    for line in raw.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        frames = stack.split(";")
        frames[0] = frames[0].split(": ", 1)[-1]  # "thread (123): MainThread" -> "MainThread"
        name = next(name for name, rule in CATEGORIES if rule(frames))
        counts[name] += int(n)
        total += int(n)
    return counts, total


async def load_and_sample(url: str, pid: int, args, raw: Path) -> dict:
    run = asyncio.create_task(hall_load.one_run(url, args.sessions, args.seconds, {"lab": pid}))
    while not run.done() and len(hall_load.LAST_TIMES) == 0:  # wait for the load phase to start
        await asyncio.sleep(0.2)
    await asyncio.sleep(args.seconds * 0.2)
    before = len(hall_load.LAST_TIMES)
    spy = await asyncio.create_subprocess_exec(
        args.py_spy, "record", "-p", str(pid), "-d", str(int(args.seconds * 0.6)), "-r", str(RATE), "--gil",
        "--nonblocking", "--threads", "--format", "raw", "-o", str(raw),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    _, err = await spy.communicate()
    sampled = len(hall_load.LAST_TIMES) - before
    result = await run
    if spy.returncode != 0:
        raise RuntimeError(f"py-spy failed: {err.decode(errors='replace')[-500:]}")
    return {**result, "reruns sampled": sampled}


def report(counts, total, result, args):
    per_run = 1000 / RATE / max(1, result["reruns sampled"])
    print(f"{args.sessions} sessions: {result['reruns/s']:.1f} reruns/s, p50 / p95 {result['p50']:.0f} / "
          f"{result['p95']:.0f} ms, {result['errors']} errors, server CPU {result['cpu']['lab']:.0f} % of a core")
    print(f"GIL samples: {total} ({total / RATE:.1f} s held) over {result['reruns sampled']} reruns: "
          f"{total * per_run:.1f} ms of GIL time per rerun\n")
    print("| where | share | ms per rerun |\n| --- | --- | --- |")
    for name, _ in CATEGORIES:
        if counts[name]:
            print(f"| {name} | {100 * counts[name] / total:.0f} % | {counts[name] * per_run:.1f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--server-option", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--keep", metavar="PATH", help="keep py-spy's raw stacks here")
    parser.add_argument("--py-spy", default=shutil.which("py-spy") or str(Path(__import__("sys").executable).with_name(
        "py-spy")))
    args = parser.parse_args()
    options = [part for o in args.server_option for part in (f"--{o.partition('=')[0]}", o.partition("=")[2])]
    with tempfile.TemporaryDirectory(prefix="rerun-profile-") as tmp:
        proc, port = start_streamlit("dashboard/app.py", ("--server.fileWatcherType", "none", *options),
                                     env={"ATTENTION_LAB_MEDIA": tmp})
        try:
            raw = Path(args.keep or Path(tmp) / "stacks.txt")
            result = asyncio.run(load_and_sample(f"http://127.0.0.1:{port}", proc.pid, args, raw))
            report(*categorise(raw), result, args)
        finally:
            stop(proc)


if __name__ == "__main__":
    main()
