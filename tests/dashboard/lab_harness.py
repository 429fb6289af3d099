"""The real lab server (`dashboard.serve.main`) with a room and renders set up inside it, for tests
that attack a running server (tests/dashboard/test_hostile_server.py); run as a script:

    python tests/dashboard/lab_harness.py STREAMLIT_OPTIONS...

Environment: LAB_TEST_RENDERS (renders to queue at start, all from one session, default 0),
LAB_TEST_STARTS (the file each render's stand-in worker, slow_worker.py, records its start in),
LAB_TEST_CODES_PER_ADDRESS (the room registry's wrong codes per network address and minute: a
test of the limit's wiring then needs a few sessions, not 31), LAB_TEST_PRESENT_SECONDS (how long a
seat stays present after its last poll: a test whose sessions end after one run sets it long).
It opens a room with PIN 246810 and prints one JSON line {"code": ...} once set up. Each line "check"
on stdin is answered with one JSON line: whether the room opened at start is still there and
whether the render queue still refuses a 4th render of the session that asked for 3, the room's
seats (their device numbers, in the order they joined) and its members; "ask N" asks the question of the
default deck's screen N in the room, "reveal" reveals it, "cpu ADDRESS" gives the CPU seconds that device may
still spend (each answered with one JSON line). LAB_TEST_CPU_PER_S sets a device's CPU refill rate.
"""

import json
import os
import sys
import threading
from pathlib import Path

from animations import render
from classroom.rooms import MemoryRooms, RoomLimits
from core import PRESETS
from dashboard import serve
from dashboard.process import Held
from dashboard.room import session
from dashboard.video import studio

render.WORKER = [str(Path(__file__).with_name("slow_worker.py"))]  # no manim: a render that never ends
LESSON = PRESETS["default"]
SCENES = ("scores", "masking", "multihead", "scaling")


def lessons():
    seed = 1000
    while True:
        seed += 1
        yield LESSON.replace(seed=seed)


def check(key, made):
    members = None
    try:
        view = session.registry().teacher_view(key)
        devices, members = [m.device for m in view.roster], view.members
        room = "open"
    except Exception as err:  # what a page would say: the room is gone
        room, devices = f"gone: {err}", []
    try:
        studio.service().submit("scores", next(made), session="greedy", voice=None)
        limit = "broken: a 4th render of one session was queued"
    except Exception as err:
        limit = f"held: {err}"
    return {"room": room, "limit": limit, "devices": devices, "members": members}


def ask_screen(number: int):
    from classroom.decks import default_deck
    from dashboard.present import deck as decks

    return decks.question_of(default_deck(decks.names()).screens[number - 1])


def main():
    settings = {"wrong_codes_per_address": "LAB_TEST_CODES_PER_ADDRESS", "present_seconds": "LAB_TEST_PRESENT_SECONDS"}
    if given := {k: float(os.environ[v]) for k, v in settings.items() if os.environ.get(v)}:
        limits = RoomLimits(**{k: int(v) if k.startswith("wrong") else v for k, v in given.items()})
        session.registry = Held(lambda: MemoryRooms(limits))  # what every page calls: session.registry()
    if os.environ.get("LAB_TEST_CPU_PER_S"):
        from dashboard import devices

        devices.CPU_PER_S = float(os.environ["LAB_TEST_CPU_PER_S"])
    key = session.registry().open("246810", LESSON.to_json())
    made = lessons()
    for i in range(int(os.environ.get("LAB_TEST_RENDERS", "0"))):
        studio.service().submit(SCENES[i % len(SCENES)], next(made), session="greedy" if i < 3 else f"s{i}",
                                voice=None)
    print(json.dumps({"code": key.code}), flush=True)

    def answer():
        for line in sys.stdin:
            if line.strip() == "check":
                print(json.dumps(check(key, made)), flush=True)
            elif line.startswith("ask "):  # the question of the default deck's screen N, in the room
                print(json.dumps({"round": session.registry().ask(key, ask_screen(int(line.split()[1])))}), flush=True)
            elif line.startswith("cpu "):  # the CPU seconds a device may still spend (dashboard/devices.py)
                from dashboard import devices

                with devices.DEVICES._lock:
                    print(json.dumps({"left": devices.DEVICES._cpu_left(line.split()[1])}), flush=True)
            elif line.strip() == "reveal":
                session.registry().reveal(key)
                print(json.dumps({"revealed": True}), flush=True)

    threading.Thread(target=answer, daemon=True).start()
    serve.main(sys.argv[1:])


if __name__ == "__main__":
    main()
