"""Watch it learn in Debian's Chromium, as a class uses it: train a run, scrub it, play it.

The server gets a media folder of its own, so the run is really trained (by the film service's
trainer process), not found on disk. 100 steps keep it short. Screenshots go to test-artifacts/."""

import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from dashboard.app_pages.film import PLAY_SECONDS
from tests.conftest import ARTIFACTS, streamlit_server

pytestmark = pytest.mark.browser

SETTLED = "[data-testid=stApp][data-test-script-state=notRunning]"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with streamlit_server(env={"ATTENTION_LAB_MEDIA": str(tmp_path_factory.mktemp("media"))}) as url:
        yield url


def shown_step(page) -> int:
    found = re.search(r"at step (\d+)", page.get_by_role("heading").filter(has_text="on the probe").inner_text())
    return int(found[1])


def test_a_class_trains_scrubs_and_plays_a_run(server, page):
    # What the page sends its server: a request for a run, on a click or on each tick of a fragment's timer
    # (the browser keeps the timer: rerun.part gives the film's part one while the film plays).
    sockets, sent = [], []

    def watch(socket):
        sockets.append(socket)
        socket.on("framesent", lambda frame: sent.append(frame))

    page.on("websocket", watch)
    page.goto(f"{server}/watch-it-learn?film_steps=100")
    page.wait_for_selector(SETTLED, timeout=60_000)
    page.get_by_role("button", name="Skip the question").click()
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Training: step").first.wait_for(timeout=60_000)  # the live progress, polled
    page.get_by_text("Measured at the end of the run").or_(page.get_by_text("No head of this run")).wait_for(
        timeout=120_000)
    page.wait_for_selector(SETTLED, timeout=60_000)
    assert shown_step(page) == 100  # the film opens at its end
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "watch-it-learn-trained.png"))

    page.get_by_role("button", name="←").click()  # one snapshot back: the page and the address follow
    page.wait_for_function("() => new URL(location.href).searchParams.get('film_at') !== null", polling=100,
                           timeout=20_000)
    back = shown_step(page)
    assert back < 100
    assert page.evaluate("() => new URL(location.href).searchParams.get('film_at')") == str(back)
    page.get_by_role("button", name="←").click()  # a second back: Play then has two snapshots to tick through
    page.wait_for_function(f"() => new URL(location.href).searchParams.get('film_at') !== '{back}'", polling=100,
                           timeout=20_000)
    assert shown_step(page) < back

    before = len(sent)
    page.get_by_role("button", name="Play").click()  # plays on from here, one snapshot a tick
    page.wait_for_function("() => new URL(location.href).searchParams.get('film_at') === null", polling=100,
                           timeout=30_000)
    page.get_by_role("button", name="Play").wait_for(timeout=20_000)  # at the end, the film stops by itself
    assert shown_step(page) == 100
    # The click's request, then a tick's for each of the two snapshots (the last may also stop the film):
    # the ticks are seen.
    assert len(sent) - before >= 3, len(sent) - before
    page.get_by_role("button", name="Play").click()  # from the end, it starts again at the beginning
    page.wait_for_function("() => Number(new URL(location.href).searchParams.get('film_at') ?? 100) < 100",
                           polling=100, timeout=20_000)
    page.get_by_role("button", name="Pause").click()
    # The click's own run has drawn once its button says Play again: until then the page may still show a
    # tick before the pause (read too early under load, a step that then moved on was taken for the pause).
    page.get_by_role("button", name="Play").wait_for(timeout=20_000)
    page.wait_for_selector(SETTLED, timeout=30_000)
    paused = shown_step(page)
    # Paused, nothing moves, and nothing runs: the pause's run remade the film's part without a timer. Had the
    # timer stayed, it would ask for a run at every tick; three ticks go by with no request.
    try:
        sockets[-1].wait_for_event("framesent", timeout=3 * PLAY_SECONDS * 1000)
    except PlaywrightTimeout:
        pass
    else:
        pytest.fail("the paused page asked its server for a run: the film's timer still ticks")
    assert shown_step(page) == paused
    page.screenshot(path=str(ARTIFACTS / "watch-it-learn-paused.png"))
    assert page.locator("[data-testid=stException]").count() == 0
