"""The lab's server restarts under an open page (`make classroom` restarted; in a hall, a failover:
tests/hall/test_failover.py): the controls inside fragments must work again.

Before dashboard/serve.py, the new process ignored their reruns (it held no fragment), so page 1's
head control (in the lesson's fragment) did nothing at all, move after move. The sidebar's temperature
(in the sidebar's small fragment, lesson/rerun.py settings) is moved after a restart too: its callback
hands its run to the lesson's fragment (after_change)."""

import subprocess

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.conftest import ROOT, free_port, lab_command, wait_until_up
from tests.waits import reconnected

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


IN_URL = "name => new URL(location.href).searchParams.get(name)"


def in_url(page, name: str) -> str | None:
    return page.evaluate(IN_URL, name)


def head_buttons(page):
    return page.locator("[data-testid=stButtonGroup]").filter(has_text="Head to inspect")


def temperature_slider(page):
    return page.locator("[data-testid=stSlider]").filter(has_text="Softmax temperature").get_by_role("slider")


def open_head_2(page):
    head_buttons(page).get_by_role("radio", name="2", exact=True).click()


def temperature_down(page):
    temperature_slider(page).focus()
    temperature_slider(page).press("ArrowLeft")


def open_head(page) -> str:
    return head_buttons(page).get_by_role("radio", checked=True).inner_text()


def temperature(page) -> str:
    return temperature_slider(page).get_attribute("aria-valuetext")


# The same two, read in the page, where a wait can poll them (the text a locator's has_text matches: textContent).
OPEN_HEAD = """() => { const group = [...document.querySelectorAll('[data-testid=stButtonGroup]')]
    .find(g => g.textContent.includes('Head to inspect'));
  const on = group && group.querySelector('[role=radio][aria-checked=true]');
  return on ? on.innerText.trim() : null; }"""
TEMPERATURE = """() => { const box = [...document.querySelectorAll('[data-testid=stSlider]')]
    .find(s => s.textContent.includes('Softmax temperature'));
  const slider = box && box.querySelector('input[type=range], [role=slider]');
  return slider ? slider.getAttribute('aria-valuetext') : null; }"""

# what the control shows (read here, and in the page), its URL parameter, a move, the value it then writes:
# page 1's head buttons (in the lesson's fragment) and the sidebar's temperature (in the sidebar's fragment;
# its callback reruns the lesson's fragment alone)
CONTROLS = [(open_head, OPEN_HEAD, "head", open_head_2, "2"),
            (temperature, TEMPERATURE, "temperature", temperature_down, "0.7")]


def test_a_control_inside_a_fragment_works_after_the_server_restarts(page):
    """Each control after a restart of its own (one page, one server port): each one's first request to
    the new process names a fragment that process does not hold (the lesson's, the sidebar's)."""
    port = free_port()
    proc, url = start(port)
    try:
        page.goto(url)
        page.wait_for_selector(SETTLED, timeout=60_000)  # hang guards, on a busy machine
        page.wait_for_selector("[data-testid=stVegaLiteChart] svg", timeout=60_000)
        for shown, showing, name, act, moved in CONTROLS:
            start_value = shown(page)
            # the page's reading agrees (else the wait below would wait for the wrong thing)
            page.wait_for_function(f"start => ({showing})() === start", arg=start_value, polling=100, timeout=30_000)
            assert in_url(page, name) is None
            with reconnected(page):  # the browser reconnects to the new process
                stop(proc)
                proc, _ = start(port)
            moves = 0
            while in_url(page, name) != moved and moves < 2:
                # The first move after the restart runs the whole app, which draws the control from the
                # address (the default); the next one is the fragment's own rerun. A move that ran
                # nothing leaves the control at the moved value and the address without it.
                act(page)
                moves += 1
                try:  # a hang guard, not a speed check
                    page.wait_for_function(f"([name, moved, start]) => ({IN_URL})(name) === moved || "
                                           f"({showing})() === start", arg=[name, moved, start_value],
                                           polling=100, timeout=60_000)
                except PlaywrightTimeout:
                    pytest.fail(f"the {name} control shows {shown(page)}, but nothing ran")
            assert in_url(page, name) == moved, f"{moves} moves of the {name} control after the restart changed nothing"
            page.wait_for_selector(SETTLED, timeout=60_000)
            assert shown(page) == moved
            assert page.locator("[data-testid=stException]").count() == 0
    finally:
        stop(proc)
