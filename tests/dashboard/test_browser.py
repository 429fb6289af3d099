"""The real thing: `streamlit run` on a loopback port, driven in Debian's Chromium by Playwright.

Screenshots go to test-artifacts/ (git-ignored). Skipped where Chromium is missing.
"""

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
PAGES = ["", "multi-head", "masking", "why-scale", "positional", "block", "worked-example"]
SETTLED = "[data-testid=stApp][data-test-script-state=notRunning]"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_up(url: str, proc: subprocess.Popen, seconds: float = 60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("streamlit exited before serving")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError("streamlit did not come up")


@pytest.fixture(scope="module")
def server():
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's Chromium is not installed")
    port = free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", "dashboard/app.py", "--server.headless", "true",
           "--server.address", "127.0.0.1", "--server.port", str(port)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(url, proc)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1600, "height": 1400})
    yield context.new_page()
    context.close()


def open_settled(page, url: str):
    page.goto(url)
    page.wait_for_selector(SETTLED, timeout=30_000)
    page.wait_for_selector("[data-testid=stVegaLiteChart] canvas, [data-testid=stVegaLiteChart] svg", timeout=30_000)
    page.wait_for_timeout(500)  # Vega draws just after the script settles


@pytest.mark.parametrize("path", PAGES)
def test_every_page_renders_without_an_exception_box(server, page, path):
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    open_settled(page, f"{server}/{path}")
    outside = [u for u in requested if not u.startswith((server, "data:", "blob:"))]
    assert not outside, f"the page fetched from outside the lab: {outside[:3]}"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"page-{path or 'attention'}.png"))
    assert page.locator("[data-testid=stException]").count() == 0
    assert page.locator("[data-testid=stVegaLiteChart]").count() >= 1
    assert page.locator("h1").first.inner_text().strip()


def test_a_keyboard_slider_move_redraws_the_weights(server, page):
    open_settled(page, server)
    charts = page.locator("[data-testid=stVegaLiteChart]")
    weights = charts.nth(charts.count() - 1)  # step 3 (the tab open by default): the softmax weights
    weights.scroll_into_view_if_needed()
    before = weights.screenshot()
    slider = page.locator("[data-testid=stSlider]").filter(has_text="Softmax temperature").get_by_role("slider")
    slider.focus()
    for _ in range(10):
        slider.press("ArrowLeft")  # 1.00 -> 0.50: sharper weights
    page.wait_for_function("() => new URL(location.href).searchParams.get('temperature') === '0.5'", timeout=20_000)
    page.wait_for_selector(SETTLED, timeout=30_000)
    deadline = time.monotonic() + 15
    after = weights.screenshot()
    while after == before and time.monotonic() < deadline:
        page.wait_for_timeout(200)
        after = weights.screenshot()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "slider-moved.png"))
    assert after != before, "the weights chart did not change"
    assert page.locator("[data-testid=stException]").count() == 0


def test_a_bad_link_shows_a_notice_not_a_traceback(server, page):
    open_settled(page, f"{server}/?d_model=10&num_heads=4")
    notice = page.locator("[data-testid=stAlert]").first
    assert "not divisible by 4 heads" in notice.inner_text()
    assert page.locator("[data-testid=stException]").count() == 0


def test_unticking_a_custom_mask_row_blocks_it(server, page):
    open_settled(page, f"{server}/masking?source=random&seq_len=3&mask=custom&custom_mask=100;110;111")
    assert page.get_by_text("Fully blocked row").count() == 0
    page.get_by_text("Edit the custom mask").click()
    grid = page.locator("[data-testid=stDataFrame] canvas").first
    grid.wait_for()
    page.wait_for_timeout(1000)  # the popover slides open
    box = grid.bounding_box()
    # 3×3 checkboxes after a narrow index column and a header row: aim at row 1, column 1.
    page.mouse.click(box["x"] + box["width"] * 0.32, box["y"] + box["height"] * 0.37)
    page.wait_for_timeout(300)
    page.keyboard.press(" ")
    page.wait_for_timeout(300)
    page.keyboard.press("Escape")
    page.wait_for_function("() => new URL(location.href).searchParams.get('custom_mask') === '000;110;111'",
                           timeout=20_000)
    page.wait_for_selector(SETTLED, timeout=30_000)
    page.get_by_text("Fully blocked row").first.wait_for(timeout=20_000)
    page.screenshot(path=str(ARTIFACTS / "custom-mask-blocked-row.png"))
    assert page.locator("[data-testid=stException]").count() == 0


def test_export_menu_downloads_a_png_rendered_on_the_server(server, browser):
    context = browser.new_context(viewport={"width": 1600, "height": 1400}, accept_downloads=True)
    page = context.new_page()
    try:
        open_settled(page, server)
        page.get_by_role("button", name="Export").last.click()
        button = page.get_by_role("button", name="Chart (PNG)")
        button.wait_for(timeout=20_000)
        with page.expect_download(timeout=30_000) as info:
            button.click()
        path = info.value.path()
        assert info.value.suggested_filename.endswith(".png")
        assert Path(path).read_bytes().startswith(b"\x89PNG")
    finally:
        context.close()
