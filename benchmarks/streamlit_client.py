"""One student's browser tab, as Streamlit's websocket protocol sees it (for classroom_load.py).

It speaks what the browser speaks on `/_stcore/stream`: protobuf `BackMsg` out (a rerun with
the changed widget's state, the page, the query string; the fragments' auto-reruns) and
`ForwardMsg` in (deltas, the widgets' ids, `script_finished`).
"""

import asyncio
import random
import time

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

RUN_TIMEOUT = 30.0  # a rerun that has not finished by then counts as an error
EARLY = ForwardMsg.FINISHED_EARLY_FOR_RERUN
TEXTS = ["The cat sat on the mat.", "Attention is all you need.", "A student moves a slider.",
         "Queries meet keys and mix values.", "Thirty laptops, one lab."]


class Session:
    """One browser tab, as Streamlit's websocket protocol sees it."""

    def __init__(self, url: str, name: int, stats: dict):
        """`url`: the lab's address (http://host:port), a lab process or the hall's proxy."""
        self.url, self.name, self.stats = url, name, stats
        self.ws = None
        self.widgets: dict[str, str] = {}  # key -> widget id
        self.page_hash, self.query = "", ""
        self.fragments: dict[str, float] = {}  # fragment id -> auto-rerun interval (s)
        self.finished = asyncio.Queue()
        self.saw_video = self.saw_failure = False
        self.reader = None

    async def connect(self):
        ws_url = self.url.replace("http://", "ws://", 1).rstrip("/") + "/_stcore/stream"
        self.ws = await websockets.connect(ws_url, max_size=None, ping_interval=None)
        self.reader = asyncio.create_task(self._read())
        await self.rerun({})

    async def close(self):
        self.reader.cancel()
        try:
            await asyncio.wait_for(self.ws.close(), 5)
        except (TimeoutError, websockets.WebSocketException):
            pass

    async def _read(self):
        try:
            async for raw in self.ws:
                msg = ForwardMsg()
                msg.ParseFromString(raw)
                self._handle(msg)
        except websockets.ConnectionClosed:
            pass
        if not self.stats.get("stopping"):
            self.error("connection closed by the server")
        self.finished.put_nowait(None)

    def _handle(self, msg):
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            self.page_hash = msg.new_session.page_script_hash
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
        elif kind == "auto_rerun":
            self.fragments[msg.auto_rerun.fragment_id] = msg.auto_rerun.interval
        elif kind == "script_finished":
            if msg.script_finished != EARLY:
                self.finished.put_nowait(msg.script_finished)
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            self._element(msg.delta.new_element)

    def _element(self, el):
        kind = el.WhichOneof("type")
        widget = getattr(el, kind)
        if hasattr(widget, "id") and "-" in getattr(widget, "id", ""):
            self.widgets[widget.id.rsplit("-", 1)[-1]] = widget.id
        if kind == "exception":
            self.error(f"exception: {el.exception.type}: {el.exception.message[:120]} "
                       f"{' | '.join(el.exception.stack_trace)[-300:]}")
        elif kind == "alert" and el.alert.format == el.alert.ERROR:
            if "could not be made" in el.alert.body:
                self.saw_failure = True
            self.error(f"error on the page: {el.alert.body[:120]}")
        elif kind == "video":
            self.saw_video = True

    def error(self, text: str):
        self.stats["errors"].append(f"session {self.name}: {text}")

    async def rerun(self, states: dict, fragment: str = "", triggers: tuple = (), auto: bool = True) -> float | None:
        """Send one rerun with these widget states (a list: a multi-valued widget's strings) and these
        buttons pressed, by key; `fragment`: only that fragment (`auto`: as its timer runs it).
        Seconds until it finished, None on failure."""
        msg = BackMsg()
        client = msg.rerun_script
        client.query_string, client.page_script_hash = self.query, self.page_hash
        if fragment:
            client.fragment_id, client.is_auto_rerun = fragment, auto
        for key, value in states.items():
            w = client.widget_states.widgets.add()
            w.id = self.widgets[key]
            if isinstance(value, list):
                w.string_array_value.data.extend(value)
            elif key == "ctl_temperature":  # a select_slider: the option as it is shown
                w.string_array_value.data.append(str(value))
            elif isinstance(value, bool) and key.endswith(("_render",)):
                w.trigger_value = value
            elif isinstance(value, bool):
                w.bool_value = value
            elif isinstance(value, (int, float)):
                w.double_value = value
            else:
                w.string_value = value
        for key in triggers:
            w = client.widget_states.widgets.add()
            w.id, w.trigger_value = self.widgets[key], True
        while not self.finished.empty():  # a run we did not ask for (a fragment's st.rerun)
            self.finished.get_nowait()
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        try:
            status = await asyncio.wait_for(self.finished.get(), RUN_TIMEOUT)
        except TimeoutError:
            self.error("a rerun did not finish within 30 s")
            return None
        if status is None:
            return None
        if status == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
            self.error("the script failed to compile")
        return time.perf_counter() - t0

    def random_change(self, rng: random.Random) -> dict:
        key = rng.choice(["ctl_temperature", "ctl_temperature", "ctl_seed", "ctl_scale", "ctl_text", "ctl_d_model"])
        value = {"ctl_temperature": rng.choice([0.2, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0]),
                 "ctl_seed": str(rng.randrange(1000)), "ctl_scale": rng.random() < 0.5,
                 "ctl_text": rng.choice(TEXTS), "ctl_d_model": str(rng.choice([8, 16, 32, 64]))}[key]
        return {key: value}

    async def think(self, seconds: float):
        """Wait like a student reads the screen, running the page's auto-reruns (render progress)."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            if not self.fragments:
                await asyncio.sleep(left)
                break
            fragment, interval = next(iter(self.fragments.items()))
            await asyncio.sleep(min(interval, left))
            self.fragments.pop(fragment, None)  # the run re-registers it while the panel is showing
            await self.rerun({}, fragment=fragment)
