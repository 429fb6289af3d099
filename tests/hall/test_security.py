"""What the hall exposes: the lab through HAProxy and nothing else. Streamlit's metrics and its
upload endpoint are denied at the proxy however the path is spelled, and every link the lab accepts
passes; Redis and the lab processes listen on loopback only,
and Redis answers only with the hall's password."""

import os
import subprocess
import urllib.error
import urllib.request
from urllib.parse import quote, urlencode

import pytest

from core import tokenize
from core.limits import MAX_LINK_CHARS, MAX_SEED, MAX_TEXT_CHARS, MAX_TOKENS
from dashboard.lesson.state import config_from_url, link_chars
from tests.hall.conftest import listening

pytestmark = pytest.mark.hall

# Spellings of /_stcore/metrics; those marked True reach the metrics when sent to Streamlit itself.
METRICS_PATHS = {
    "/_stcore/metrics": True,
    "/_stcore/%6detrics": True,  # percent-encoded letter
    "/%5fstcore/metrics": True,  # percent-encoded underscore, lower-case hex
    "/_stcore%2Fmetrics": True,  # percent-encoded slash
    "/_stcore/metrics?families=session_events": True,
    "//_stcore/metrics": False,  # Streamlit refuses a double slash, the proxy too
    "/_STCORE/METRICS": False,  # Streamlit's routes are case-sensitive (it answers with the app page)
    "/_stcore/metrics/": True,  # Streamlit redirects it to the metrics
}
METRICS_TEXT = "session_events"  # in every metrics answer


def get(url: str) -> tuple[int, str]:
    request = urllib.request.Request(url)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode(errors="replace")
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode(errors="replace")


@pytest.mark.parametrize("path", METRICS_PATHS)
def test_metrics_are_denied_through_the_proxy_in_every_spelling(hall, path):
    lab_port = next(iter(hall.info["labs"].values()))
    status, body = get(f"http://127.0.0.1:{lab_port}{path}")
    assert (METRICS_TEXT in body) == METRICS_PATHS[path], "the spelling is (or is not) a way to the metrics"
    status, body = get(f"{hall.info['url']}{path}")
    assert status == 403 and METRICS_TEXT not in body


UPLOAD_PATHS = ["/_stcore/upload_file/s/f", "/_stcore/%75pload_file/s/f", "/%5fstcore/upload_file/s/f",
                "/_stcore%2Fupload_file/s/f", "//_stcore/upload_file/s/f", "/_STCORE/UPLOAD_FILE/s/f"]


@pytest.mark.parametrize("path", UPLOAD_PATHS)
def test_the_upload_endpoint_is_denied_through_the_proxy_in_every_spelling(hall, path):
    request = urllib.request.Request(f"{hall.info['url']}{path}", data=b"x" * 1000, method="PUT")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status = response.status
    except urllib.error.HTTPError as err:
        status, body = err.code, err.read().decode(errors="replace")
        assert "Request forbidden" in body, "HAProxy's own answer, not Streamlit's"
    assert status == 403


def longest_lesson_link() -> dict:
    """The longest lesson a student can make: 2,000 characters of 4-byte letters in 64 words (12
    characters each once percent-encoded), a 64 × 64 custom mask, every number at its longest."""
    words = ["\U0001d400" * 31] * 17 + ["\U0001d400" * 30] * 47  # 1,937 letters and 63 spaces
    text = " ".join(words)
    T = len(tokenize(text))
    grid = ";".join("".join("1" if j <= i else "0" for j in range(T)) for i in range(T))
    return {"text": text, "mask": "custom", "custom_mask": grid, "d_model": "1024", "num_heads": "64",
            "positional": "sinusoidal", "scale": "false", "temperature": "0.015", "seed": str(MAX_SEED),
            "device": "cpu", "head": "64", "step": "4", "weights": "row", "projector": "1"}


def test_the_longest_link_the_lab_accepts_passes_the_proxy(hall):
    link = longest_lesson_link()
    assert len(tokenize(link["text"])) == MAX_TOKENS and len(link["text"]) == MAX_TEXT_CHARS
    assert config_from_url(link)[1] == "", "the lab opens this lesson"
    assert link_chars(link) <= MAX_LINK_CHARS
    padded = {**link, "pad": "x" * (MAX_LINK_CHARS - link_chars(link) - len("&pad="))}
    assert link_chars(padded) == MAX_LINK_CHARS
    assert "characters long" in config_from_url({**padded, "pad": padded["pad"] + "x"})[1], "one more is refused"
    for query in (link, padded):
        url = f"{hall.info['url']}/?{urlencode(query, quote_via=quote)}"
        request = urllib.request.Request(url, headers=BROWSER_HEADERS)
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200 and "streamlit" in response.read().decode().lower()


# What Chromium sends with a page request, cookies of a hall session included.
BROWSER_HEADERS = {
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 "
                  "Safari/537.36",
    "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
    "Accept-Language": "en-GB,en;q=0.9", "Accept-Encoding": "gzip, deflate",
    "Cookie": "SERVERID=lab1; _streamlit_xsrf=2|" + "a" * 120, "Upgrade-Insecure-Requests": "1",
}


def test_the_proxy_serves_the_lab_and_no_statistics_page(hall):
    status, body = get(f"{hall.info['url']}/")
    assert status == 200 and "streamlit" in body.lower()
    for path in ("/haproxy?stats", "/stats", "/;csv"):
        status, body = get(f"{hall.info['url']}{path}")
        assert "Statistics Report" not in body and "pxname" not in body


def redis_cli(port: int, password: str | None, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "REDISCLI_AUTH"}
    if password is not None:
        env["REDISCLI_AUTH"] = password
    return subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(port), *args], capture_output=True, text=True,
                          timeout=10, env=env).stdout.strip()


def test_redis_answers_only_with_the_password(hall):
    url = hall.info["redis_url"]  # redis://:<password>@127.0.0.1:<port>/0
    password, port = url.split("//:")[1].split("@")[0], int(url.rsplit(":", 1)[1].split("/")[0])
    assert len(password) >= 32
    assert redis_cli(port, None, "ping").startswith("NOAUTH")
    assert redis_cli(port, "not-the-password", "ping").startswith(("NOAUTH", "WRONGPASS"))
    assert redis_cli(port, password, "ping") == "PONG"
    assert redis_cli(port, password, "config", "get", "save") == "save", "no snapshot schedule (its value is empty)"
    assert redis_cli(port, password, "config", "get", "appendonly").split() == ["appendonly", "no"]


def test_only_the_proxy_listens_beyond_loopback(hall):
    """The test hall binds its proxy to 127.0.0.1 as well; `make hall` binds it to 0.0.0.0, and
    then it is the one socket beyond loopback."""
    redis_port = int(hall.info["redis_url"].rsplit(":", 1)[1].split("/")[0])
    for name, port in [("redis", redis_port), *hall.info["labs"].items()]:
        addresses = listening(port)
        assert addresses and addresses <= {"127.0.0.1", "::1"}, f"{name} listens on {addresses}"


def test_hall_json_with_the_redis_password_is_private(hall):
    assert (hall.run_dir / "hall.json").stat().st_mode & 0o077 == 0
    assert hall.run_dir.stat().st_mode & 0o077 == 0
    # ... and the password is on no process's command line.
    password = hall.info["redis_url"].split("//:")[1].split("@")[0]
    for pid in hall.current()["processes"].values():
        assert password not in open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
