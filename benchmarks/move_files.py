"""Which of our files one temperature move on page 1 enters: a profiler on an AppTest move.

    python benchmarks/move_files.py [--tree PATH]

Opens the lab in AppTest (page 1, the default lesson), then moves the sidebar's temperature
to 0.5 with a profiler on every thread, and lists each file of the tree (not tests/, not
benchmarks/) that a Python call entered, with its count of calls. `--tree` measures another
checkout (e.g. an old commit in a git worktree) with this same script: run it from that tree's
root so that its packages are the ones imported. tests/dashboard/test_move_files.py runs it and holds what it
lists to the files docs/performance.md names for this move.
"""

import argparse
import collections
import sys
import threading
from pathlib import Path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", default=str(Path(__file__).resolve().parents[1]))
    args = parser.parse_args()
    tree = Path(args.tree).resolve()
    sys.path.insert(0, str(tree))
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(tree / "dashboard" / "app.py"), default_timeout=60).run()
    slider = at.sidebar.select_slider(key="ctl_temperature")
    calls = collections.Counter()

    def profile(frame, event, arg):
        if event == "call":
            path = frame.f_code.co_filename
            if path.startswith(str(tree)) and not any(f"/{d}/" in path for d in (".venv", "tests", "benchmarks")):
                calls[path[len(str(tree)) + 1:]] += 1

    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        slider.set_value(0.5).run()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["lesson"].temperature == 0.5, "the move did not reach the lesson"
    for path, n in sorted(calls.items()):
        print(f"{n:6d}  {path}")
    print(f"{len(calls)} files, {sum(calls.values())} calls")


if __name__ == "__main__":
    main()
