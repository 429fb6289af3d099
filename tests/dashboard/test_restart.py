"""The lab's server restarts under an open page (`make classroom` restarted; in a hall, a failover:
tests/hall/test_failover.py): the controls inside fragments must work again.

Before dashboard/serve.py, the new process ignored their reruns (it held no fragment), so page 1's
head slider and the sidebar's temperature (in a fragment of its own) did nothing at all, move after move."""

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


def in_url(page, name: str) -> str | None:
    return page.evaluate(f"() => new URL(location.href).searchParams.get('{name}')")


# label, its URL parameter, a key, the value it then writes: page 1's head slider (in the lesson's
# fragment) and the sidebar's temperature (in the page-only controls' fragment, sidebar.py)
CONTROLS = [("Head to inspect", "head", "ArrowRight", "2"), ("Softmax temperature", "temperature", "ArrowLeft", "0.7")]


@pytest.mark.parametrize(("label", "name", "key", "moved"), CONTROLS, ids=["head", "temperature"])
def test_a_control_inside_a_fragment_works_after_the_server_restarts(page, label, name, key, moved):
    port = free_port()
    proc, url = start(port)
    try:
        page.goto(url)
        page.wait_for_selector(SETTLED, timeout=30_000)
        page.wait_for_selector("[data-testid=stVegaLiteChart] svg", timeout=30_000)
        slider = page.locator("[data-testid=stSlider]").filter(has_text=label).get_by_role("slider")
        start_value = slider.get_attribute("aria-valuetext")
        assert in_url(page, name) is None
        with page.expect_websocket(timeout=60_000):  # the browser reconnects to the new process
            stop(proc)
            proc, _ = start(port)
        page.wait_for_timeout(1000)
        moves = 0
        while in_url(page, name) != moved and moves < 2:
            # The first move after the restart runs the whole app, which draws the slider from the
            # address (the default); the next one is the fragment's own rerun.
            slider.focus()
            slider.press(key)
            moves += 1
            try:
                page.wait_for_function(f"() => new URL(location.href).searchParams.get('{name}') === '{moved}'",
                                       timeout=8_000)
            except PlaywrightTimeout:
                assert slider.get_attribute("aria-valuetext") == start_value, "drawn back from the address"
        assert in_url(page, name) == moved, f"{moves} moves of the {label.lower()} after the restart changed nothing"
        page.wait_for_selector(SETTLED, timeout=30_000)
        assert slider.get_attribute("aria-valuetext") == moved
        assert page.locator("[data-testid=stException]").count() == 0
    finally:
        stop(proc)
