"""`make hall`: the lab for a lecture hall, N processes behind HAProxy on one machine.

    python -m hall [--workers N] [--bind 0.0.0.0] [--port 8501]

Stops everything on Ctrl+C or SIGTERM. Logs, the HAProxy configuration and hall.json (ports,
pids and the Redis URL, readable by this user only) are in --run-dir.
"""

import argparse
import os
import signal
import socket
import sys
from pathlib import Path

from .run import Hall, default_workers


def parse_args(argv=None):
    media = Path(os.environ.get("ATTENTION_LAB_MEDIA", "media")).resolve()
    parser = argparse.ArgumentParser(prog="python -m hall", description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=default_workers(),
                        help=f"lab processes (default: cores - 1, at least 2; here {default_workers()})")
    parser.add_argument("--bind", default="0.0.0.0", help="the classroom's address (default: every interface)")
    parser.add_argument("--port", type=int, default=8501)
    parser.add_argument("--render-workers", type=int, default=max(1, (os.cpu_count() or 2) - 1),
                        help="render worker processes (python -m jobs.worker; default: cores - 1, at least 1)")
    parser.add_argument("--run-dir", type=Path, default=media / "hall", help="logs and hall.json")
    args = parser.parse_args(argv)
    if not 1 <= args.workers <= 64:
        parser.error("--workers: 1 to 64 lab processes")
    if not 1 <= args.render_workers <= 64:
        parser.error("--render-workers: 1 to 64 render workers")
    args.media = media
    return args


def main(argv=None):
    args = parse_args(argv)
    hall = Hall(args.workers, args.bind, args.port, args.run_dir.resolve(), args.media, args.render_workers,
                say=lambda text: print(text, flush=True))
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # while starting, SIGTERM acts as Ctrl+C
    try:
        hall.start()
    except (RuntimeError, TimeoutError, FileNotFoundError, KeyboardInterrupt) as err:
        print(f"The hall could not start: {err or 'interrupted'}", file=sys.stderr, flush=True)
        hall.sup.stop()
        sys.exit(1)
    renders = f"{args.render_workers} render worker{'s' * (args.render_workers != 1)} (RQ)"
    where = "every interface" if args.bind == "0.0.0.0" else args.bind
    print(f"attention-lab hall: {args.workers} lab processes behind HAProxy, Redis on loopback, {renders}.\n"
          f"  Students open http://{socket.gethostname()}:{args.port} (or this machine's address; listening on "
          f"{where}).\n"
          f"  Logs and hall.json: {hall.run_dir}\n  Ctrl+C stops the hall.", flush=True)
    hall.sup.run()
    print("The hall has stopped.", flush=True)


if __name__ == "__main__":
    main()
