"""A classroom room under load: one teacher and N students' phones on one lab server.

    python benchmarks/classroom_load.py --scenario room [--students 30] [--rounds 4]
    python benchmarks/room_scenario.py [--students 30] [--rounds 4]

Starts the lab on a loopback port (as classroom_load.py does), then, over Streamlit's own
websocket protocol (streamlit_client.Session: what a browser sends, without 31 Chromiums):

1. the teacher opens a room on the Room page (PIN form); N students open /room?code=… (the
   QR code's address) and poll as their pages do (the panel's auto-rerun, every 1.5 s);
2. the teacher changes the lesson (temperature): time until each follower's page shows it;
3. per round: the teacher asks; time from the ask to each student's page showing the question;
   every student answers (after 0.5-3 s of reading); time from each answer to the teacher's
   live count (the teacher's panel polls every 1 s) including it; then the reveal: time until
   each student's page shows the truth;
4. memory: server RSS before the students, and with N students joined and polling.

Reported: p50 / p95 / max of each time (goal: p95 ≤ 2 s), errors (exceptions or st.error on a
page, dropped connections, reruns that never finished), RSS per student, the client's CPU.
"""

import argparse
import asyncio
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

from lab_server import start_streamlit
from streamlit.util import calc_hash
from streamlit_client import Session

ROOM = calc_hash("room")  # st.Page's script hash is its url_path's hash
PIN = "504030"
QUESTION = re.compile(r"\*\*Question (\d+):\*\*")
ANSWERED = re.compile(r"(\d+) answered of (\d+) present")


class Member(Session):
    """A browser tab on the Room page that remembers when each text first reached it."""

    def __init__(self, port: int, name: int, stats: dict, query: str = ""):
        super().__init__(port, name, stats)
        self.port, self.page_hash, self.query = port, ROOM, query  # connect() below uses the port itself
        self.turn = asyncio.Lock()  # one rerun at a time, as a browser tab waits for its own
        self.seen: dict[str, float] = {}  # text marker -> when it first arrived
        self.options: list[str] = []  # the pills' options as sent (Markdown-escaped labels)
        self.answered, self.round = -1, 0  # the teacher's count, and the question it counts
        self.polls, self.counted = 0, 0

    async def connect(self):
        import websockets

        self.ws = await websockets.connect(f"ws://127.0.0.1:{self.port}/_stcore/stream", max_size=None,
                                           ping_interval=None)
        self.reader = asyncio.create_task(self._read())
        await self.send({})

    def _handle(self, msg):
        kind = msg.WhichOneof("type")
        if kind == "new_session" and not msg.metadata.run.fragment_ids:  # a full run: fragments register anew
            self.fragments.clear()
        elif kind == "stop_auto_rerun":
            for fragment in msg.stop_auto_rerun.fragment_ids:
                self.fragments.pop(fragment, None)
        super()._handle(msg)

    def _element(self, el):
        super()._element(el)
        kind, now = el.WhichOneof("type"), time.monotonic()
        if kind == "markdown":
            body = el.markdown.body
            for n in QUESTION.findall(body):
                self.round = int(n)
                self.seen.setdefault(f"question {n}", now)
            revealed = ["revealed"] if body.startswith("**The answer:**") else []
            for marker in re.findall(r"temperature \S+", body) + revealed:
                self.seen.setdefault(marker, now)
            if m := ANSWERED.search(body):  # the teacher's count of the round on screen
                self.answered = max(self.answered, int(m.group(1))) if self.round == self.counted else int(m.group(1))
                self.counted = self.round
                self.seen.setdefault(f"round {self.round}: {m.group(1)} answered", now)
        elif kind == "button_group":
            self.options = [o.content for o in el.button_group.options]

    async def send(self, states: dict, triggers: tuple = (), fragment: str = "", auto: bool = False):
        """One rerun: widget values by key, buttons pressed by key; seconds until it finished."""
        async with self.turn:
            return await self.rerun(states, fragment, triggers, auto)

    async def poll(self, until, interval: float, offset: float = 0.0):
        """Run the page's auto-rerunning fragments as a browser does, until `until()`; `offset`: this
        tab's timer phase (tabs opened at different moments do not poll in step)."""
        tick = time.monotonic() + offset
        while not until():
            tick += interval  # a fixed rate, as the page's timer (setInterval) keeps it
            await asyncio.sleep(max(0.0, tick - time.monotonic()))
            for fragment in list(self.fragments):
                await self.send({}, fragment=fragment, auto=True)
                self.polls += 1


def seconds(times) -> str:
    t = sorted(times)
    if not t:
        return "n/a"
    p = lambda q: t[min(len(t) - 1, int(q * len(t)))]  # noqa: E731
    return f"{p(0.5):.2f} / {p(0.95):.2f} / {t[-1]:.2f} s (n={len(t)})"


async def open_room(port: int, stats: dict) -> tuple[Member, str]:
    teacher = Member(port, -1, stats)
    await teacher.connect()
    submit = next(k for k in teacher.widgets if k.endswith("Open a room"))
    await teacher.send({"room_open_pin": PIN}, (submit,))
    await asyncio.sleep(0.5)
    code = re.search(r"code=([0-9A-Z]{8})", teacher.query)
    if code is None:
        raise RuntimeError(f"the room did not open: {stats['errors'][:3]}")
    return teacher, code.group(1)


async def wait_until(check, limit: float = 20.0):
    end = time.monotonic() + limit
    while not check() and time.monotonic() < end:
        await asyncio.sleep(0.05)


async def one_round(n: int, teacher: Member, students: list, stats: dict, rng: random.Random):
    t_ask = time.monotonic()
    await teacher.send({}, ("room_ask",))
    await wait_until(lambda: all(f"question {n}" in s.seen for s in students))
    stats["ask"] += [s.seen[f"question {n}"] - t_ask for s in students if f"question {n}" in s.seen]
    stats["missed"] += sum(f"question {n}" not in s.seen for s in students)

    async def answer(s, wait: float, pick: int):
        await asyncio.sleep(wait)
        sent = time.monotonic()
        took = await s.send({f"room_pick_{n}": [s.options[pick % len(s.options)]]}, (f"room_send_{n}",),
                            fragment=next(iter(s.fragments), ""))
        if took is not None:
            stats["answer rerun"].append(took)
        return sent

    plan = [(rng.uniform(0.5, 3.0), rng.randrange(64)) for _ in students]
    sent = sorted(await asyncio.gather(*(answer(s, *p) for s, p in zip(students, plan, strict=True))))
    await wait_until(lambda: teacher.round == n and teacher.answered >= len(students))
    counts = {int(c.split(": ")[1].split()[0]): t for c, t in teacher.seen.items() if c.startswith(f"round {n}: ")}
    # the k-th answer sent is in the count once the teacher's page shows more than k answers
    stats["count"] += [min(t for c, t in counts.items() if c > k) - t0 for k, t0 in enumerate(sent) if max(counts) > k]
    stats["last answer"].append(counts.get(len(students), float("inf")) - sent[-1])
    for s in students:
        s.seen.pop("revealed", None)
    t_reveal = time.monotonic()
    await teacher.send({}, ("room_reveal",), fragment=next(iter(teacher.fragments), ""))
    await wait_until(lambda: all("revealed" in s.seen for s in students))
    stats["reveal"] += [s.seen["revealed"] - t_reveal for s in students if "revealed" in s.seen]


async def classroom(port: int, pid: int, args) -> dict:
    from classroom_load import cpu_seconds, rss_mb

    stats = {"errors": [], "ask": [], "count": [], "last answer": [], "reveal": [], "follow": [], "missed": 0,
             "answer rerun": []}
    teacher, code = await open_room(port, stats)
    await asyncio.sleep(2)
    rss0 = rss_mb(pid)
    students = [Member(port, i, stats, query=f"code={code}") for i in range(args.students)]
    for s in students:
        await s.connect()
    stop = False
    phase = random.Random(1)
    pollers = [asyncio.create_task(s.poll(lambda: stop, 1.5, phase.uniform(0, 1.5))) for s in students]
    pollers.append(asyncio.create_task(teacher.poll(lambda: stop, 1.0)))
    polls0, cpu0 = sum(s.polls for s in students), cpu_seconds(pid)
    await asyncio.sleep(10)
    rss1 = rss_mb(pid)
    stats["cpu per poll"] = (cpu_seconds(pid) - cpu0) / max(1, sum(s.polls for s in students) - polls0)
    stats["idle cpu"] = (cpu_seconds(pid) - cpu0) / 10
    t_change = time.monotonic()
    await teacher.send({"ctl_temperature": ["0.7"]})
    await wait_until(lambda: all("temperature 0.7" in s.seen for s in students))
    stats["follow"] = [s.seen["temperature 0.7"] - t_change for s in students if "temperature 0.7" in s.seen]
    rng = random.Random(0)
    for n in range(1, args.rounds + 1):
        await one_round(n, teacher, students, stats, rng)
    stats["rss"] = (rss0, rss1, rss_mb(pid))
    stop = True
    await asyncio.gather(*pollers)
    stats["stopping"] = True
    for s in [teacher, *students]:
        await s.close()
    return stats


def report(stats: dict, args, wall: float, cpu: float):
    rss0, rss1, rss2 = stats["rss"]
    print(f"\nroom: 1 teacher + {args.students} students, {args.rounds} rounds (wall {wall:.0f} s)")
    print("| figure | p50 / p95 / max | goal |\n| --- | --- | --- |")
    print(f"| teacher's lesson change → a follower's page shows it | {seconds(stats['follow'])} | p95 ≤ 2 s |")
    print(f"| teacher's ask → a student's page shows the question | {seconds(stats['ask'])} | p95 ≤ 2 s |")
    print(f"| a student's answer → the teacher's count includes it | {seconds(stats['count'])} | p95 ≤ 2 s |")
    print(f"| the last answer → the teacher's histogram shows all | {seconds(stats['last answer'])} | ≤ 2 s |")
    print(f"| teacher's reveal → a student's page shows the truth | {seconds(stats['reveal'])} | p95 ≤ 2 s |")
    print(f"| a student's answer: its rerun | {seconds(stats['answer rerun'])} | |")
    print(f"| questions never seen within 20 s | {stats['missed']} | 0 |")
    print(f"| errors | {len(stats['errors'])} | 0 |")
    print(f"| server RSS: room open / {args.students} students polling / end | {rss0:.0f} / {rss1:.0f} / "
          f"{rss2:.0f} MB | |")
    print(f"| server RSS per student (joined and polling) | {(rss1 - rss0) / args.students:.2f} MB | |")
    print(f"| server CPU while {args.students} students wait (polling, no question) | {100 * stats['idle cpu']:.0f} % "
          f"of a core; {1000 * stats['cpu per poll']:.1f} ms per poll | |")
    print(f"| load client CPU (one process) | {100 * cpu / wall:.0f} % of a core | |")
    for line in stats["errors"][:10]:
        print("  error:", line)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario", choices=["room"], default="room", help=argparse.SUPPRESS)
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--server-option", action="append", default=[], metavar="NAME=VALUE",
                        help="a `streamlit run` option, e.g. runner.postScriptGC=false (repeatable)")
    args = parser.parse_args(argv)
    options = ["--server.fileWatcherType", "none"]
    for option in args.server_option:
        name, _, value = option.partition("=")
        options += [f"--{name.removeprefix('--')}", value]
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; server options: "
          f"{' '.join(options)}", flush=True)
    with tempfile.TemporaryDirectory(prefix="room-") as tmp:
        log = open(Path(tmp) / "server.log", "wb")  # noqa: SIM115 (the server writes it until it stops)
        proc, port = start_streamlit("dashboard/app.py", options, env={"ATTENTION_LAB_MEDIA": tmp}, log=log)
        try:
            t0, cpu0 = time.monotonic(), time.process_time()
            stats = asyncio.run(classroom(port, proc.pid, args))
            report(stats, args, time.monotonic() - t0, time.process_time() - cpu0)
        finally:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
