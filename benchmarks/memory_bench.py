"""How much memory one lab process takes: fresh, and when clients open the largest lessons.

    python benchmarks/memory_bench.py [--lessons 20] [--pages default-page,multi-head,...] [--clients 1]

Starts the lab on a loopback port (lab_server.start_streamlit, as `make run` serves it), then over
Streamlit's own websocket protocol (streamlit_client.Session):

1. fresh: the server's RSS once it answers, and after one session opened the default page;
2. per page kind: `--clients` sessions open that page `--lessons` times, each time with another
   of the largest lessons a link may ask for (64 tokens, d_model 1024, 16 heads, a new seed: every
   one a cache miss); the highest RSS sampled after each round, and the RSS 2 s after the page's
   last round, are printed (docs/performance.md, "Hostile class (issue 28)").

Loopback only; every loop is bounded; the server is stopped at the end.
"""

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from lab_server import start_streamlit, stop
from streamlit.util import calc_hash
from streamlit_client import Session

PAGES = ("default-page", "multi-head", "masking", "why-scale", "positional", "block", "compare", "lecture")
LARGEST = "seq_len=64&d_model=1024&num_heads=16"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def open_page(port: int, page: str, query: str, stats: dict) -> None:
    s = Session(f"http://127.0.0.1:{port}", 0, stats)
    s.page_hash, s.query = calc_hash(page), query
    await s.connect()
    await s.close()


async def run(port: int, pid: int, args) -> None:
    stats = {"errors": []}
    print(f"fresh server: {rss_mb(pid):.0f} MB", flush=True)
    await open_page(port, "default-page", "", stats)
    await asyncio.sleep(1)
    print(f"after one session on the default page: {rss_mb(pid):.0f} MB", flush=True)
    seed = 0
    for page in args.pages.split(","):
        peak = 0.0
        for _ in range(args.lessons):
            seed += 1
            await asyncio.gather(*(open_page(port, page, f"{LARGEST}&seed={seed * 100 + c}", stats)
                                   for c in range(args.clients)))
            peak = max(peak, rss_mb(pid))
        await asyncio.sleep(2)
        print(f"{page:14s} peak {peak:6.0f} MB, after {rss_mb(pid):6.0f} MB", flush=True)
    print(f"errors: {len(stats['errors'])} {stats['errors'][:3]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lessons", type=int, default=20)
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--pages", default=",".join(PAGES))
    parser.add_argument("--tree", type=Path, default=None, help="another checkout to serve (e.g. main's, for a before)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as media:
        tree = {"tree": args.tree.resolve()} if args.tree else {}
        proc, port = start_streamlit("dashboard/app.py", ("--server.fileWatcherType", "none"),
                                     env={"ATTENTION_LAB_MEDIA": media}, **tree)
        try:
            time.sleep(1)
            asyncio.run(run(port, proc.pid, args))
        finally:
            stop(proc)


if __name__ == "__main__":
    main()
