"""What one visitor can make the server hold: no uploaded files (the lab has no uploader), no
browser message over the cap, and no refused text beyond what a box may hold.

The attacks, as a script plays them against the lab served on loopback (python -m dashboard.serve,
so with the project's .streamlit/config.toml): a PUT of a few MB to Streamlit's upload endpoint for
the script's own session, and a websocket message of a few MB. Before, both were taken: files up to
200 MB each were kept in memory, and messages up to 25 MB were read and parsed.
"""

import asyncio
import os
import socket
import subprocess
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from core import PRESETS
from core.limits import MAX_BOX_CHARS
from tests.conftest import ROOT, free_port, lab_command, wait_until_up

from .conftest import messages, no_exception

pytestmark = pytest.mark.slow
MB = 1_000_000


@pytest.fixture(scope="module")
def lab():
    port = free_port()
    proc = subprocess.Popen(lab_command(port), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(url, proc)
        yield url, proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def run(coroutine):
    """asyncio.run in a thread of its own: a browser test earlier in this worker (Playwright's sync API)
    may leave an event loop running in the main thread, where asyncio.run refuses to start."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024


def rerun(query: str = "") -> bytes:
    msg = BackMsg()
    msg.rerun_script.query_string = query
    return msg.SerializeToString()


async def open_session(url: str) -> tuple[object, str]:
    """A websocket session as a browser opens one; its session id (the upload endpoint's key)."""
    ws = await websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream", max_size=None)
    await ws.send(rerun())
    async for raw in ws:
        msg = ForwardMsg()
        msg.ParseFromString(raw)
        if msg.WhichOneof("type") == "new_session":
            return ws, msg.new_session.initialize.session_id
    raise AssertionError("no session")


async def first_run_done(ws):
    async for raw in ws:
        msg = ForwardMsg()
        msg.ParseFromString(raw)
        if msg.WhichOneof("type") == "script_finished":
            return


def put(url: str, session: str, size: int) -> int:
    """PUT one file of `size` bytes to the upload endpoint with a valid XSRF token (read from the
    cookie the lab's health check sets, as Streamlit's own client sends it); the HTTP status. The
    body waits for the server's "100 Continue" (a server that refuses first answers at once)."""
    with urllib.request.urlopen(url + "/_stcore/health", timeout=10) as page:
        cookie = next(c for c in page.headers.get_all("Set-Cookie") if c.startswith("_streamlit_xsrf="))
    token = cookie.split(";")[0].split("=", 1)[1]
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x.bin\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n").encode()
    body += os.urandom(size) + f"\r\n--{boundary}--\r\n".encode()
    host, port = url.removeprefix("http://").split(":")
    head = (f"PUT /_stcore/upload_file/{session}/{uuid.uuid4().hex} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            f"Content-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {len(body)}\r\n"
            f"X-Xsrftoken: {token}\r\nCookie: _streamlit_xsrf={token}\r\nExpect: 100-continue\r\n"
            "Connection: close\r\n\r\n")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(head.encode())
        answer = sock.recv(4096).decode(errors="replace")
        if answer.startswith("HTTP/1.1 100"):
            sock.sendall(body)
            answer = answer.split("\r\n\r\n", 1)[1] or sock.recv(4096).decode(errors="replace")
    return int(answer.split()[1])


def test_the_upload_endpoint_refuses_files_and_keeps_nothing(lab):
    url, pid = lab

    async def attack():
        ws, session = await open_session(url)
        await asyncio.wait_for(first_run_done(ws), 120)  # the page's own first run is not counted below
        put(url, session, 1)  # warms the route up, so that the RSS below counts the files only
        before = rss_mb(pid)
        statuses = [put(url, session, 40 * MB) for _ in range(5)]
        after = rss_mb(pid)
        await ws.close()
        return statuses, after - before

    statuses, grew = run(attack())
    assert statuses == [413] * 5, "every file is refused as too large"
    # RSS moves by a few MB on its own (a session's first runs); what matters is that no file stays
    assert grew < 40, f"the server grew by {grew:.0f} MB for 200 MB of refused uploads (one file is 40 MB)"


def test_a_websocket_message_over_the_cap_closes_that_connection(lab):
    url, _ = lab

    async def attack():
        ws, _ = await open_session(url)
        await asyncio.wait_for(first_run_done(ws), 120)  # a page that is up, as a browser's would be
        await ws.send(rerun("text=" + "x" * (2 * MB)))  # a 2 MB rerun request
        try:
            await asyncio.wait_for(ws.wait_closed(), 60)  # a hang guard: the close comes when the frame is read
        except TimeoutError:  # the server read it and goes on
            await ws.close()
            return None
        return ws.close_code

    assert run(attack()) == 1009, "closed as Message Too Big"
    with urllib.request.urlopen(url + "/_stcore/health", timeout=10) as health:
        assert health.status == 200, "the lab goes on serving"


def test_a_huge_paste_is_refused_and_not_kept_in_the_session(make_app):
    """(Over the message cap, the test above: the connection closes before anything is read.)"""
    at = make_app()
    at.text_input(key="ctl_text").set_value("word " * 180_000).run()  # 0.9 MB: just under the message cap
    no_exception(at)
    assert at.session_state["lesson"] == PRESETS["default"]
    assert len(at.session_state["ctl_text"]) <= MAX_BOX_CHARS
    said = messages(at) + " ".join(c.value for c in at.caption)
    assert "the lab takes at most 2,000" in said
