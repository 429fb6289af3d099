"""The lab's server restarts under an open page (`make classroom` restarted; in a hall, a failover:
tests/hall/test_failover.py): the controls inside the lesson's fragment must work again.

Before dashboard/serve.py, the new process ignored their reruns (it held no fragment), so page 1's
head slider did nothing at all, move after move."""

import subprocess

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.conftest import ROOT, free_port, lab_command, wait_until_up

pytestmark = pytest.mark.browser

SETTLED = "[data-testid=stApp][data-test-script-state=notRunning]"


def start(port: int) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(lab_command(port), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    wait_until_up(url, proc)
    return proc, url


def stop(proc: subprocess.Popen):
    proc.kill()
    proc.wait(timeout=20)


def head_in_url(page) -> str | None:
    return page.evaluate("() => new URL(location.href).searchParams.get('head')")


def test_the_head_slider_inside_the_lesson_fragment_works_after_the_server_restarts(page):
    port = free_port()
    proc, url = start(port)
    try:
        page.goto(url)
        page.wait_for_selector(SETTLED, timeout=30_000)
        page.wait_for_selector("[data-testid=stVegaLiteChart] svg", timeout=30_000)
        slider = page.locator("[data-testid=stSlider]").filter(has_text="Head to inspect").get_by_role("slider")
        assert slider.get_attribute("aria-valuetext") == "1" and head_in_url(page) is None
        with page.expect_websocket(timeout=60_000):  # the browser reconnects to the new process
            stop(proc)
            proc, _ = start(port)
        page.wait_for_timeout(1000)
        moves = 0
        while head_in_url(page) != "2" and moves < 2:
            # The first move after the restart runs the whole app, which draws the slider from the
            # address (head 1, the default); the next one is the fragment's own rerun.
            slider.focus()
            slider.press("ArrowRight")
            moves += 1
            try:
                page.wait_for_function("() => new URL(location.href).searchParams.get('head') === '2'", timeout=8_000)
            except PlaywrightTimeout:
                continue
        assert head_in_url(page) == "2", f"{moves} moves of the head slider after the restart changed nothing"
        page.wait_for_selector(SETTLED, timeout=30_000)
        assert slider.get_attribute("aria-valuetext") == "2"
        assert page.locator("[data-testid=stException]").count() == 0
    finally:
        stop(proc)
