"""From "render" pressed to a playable video: scene 1 of the default lesson, cold and cached,
through the in-process render service (a laptop) and through the RQ one (the hall), same run.

Measured at the render service the dashboard uses (queue, worker process, manim, cache,
index): cold is submit -> video on disk and readable by PyAV, with empty render and speech
caches; cached is the same request from a new service (as after a restart of the app). The RQ
backend runs as in `make hall`: a Redis on loopback and one `python -m jobs.worker` of the renders,
started (and idle) before the clock starts; its job's state is read every 0.25 s. The two
backends alternate, round by round, so that both meet the same load on this machine.
Goal: under 15 s cold, under 1 s cached; RQ within 10 % of in-process cold.

    .venv/bin/python benchmarks/studio_bench.py [--rounds 2]
"""

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import av
from lab_server import ROOT

from animations.catalog import LECTURE
from animations.service import RenderService, RQRenderService
from core import PRESETS
from dashboard.serve import free_port
from hall import redis_server

GOAL_COLD_S, GOAL_CACHED_S, GOAL_RQ_RATIO = 15.0, 1.0, 1.10


def playable(movie) -> bool:
    with av.open(str(movie)) as container:
        return next(container.decode(video=0), None) is not None


def press_render(service, scene: str) -> float:
    start = time.perf_counter()
    job = service.submit(scene, PRESETS["default"], "low")
    job.wait()
    if job.state != "done" or not playable(job.path):
        raise SystemExit(f"render failed: {job.error}\n{job.log}")
    return time.perf_counter() - start


def emptied(media: Path) -> Path:
    """`media` without its render and speech caches: the next render is cold."""
    for folder in ("renders", "tts"):
        shutil.rmtree(media / folder, ignore_errors=True)
    return media


@contextlib.contextmanager
def rq_hall(media: Path, folder: Path):
    """Redis as `make hall` starts it, and one render worker on `media`; yields the Redis URL."""
    password, port = redis_server.new_password(), free_port()
    redis = subprocess.Popen(["redis-server", "-"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    redis.stdin.write(redis_server.redis_config(password, port).encode())
    redis.stdin.close()
    url = redis_server.redis_url(password, port)
    env = {**os.environ, "ATTENTION_LAB_REDIS_URL": url, "ATTENTION_LAB_MEDIA": str(media)}
    env.pop("ATTENTION_LAB_TEST_RENDER", None)
    worker = None
    try:
        redis_server.wait_ready(redis, password, port)
        with open(folder / "render-worker.log", "wb") as log:
            worker = subprocess.Popen([sys.executable, "-m", "jobs.worker", "animations.service:worker_task"], cwd=ROOT,
                                      env=env, stdout=log, stderr=subprocess.STDOUT)
        probe = RQRenderService(url, media_dir=media)
        deadline = time.monotonic() + 120
        while not probe.queue.workers():
            if worker.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the render worker did not start: see {folder / 'render-worker.log'}")
            time.sleep(0.2)
        probe.shutdown()
        yield url
    finally:
        for proc in (worker, redis):
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=60)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2, help="cold renders per backend, alternating")
    args = parser.parse_args()
    scene = LECTURE[0]
    with tempfile.TemporaryDirectory(prefix="studio-bench-") as tmp:
        local, queued = Path(tmp) / "in-process", Path(tmp) / "rq"
        local.mkdir()
        queued.mkdir()
        with rq_hall(queued, Path(tmp)) as url:
            backends = {"in-process": lambda: RenderService(media_dir=local),
                        "rq": lambda: RQRenderService(url, media_dir=queued)}
            media = {"in-process": local, "rq": queued}
            cold = {name: [] for name in backends}
            for r in range(args.rounds):
                for name in (list(backends) if r % 2 == 0 else list(backends)[::-1]):
                    emptied(media[name])
                    cold[name].append(press_render(backends[name](), scene))
                    print(f"round {r + 1}: {name:<10} cold {cold[name][-1]:6.2f} s", flush=True)
            cached = {name: min(press_render(make(), scene) for _ in range(5)) for name, make in backends.items()}
    report(scene, cold, cached)
    return 0


def report(scene: str, cold: dict, cached: dict):
    print(f"\n{'backend':<11} {'scene':<8} {'cold s (median)':>16} {'cached s':>9}")
    for name in cold:
        print(f"{name:<11} {scene:<8} {statistics.median(cold[name]):16.2f} {cached[name]:9.4f}")
    ratio = statistics.median(cold["rq"]) / statistics.median(cold["in-process"])
    paired = ", ".join(f"{q / p:.2f}" for q, p in zip(cold["rq"], cold["in-process"], strict=True))
    print(f"pressed -> playable, RQ / in-process (cold, medians of {len(cold['rq'])}): {ratio:.2f} "
          f"(round by round: {paired})")
    worst_cold, worst_cached = max(map(statistics.median, cold.values())), max(cached.values())
    print(f"goal: cold < {GOAL_COLD_S:g} s ({'met' if worst_cold < GOAL_COLD_S else 'NOT met'}), "
          f"cached < {GOAL_CACHED_S:g} s ({'met' if worst_cached < GOAL_CACHED_S else 'NOT met'}), "
          f"RQ / in-process <= {GOAL_RQ_RATIO:g} ({'met' if ratio <= GOAL_RQ_RATIO else 'NOT met'})")


if __name__ == "__main__":
    raise SystemExit(main())
