"""A hostile class on the real lab (issue 28): a flooder beside a teacher and N students, over websockets.

    python benchmarks/hostile_ws.py [--students 30] [--rounds 3] [--flooders 4] [--attacks rerun] [--one-device N]

The lab runs on a loopback port (lab_server.py, as `make run` serves it); every page is the Room page,
over Streamlit's websocket protocol (room_scenario.Member). The class plays twice, each time on a fresh
server: calm (the reference), then beside a flooder.

- the teacher (a screen on the lab's machine) opens a room with a PIN; N students open
  /room?code=… one after another (the join), poll as their pages do, and every round: the teacher
  changes the lesson (time until each follower's page shows it), asks, every student answers
  (time until the teacher's count includes it), the teacher reveals;
- the flooder: --flooders sessions without pause, each cycling through wrong codes, a wrong PIN
  for take-back, room openings (since issue 47 it finds no form to open one: only the lab's own
  machine, or a device it is told of, opens rooms), a right-code join from a fresh session, a
  wrong-code join from a fresh session, Streamlit's clear_cache message (bytes [40, 1]) and a 0.9 MB
  sentence (just under the lab's message cap). It runs in a process of its own (as on its own machine), starts 5 s
  before the students join and goes on until the end. `--attacks rerun`: the same sessions only
  run the page again and again (no attack), to tell what the attacks cost from what the runs do;
- the one-device flood (issue 39): `--one-device N` tabs from one address (device_flood.py).

Addresses. The lab names 127.0.0.1 a trusted proxy, so it takes a client's address from X-Forwarded-For
(dashboard/room/session.py): each student sends 10.0.1.i, the flooder 10.0.0.66, as phones have their own;
the teacher none (the lab's own machine, which the lab trusts: classroom/rooms/clients.py).

Printed: p50 / p95 / max of the honest joins, votes and lesson changes, how many were refused (goal: none,
p95 ≤ 2 s), the hostile/calm ratio of each p95, what the flooders got, server RSS and CPU, and this client's
own event-loop lag (a figure is the lab's delay only while the client keeps up).
"""

import argparse
import asyncio
import multiprocessing
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import device_flood
import websockets
from classroom_load import cpu_seconds, rss_mb
from lab_server import ROOT, start_streamlit, stop
from room_scenario import ROOM, Member, open_room, seconds, wait_until
from room_scenario import one_round as play_round
from streamlit.proto.BackMsg_pb2 import BackMsg

CHANGES = ["0.7", "1.5", "0.5", "3.0", "0.3", "2.0", "0.2", "5.0"]  # temperatures the sidebar offers
LONG_TEXT = "word " * 180_000  # 0.9 MB: just under the message cap (.streamlit/config.toml)
FLOODER = "10.0.0.66"
SHOWN = {"No open room has that code": "wrong code looked at", "Too many": "refused: too many",
         "does not match": "wrong PIN checked", "already has": "refused: seats of this address",
         "takes at most": "text refused", "This room is full": "refused: room full"}


class Tab(Member):
    """A Room page tab that sends X-Forwarded-For (its network address) and keeps the alerts it is shown."""

    def __init__(self, port: int, name: int, stats: dict, query: str = "", address: str | None = None):
        super().__init__(port, name, stats, query)
        self.address, self.alerts, self.sent = address, [], 0  # sent: the last round the lab confirmed ("Sent: …")

    async def connect(self):
        headers = {"X-Forwarded-For": self.address} if self.address else {}
        self.ws = await websockets.connect(f"ws://127.0.0.1:{self.port}/_stcore/stream", max_size=None,
                                           ping_interval=None, additional_headers=headers)
        self.reader = asyncio.create_task(self._read())
        return await self.send({})

    def _element(self, el):
        super()._element(el)
        if el.WhichOneof("type") == "markdown" and el.markdown.body.startswith("Not in use:"):
            self.alerts.append(el.markdown.body)  # the sentence box's refusal once its alert has been shown
        if el.WhichOneof("type") != "alert":
            return
        if el.alert.format in (el.alert.WARNING, el.alert.ERROR):
            self.alerts.append(el.alert.body)  # what the lab says when it refuses (room_session.say)
        elif el.alert.format == el.alert.SUCCESS and el.alert.body.startswith("Sent"):
            self.sent = self.round

    async def send(self, states: dict, triggers: tuple = (), fragment: str = "", auto: bool = False):
        took = await super().send(states, triggers, fragment, auto)
        if auto and took is not None:  # a poll of the page's timer: the class's "poll rerun"
            self.stats.setdefault("poll rerun", []).append(took)
        return took

    def outcome(self, default: str) -> str:
        said = " ".join(self.alerts)
        return next((what for text, what in SHOWN.items() if text in said), default)


ATTACKS = ["wrong code", "wrong PIN", "open", "fresh join, right code", "long text", "clear_cache",
           "fresh join, wrong code"]


async def flood(port: int, code: str, k: int, got: Counter, until, attacks=ATTACKS):
    """One flooder session, without pause; a session that became a teacher or was closed is replaced."""
    quiet = {"errors": [], "stopping": True}  # its own errors are not the class's
    tab, n = None, k
    while not until():
        if tab is None or tab.ws.close_code is not None or "code=" in tab.query:
            if tab is not None:
                await tab.close()
            tab = Tab(port, 1000 + k, quiet, "", FLOODER)
            await tab.connect()
        attack = attacks[n % len(attacks)]
        n += 1
        tab.alerts.clear()
        try:
            got[(attack, await attack_once(tab, attack, code, quiet))] += 1
        except (websockets.ConnectionClosed, StopIteration, KeyError):  # closed, or a page without that form
            got[(attack, "connection closed or no form")] += 1
    if tab is not None:
        await tab.close()


def flooder_process(port: int, code: str, sessions: int, attacks: list, stop_flood, out):
    """The flooder in a process of its own, as it would be on its own machine: its sessions' traffic is
    not parsed in the class's event loop. What it got goes to `out` when `stop_flood` is set."""
    async def main():
        got = Counter()
        await asyncio.gather(*(flood(port, code, k, got, stop_flood.is_set, attacks) for k in range(sessions)))
        out.put(dict(got))

    asyncio.run(main())


async def attack_once(tab: Tab, attack: str, code: str, quiet: dict) -> str:
    """One attack from the flooder's session `tab` (or a fresh one); what it got."""
    wrong = "".join(random.choice("ABCDEFGHJKMNPQRSTVWXYZ23456789") for _ in range(8))
    if attack == "rerun":  # not an attack: the page run again, as fast as the server answers
        await tab.send({})
        return "ran"
    if attack == "clear_cache":
        await tab.ws.send(BackMsg(clear_cache=True).SerializeToString())  # bytes [40, 1]
        await tab.send({})  # it also empties this session's state: one run to start afresh, as a reload would
        return "sent"
    if attack.startswith("fresh join"):
        other = Tab(tab.port, 2000, quiet, f"code={code if 'right' in attack else wrong}", FLOODER)
        try:
            await other.connect()
            return "seated" if "room_leave" in other.widgets else other.outcome("?")
        finally:
            await other.close()
    if attack == "long text":
        await tab.send({"ctl_text": LONG_TEXT})
        return tab.outcome("?")
    form = {"wrong code": ("Join the room", {"room_join_code_page": wrong}),
            "wrong PIN": ("Take it back", {"room_reclaim_code": code,
                                           "room_reclaim_pin": f"{random.randrange(10**6):06d}"}),
            "open": ("Open a room", {"room_open_pin": "123456"})}
    label, states = form[attack]
    button = next((w for w in tab.widgets if w.endswith(label)), None)
    if button is None:  # the open form is the lab's own computer's (docs/classroom.md, Who may open a room):
        await tab.send({})  # a run of the page that finds none
        return "no form: not a teacher's device"
    await tab.send(states, (button,))
    return "room opened" if "code=" in tab.query else tab.outcome("?")


async def sample(pid: int, peak: list, lags: list, until):
    """The server's peak RSS, and this client's own event-loop lag (how late a 0.25 s sleep wakes up): a
    figure above is the lab's delay only while the client keeps up."""
    while not until():
        peak[0] = max(peak[0], rss_mb(pid))
        t0 = time.monotonic()
        await asyncio.sleep(0.25)
        lags.append(time.monotonic() - t0 - 0.25)


async def health(port: int, took: list, until):
    """The lab's health check (what HAProxy asks) once a second: seconds until it answered (30: no answer)."""
    import urllib.request

    def ask() -> float:
        t0 = time.monotonic()
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=30).read()
        except OSError:
            return 30.0
        return time.monotonic() - t0

    while not until():
        took.append(await asyncio.to_thread(ask))
        await asyncio.sleep(1.0)


async def phase(port: int, pid: int, args, flooders: int, one: int = 0) -> dict:
    stats = {"errors": [], "ask": [], "count": [], "last answer": [], "reveal": [], "follow": [], "missed": 0,
             "answer rerun": [], "join": [], "refused": Counter(), "flood": {}, "unchanged": 0, "lag": [], "health": []}
    teacher, code = await open_room(port, stats)
    rss0, peak, done = rss_mb(pid), [0.0], False
    sampler = asyncio.gather(sample(pid, peak, stats["lag"], lambda: done),
                             health(port, stats["health"], lambda: done))
    spawn = multiprocessing.get_context("spawn")
    stop_flood, out = spawn.Event(), spawn.Queue()
    flooder = spawn.Process(target=flooder_process, args=(port, code, flooders, args.attacks, stop_flood, out))
    if flooders:
        flooder.start()
        await asyncio.sleep(5)  # the flood is on before the first student arrives (its start included)
    device = await device_flood.start(spawn, port, one, args.one_device_does, stop_flood)
    cpu0, t0 = cpu_seconds(pid), time.monotonic()
    students = []
    for i in range(args.students):
        s, t0 = Tab(port, i, stats, f"code={code}", f"10.0.1.{i + 1}"), time.monotonic()
        await s.connect()
        took = time.monotonic() - t0
        if "room_leave" in s.widgets and s.page_hash == ROOM:
            stats["join"].append(took)
            students.append(s)
        else:
            stats["refused"][f"join: {s.outcome(' | '.join(s.alerts)[:80] or 'not joined')}"] += 1
    stop_polls = False
    phase_rng = random.Random(1)
    pollers = [asyncio.create_task(s.poll(lambda: stop_polls, 1.5, phase_rng.uniform(0, 1.5))) for s in students]
    pollers.append(asyncio.create_task(teacher.poll(lambda: stop_polls, 1.0)))
    await asyncio.sleep(3)
    rss1 = rss_mb(pid)
    rng = random.Random(0)
    for n in range(1, args.rounds + 1):
        value = CHANGES[(n - 1) % len(CHANGES)]
        marker = f"temperature {float(value):g}"
        t_change = time.monotonic()
        await teacher.send({"ctl_temperature": [value]})
        await wait_until(lambda m=marker: all(m in s.seen for s in students))
        stats["follow"] += [s.seen[marker] - t_change for s in students if marker in s.seen]
        stats["unchanged"] += sum(marker not in s.seen for s in students)
        for s in students:
            s.seen.pop(marker, None)
        await play_round(n, teacher, students, stats, rng)
        stats["refused"]["vote: not in the teacher's count"] += max(0, len(students) - teacher.answered)
        stats["refused"]["vote: no 'Sent' on the student's page"] += sum(s.sent != n for s in students)
    stats["rss"], stats["cpu"] = (rss0, rss1, rss_mb(pid)), (cpu_seconds(pid) - cpu0) / (time.monotonic() - t0)
    done = stop_polls = True
    stop_flood.set()
    if flooders:
        stats["flood"] = await asyncio.to_thread(out.get, timeout=120)
        flooder.join(30)
    stats["one device"] = await device_flood.collect(device)
    await asyncio.gather(*pollers, sampler)
    stats["rss peak"], stats["stopping"] = peak[0], True
    for s in [teacher, *students]:
        await s.close()
    return stats


def run_phase(args, flooders: int, one: int = 0) -> dict:
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
        log = open(Path(tmp) / "server.log", "wb")  # noqa: SIM115 (the server writes it until it stops)
        proc, port = start_streamlit("dashboard/app.py", ["--server.fileWatcherType", "none"], log=log,
                                     env={"ATTENTION_LAB_MEDIA": tmp, "ATTENTION_LAB_TRUSTED_PROXIES": "127.0.0.1"},
                                     tree=Path(args.tree).resolve() if args.tree else ROOT)
        try:
            t0 = time.monotonic()
            stats = asyncio.run(phase(port, proc.pid, args, flooders, one))
            stats["wall"] = time.monotonic() - t0
            return stats
        finally:
            stop(proc)
            log.close()
            if args.keep_log:
                Path(f"{args.keep_log}.{'hostile' if flooders or one else 'calm'}").write_bytes(
                    (Path(tmp) / "server.log").read_bytes())


def p95(xs) -> float:
    t = sorted(xs)
    return t[min(len(t) - 1, int(0.95 * len(t)))] if t else float("nan")


def report(calm: dict, hostile: dict, args):
    print(f"\n{args.students} students, {args.rounds} rounds; the flooder: {args.flooders} sessions from {FLOODER} "
          f"(wall: calm {calm['wall']:.0f} s, hostile {hostile['wall']:.0f} s)")
    print("| honest action | calm p50 / p95 / max | beside the flooder p50 / p95 / max | refused | p95 ratio |")
    print("| --- | --- | --- | --- | --- |")
    rows = [("join (open /room?code=… → joined page)", "join", "join"),
            ("vote (answer → the teacher's count has it)", "count", "vote"),
            ("vote: its own rerun", "answer rerun", None),
            ("lesson change → a follower's page shows it", "follow", None),
            ("ask → a student's page shows the question", "ask", None),
            ("reveal → a student's page shows the truth", "reveal", None),
            ("the lab's health check, once a second", "health", None)]
    for label, key, kind in rows:
        mine = [n for r, n in hostile["refused"].items() if kind and r.startswith(kind)]
        refused = hostile["unchanged"] if key == "follow" else max(mine, default=0) if kind == "vote" else sum(mine)
        print(f"| {label} | {seconds(calm[key])} | {seconds(hostile[key])} | {refused} | "
              f"{p95(hostile[key]) / p95(calm[key]):.2f} |")
    for name, st in (("calm", calm), ("hostile", hostile)):
        rss0, rss1, rss2 = st["rss"]
        print(f"{name}: server RSS room open / students polling / end / peak: {rss0:.0f} / {rss1:.0f} / {rss2:.0f} / "
              f"{st['rss peak']:.0f} MB; server CPU {100 * st['cpu']:.0f} % of a core (from the first join); "
              f"this client's loop lag {seconds(st['lag'])}; questions never seen: {st['missed']}; "
              f"errors: {len(st['errors'])}")
        for reason, n in st["refused"].items():
            if n:
                print(f"  {name} refused: {n} × {reason}")
        for line in st["errors"][:5]:
            print(f"  {name} error: {line}")
    got = sorted(hostile["flood"].items())
    if got:
        print("flooder got:", "; ".join(f"{a} → {o}: {n}" for (a, o), n in got))
    device_flood.report(calm, hostile, args, FLOODER)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--flooders", type=int, default=4)
    parser.add_argument("--attacks", nargs="+", default=ATTACKS, choices=[*ATTACKS, "rerun"],
                        help="what the flooder sends, in turn (rerun: the page run again, no attack)")
    parser.add_argument("--one-device", type=int, default=0, metavar="N",
                        help="N tabs from the flooder's one address beside the class (issue 39)")
    parser.add_argument("--one-device-does", choices=["poll", "rerun", "heavy", "ramp"], default="poll",
                        help="what those tabs do: poll their page as a browser does, or run it without pause; "
                             "heavy: run the heaviest lesson's Multi-head page without pause; "
                             "ramp: N new tabs a second, to the end")
    parser.add_argument("--keep-log", metavar="PATH", help="copy each phase's server log to PATH.calm, PATH.hostile")
    parser.add_argument("--tree", help="serve another checkout's lab (e.g. `git worktree add /tmp/old HEAD~1`)")
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    calm = run_phase(args, 0)
    print(f"calm done; load average {os.getloadavg()[0]:.1f}", flush=True)
    hostile = run_phase(args, args.flooders, args.one_device)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    report(calm, hostile, args)


if __name__ == "__main__":
    sys.exit(main())
