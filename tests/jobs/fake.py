"""A task for the jobs tests, run in both backends (the worker makes it with `tests.jobs.fake:worker_task`).

A request is a dict: `name` (its key), `steps` (its cost and progress total), `step_s` (seconds
per step) and `how`: "ok" writes the file `<root>/<name>` and returns its path, "fail" raises
Failed with a sentence and a log, "crash" raises a ValueError (a bug). Each step reports
progress(step, steps, last=step) and looks at should_stop(). In-process only: a `hold` request's
run waits for the task's `gate` before its first step.
"""

import os
import threading
import time
from pathlib import Path

from jobs import Failed, Task, Words

WORDS = Words(busy="You have {limit} already.", full=lambda entries, pace, workers: (
    f"Full: {len(entries)} jobs, {sum(e.left for e in entries) * pace / workers:g} s ahead."),
    unavailable="Redis does not answer.", stopping="Shutting down.", stopped="Stopped.", crashed="A bug.",
    died="Its worker died.", lost="Lost.", gone="Gone.", timed_out="Too long.", other_version="Other version.",
    abandoned="Nobody waited.")


def request(name: str, steps: int = 3, step_s: float = 0.0, how: str = "ok", hold: bool = False) -> dict:
    return {"name": name, "steps": steps, "step_s": step_s, "how": how, "hold": hold}


class Fake(Task):
    name, words, paced, default_pace, retries = "test-fake", WORDS, True, 1.0, 1

    def __init__(self, root):
        self.root, self.gate, self.runs = Path(root), threading.Event(), []

    def key(self, request: dict) -> str:
        return request["name"]

    def cost(self, request: dict) -> float:
        return request["steps"]

    total = cost

    def done(self, request: dict):
        path = self.root / request["name"]
        return path if path.is_file() else None

    def run(self, request: dict, progress, should_stop):
        self.runs.append(request["name"])
        assert not request["hold"] or self.gate.wait(30), "the test never opened the gate"
        for step in range(1, request["steps"] + 1):
            if should_stop():
                raise Failed(WORDS.stopped)
            time.sleep(request["step_s"])
            progress(step, request["steps"], last=step)
        if request["how"] == "fail":
            raise Failed("It failed, as asked.", "the details")
        if request["how"] == "crash":
            raise ValueError("a fake bug")
        progress.worked(0.5 * request["steps"])  # as if the work itself took 0.5 s a step
        path = self.root / request["name"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("made", encoding="utf-8")
        return path


def worker_task() -> Fake:
    return Fake(os.environ["ATTENTION_LAB_MEDIA"])
