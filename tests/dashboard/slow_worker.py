"""A stand-in for `python -m animations._worker JOB.json` that never finishes: it records that it
started (its pid, and its child's, on a line of $LAB_TEST_STARTS), starts a child of its own (as manim
starts ffmpeg), says it has one animation to draw, and waits. Only a kill ends it."""

import json
import os
import subprocess
import sys
import time

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
with open(os.environ["LAB_TEST_STARTS"], "a", encoding="utf-8") as f:
    f.write(f"{os.getpid()} {child.pid}\n")
print(json.dumps({"event": "total", "total": 1}), flush=True)
time.sleep(3600)
