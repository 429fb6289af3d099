"""Shared by every test folder: a `streamlit run` on a free loopback port, and Debian's Chromium."""

import contextlib
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from html import unescape
from pathlib import Path

import pytest

from dashboard.serve import free_port, listens  # noqa: F401 (the tests' servers import free_port from here)

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
# Debian's build of Chromium's headless shell (the package chromium-headless-shell, the same Chromium
# release as the chromium package): the browser without its windowing layer, as Playwright itself runs
# headless Chromium. It drew the lab's pages with about a fifth less CPU (docs/performance.md), and the
# suite is bound by CPU. Where it is not installed, the full browser runs the same tests.
CHROMIUM = next((p for p in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium") if os.path.exists(p)),
                "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]


def shown(markdown) -> str:
    """What a reader sees of a Markdown body: rendered by a CommonMark renderer, tags dropped, the
    invisible word joiners (dashboard/text.py) left out."""
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").render(str(markdown))
    return unescape(re.sub(r"<[^>]+>", "", html)).replace("\u2060", "").strip()


def wait_until_up(url: str, proc: subprocess.Popen, seconds: float = 60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("streamlit exited before serving")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            time.sleep(0.3)
    else:
        raise TimeoutError("streamlit did not come up")
    port = int(url.rpartition(":")[2])
    # An answer from another server on the same port would send the test's clicks there.
    assert listens(proc.pid, port), f"another process than the lab started answers on port {port}"


def lab_command(port: int) -> list[str]:
    """The lab's server as `make run` starts it (python -m dashboard.serve), on 127.0.0.1:`port`."""
    return [sys.executable, "-m", "dashboard.serve", "--server.headless", "true", "--server.address", "127.0.0.1",
            "--server.port", str(port)]


@contextlib.contextmanager
def streamlit_server(env: dict | None = None):
    """The lab served on 127.0.0.1 only, on a free port; yields its base URL."""
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's Chromium is not installed")
    port = free_port()
    cmd = lab_command(port)
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, **(env or {})})
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(url, proc)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@contextlib.contextmanager
def redis_server():
    """A throwaway `redis-server` on a free loopback port, with a password and no persistence, stopped at
    the end; yields a client (str replies). Skips where the binary is missing (scripts/system-packages.sh)."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (scripts/system-packages.sh installs it)")
    import redis

    port, password = free_port(), secrets.token_hex(16)
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--requirepass", password,
                             "--save", "", "--appendonly", "no", "--protected-mode", "yes"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(host="127.0.0.1", port=port, password=password, decode_responses=True)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        yield client
    finally:
        client.close()
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def redis_url():
    """A throwaway Redis for the test module, as the URL a lab process is given."""
    with redis_server() as client:
        kw = client.connection_pool.connection_kwargs
        yield f"redis://:{kw['password']}@{kw['host']}:{kw['port']}/0"


@pytest.fixture(scope="session")
def lab_server():
    """The lab as `make run` serves it, one per test process, for the browser tests that need no setting
    of their own: a server started (torch, Streamlit, the trained model loaded) once, not once per file,
    and the lab's front end then comes from the shared context's cache in every file after the first.
    Tests that change a setting (a media folder, a limit) or stop a server start their own. One setting
    differs from `make run`'s: 127.0.0.1 is named a trusted proxy, so that a browser context plays a device
    of its own by X-Forwarded-For (Chromium cannot choose its source address); a browser that sends none
    is the lab's own machine, as under `make run`."""
    with streamlit_server({"ATTENTION_LAB_TRUSTED_PROXIES": "127.0.0.1"}) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's Chromium is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def lab_context(browser):
    """One browser context per test process, shared by the tests' pages: the lab's front end (its
    scripts, their compiled code) is then fetched and compiled once, not once per test. A test that
    needs its own device scale opens its own context; a page sets its own size and colour scheme
    (`page.set_viewport_size`, `page.emulate_media`). `clean_context` (below) clears what a test leaves."""
    context = browser.new_context(viewport={"width": 1600, "height": 1400}, accept_downloads=True)
    yield context
    context.close()


_FORGET = "() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} }"


def close_clean(page):
    """Close a page of the shared context, its origin's storage cleared first (Streamlit keeps a
    theme picked in its menu in localStorage, which the next page of that server would read)."""
    with contextlib.suppress(Exception):  # a page that crashed or never loaded has nothing to clear
        for frame in page.frames:
            if frame.url.startswith("http"):
                frame.evaluate(_FORGET)
    page.close()


@pytest.fixture
def clean_context(lab_context):
    """The shared context for one test, which opens its own pages (and closes them with
    `close_clean`); its cookies, permissions and routes are cleared when the test ends."""
    yield lab_context
    lab_context.clear_cookies()
    lab_context.clear_permissions()
    lab_context.unroute_all(behavior="ignoreErrors")


@pytest.fixture
def page(browser):
    """A page in a context of its own (tests/dashboard/test_browser.py's tests take one in the shared
    context instead: test_restart and test_watch_learn_browser failed there, not yet understood)."""
    context = browser.new_context(viewport={"width": 1600, "height": 1400}, accept_downloads=True)
    yield context.new_page()
    context.close()


def pytest_configure(config):
    """torch on one thread in every test process: `make test` runs two workers on two cores, and a
    trace's last float32 bits then never depend on how many threads a test before it left set."""
    import torch

    torch.set_num_threads(1)


# Test files that share a costly set-up cached per process run on one worker together:
# tests/animations/conftest.py's dry runs of the scenes at class quality and its one real render;
# tests/hall/conftest.py's hall (a session fixture: two workers would start two halls; test_stop.py
# ends it, and runs last of the group, in collection order); tests/films.py's trained films.
SHARED_SET_UP = {f"tests/{name}.py": group for group, names in {
    "animations-dry-runs": ("animations/test_scenes", "animations/test_legibility", "animations/test_captions",
                            "animations/test_narration", "animations/test_induction_scene"),
    "animations-render": ("animations/test_render", "animations/test_render_sound"),
    "hall": ("hall/test_failover", "hall/test_renders", "hall/test_seats", "hall/test_security", "hall/test_stop"),
    "films": ("core/test_learn", "core/test_learn_claims", "dashboard/test_watch_learn",
              "classroom/test_deck_giveaways")}.items() for name in names}

# The scopes (files or groups of SHARED_SET_UP) that take a worker longest, longest first: they
# start the run, so that no long one is drawn at the end while the other worker idles
# (ordered by each one's time in a whole `make test`, as `--durations` reports it).
LONGEST_FIRST = ("hall", "tests/dashboard/test_projector.py", "tests/dashboard/test_projector_slides.py",
                 "animations-dry-runs", "tests/dashboard/test_room_browser.py", "animations-render",
                 "tests/animations/test_speech.py", "tests/dashboard/test_restart.py",
                 "tests/dashboard/test_trained_browser.py", "tests/dashboard/test_watch_learn_browser.py",
                 "tests/studio/test_browser_studio.py", "tests/dashboard/test_browser.py", "films")


def scope(nodeid: str) -> str:
    """The unit the scheduler hands a worker: the test's file, or its SHARED_SET_UP group."""
    file = nodeid.split("::")[0]
    return SHARED_SET_UP.get(file, file)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """With `--dist loadgroup` (make test), a test file runs on one worker (its module's servers and
    trained films are shared by its tests), and the files of SHARED_SET_UP by group.

    A scheduler of our own, not xdist_group markers: xdist 3.8 groups by renaming each test's
    `_nodeid`, which pytest 9 no longer reads, so marked tests were spread over both workers and
    every module's set-up ran on each."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False  # the order of pytest_collection_modifyitems below

    class ByFile(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope(nodeid)

    return ByFile(config, log)


SLOW_MARKS = ("browser", "render", "hall", "slow")


def pytest_collection_modifyitems(config, items):
    """The scopes of LONGEST_FIRST first, in its order; then the other files with a browser, render,
    hall or slow test; then the rest; each scope's tests together and in their own order. A worker
    that draws a long file near the end leaves the other idle (one such file ran alone for the last
    three minutes of a run), while short files fill the gaps."""
    slow = {scope(item.nodeid) for item in items if any(item.get_closest_marker(m) for m in SLOW_MARKS)}
    first_seen = {}
    for item in items:
        first_seen.setdefault(scope(item.nodeid), len(first_seen))

    def rank(item):
        unit = scope(item.nodeid)
        tier = LONGEST_FIRST.index(unit) if unit in LONGEST_FIRST else len(LONGEST_FIRST) + (unit not in slow)
        return tier, first_seen[unit]

    items.sort(key=rank)  # stable: a scope keeps its tests' order (test_stop.py last of the hall's)


@pytest.fixture(scope="session")
def deck_names():
    """What a deck may name (classroom.decks.Names), as the dashboard passes it: navigation's url paths,
    the catalogue's scenes and its rule of which scene draws which lesson, the address's view names."""
    from animations.catalog import deck_names

    return deck_names()
