"""The one-device flood of hostile_ws.py (issue 39): N tabs from one address beside the class.

The tabs (each a Room page tab from the flooder's address) open one after another before the
students join, then each polls its page's fragments as a browser does (`poll`) or runs the page
again without pause (`rerun`, waiting 5 s at most for each run; `heavy`: the same on the Multi-head page
with the heaviest lesson, HEAVY), in a process of their own. `ramp`
(issue 47 item 9): N new tabs a second instead, each opening its websocket and asking for its first
run without waiting for it, kept open, from 5 s before the students join to the end (at most RAMP_MOST). The lab
admits a device's first ATTENTION_LAB_DEVICE_SESSIONS sessions and refuses the others, and paces
a device's reruns (dashboard/devices.py); printed: what the tabs got, and the class's rerun medians
(its polls' and its votes' own reruns) calm and beside the flood.
"""

import asyncio
from collections import Counter
from urllib.parse import urlencode

import websockets
from streamlit.util import calc_hash

REFUSED_TAB = "tabs of the lab open"  # dashboard/devices.py's refusal of a device's extra session
RAMP_MOST = 4000  # the ramp's tabs at most (a bound on this client, not the lab's)
# `heavy` (issue 47, a hostile pass after item 9): the heaviest lesson a link can ask for, on the page that draws
# a heatmap per head: 64 heads of 64 tokens, d_model 1024 (over a second of CPU a run here).
HEAVY_PAGE = "multi-head"
HEAVY = urlencode({"text": " ".join(["the cat sat on the mat because it was warm"] * 6), "d_model": "1024",
                   "num_heads": "64"})


async def ramp(port: int, per_second: int, got: Counter, until):
    """`per_second` new tabs a second from one address, never waiting for a page: what a script opening
    sessions costs the lab. Each first run the lab answers is counted by what it showed."""
    from hostile_ws import FLOODER, Tab

    quiet = {"errors": [], "stopping": True}
    tabs, t0 = [], asyncio.get_running_loop().time()
    while not until() and len(tabs) < RAMP_MOST:
        due = int((asyncio.get_running_loop().time() - t0) * per_second) + 1
        while len(tabs) < min(due, RAMP_MOST):
            tab = Tab(port, 5000 + len(tabs), quiet, "", FLOODER)
            tabs.append(tab)
            asyncio.create_task(_open_one(tab, got))
        await asyncio.sleep(0.02)
    got["tabs opened"] = len(tabs)
    for tab in tabs:
        await tab.close()


async def _open_one(tab, got: Counter):
    try:
        ran = await asyncio.wait_for(tab.connect(), 60)
    except (TimeoutError, OSError, websockets.WebSocketException):
        got["tab: no answer within 60 s"] += 1
        return
    if ran is None:
        got["tab: its first run never ran (dropped)"] += 1
    else:
        got["tab: refused with the sentence" if any(REFUSED_TAB in a for a in tab.alerts) else "tab: admitted"] += 1


async def one_device(port: int, sessions: int, does: str, got: Counter, until):
    from hostile_ws import FLOODER, Tab  # it imports this module

    if does == "ramp":
        return await ramp(port, sessions, got, until)
    quiet = {"errors": [], "stopping": True}
    tabs, opening = [], []
    for k in range(sessions):  # one after another, not waiting for each page (the lab runs none for most)
        tabs.append(Tab(port, 3000 + k, quiet, HEAVY if does == "heavy" else "", FLOODER))
        if does == "heavy":
            tabs[-1].page_hash = calc_hash(HEAVY_PAGE)
        opening.append(asyncio.create_task(_open_one(tabs[-1], got)))
        await asyncio.sleep(0.05)
    await asyncio.gather(*opening)
    tabs = [tab for tab in tabs if getattr(tab, "ws", None) is not None]

    async def drive(tab):
        while not until():
            if does == "poll":
                await tab.poll(until, 1.0)
                continue
            try:
                ran = await asyncio.wait_for(tab.rerun({}, auto=False), 5)
                got["rerun: ran" if ran is not None else "rerun: failed"] += 1
            except (TimeoutError, websockets.ConnectionClosed):
                got["rerun: not run within 5 s (held back or dropped)"] += 1

    await asyncio.gather(*(drive(tab) for tab in tabs))
    for tab in tabs:
        await tab.close()


def one_device_process(port: int, sessions: int, does: str, stop_flood, out):
    """The flood in a process of its own (as on its own machine); what it got goes to `out`."""
    async def main():
        got = Counter()
        await one_device(port, sessions, does, got, stop_flood.is_set)
        out.put(dict(got))

    asyncio.run(main())


async def start(spawn, port: int, sessions: int, does: str, stop_flood):
    """The flood's process and queue, started (None without tabs) once its tabs are open."""
    if not sessions:
        return None
    out = spawn.Queue()
    proc = spawn.Process(target=one_device_process, args=(port, sessions, does, stop_flood, out))
    proc.start()
    await asyncio.sleep(5 if does == "ramp" else max(5, sessions * 0.2))  # its tabs open before the students join
    return proc, out


async def collect(started) -> dict:
    """What the flood got, once `stop_flood` is set."""
    if started is None:
        return {}
    proc, out = started
    got = await asyncio.to_thread(out.get, timeout=120)
    proc.join(30)
    return got


def median(xs) -> float:
    t = sorted(xs)
    return t[len(t) // 2] if t else float("nan")


def report(calm: dict, hostile: dict, args, address: str):
    if args.one_device:
        print(f"one device ({args.one_device} tabs from {address}, {args.one_device_does}) got:",
              "; ".join(f"{what}: {n}" for what, n in sorted(hostile.get("one device", {}).items())))
    for key in ("poll rerun", "answer rerun"):
        quiet, loud = median(calm.get(key, [])), median(hostile.get(key, []))
        print(f"the class's {key} median: calm {quiet:.3f} s, beside the flood {loud:.3f} s: {loud / quiet:.2f}×")
