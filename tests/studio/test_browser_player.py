"""In Chromium, as on a projector: the Lecture page's player, at 1280×720 and 1920×1080, in the
light and the dark theme. The heading, the picture and the caption band fit the window together
(no scrolling within a player), the caption stands beneath the picture (no subtitle track over
it) and follows the video's clock; presenter mode likewise. Screenshots: test-artifacts/player-*."""

import json

import pytest

from tests.conftest import ARTIFACTS, streamlit_server

from .conftest import CUES, lecture_media

pytestmark = pytest.mark.browser
SETTLED = "[data-testid=stApp][data-test-script-state=notRunning]"
SIZES = [(1280, 720), (1920, 1080)]

# The boxes of the header, the heading, the video and the band, after scrolling the heading to just
# below Streamlit's fixed header (as a teacher scrolls to a player); and what the video shows.
MEASURE = """(id) => {
  const heading = document.getElementById(id);
  let box = heading.parentElement;
  while (box && !(box.scrollHeight > box.clientHeight && /auto|scroll/.test(getComputedStyle(box).overflowY)))
    box = box.parentElement;
  const header = document.querySelector('[data-testid="stHeader"]').getBoundingClientRect();
  const scroller = box || document.scrollingElement;
  scroller.scrollTop += heading.getBoundingClientRect().top - header.bottom - 8;
  const video = [...document.querySelectorAll("video")].find(
      (v) => v.getBoundingClientRect().top > heading.getBoundingClientRect().top);
  const band = [...document.querySelectorAll("*")].map((e) => e.shadowRoot && e.shadowRoot.querySelector(".lab-band"))
      .filter(Boolean).find((b) => b.getBoundingClientRect().top > video.getBoundingClientRect().top);
  const rect = (e) => { const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; };
  return {window: window.innerHeight, header: rect(document.querySelector('[data-testid="stHeader"]')),
          heading: rect(heading), video: rect(video), band: rect(band), text: band.textContent,
          showing: [...video.textTracks].filter((t) => t.mode === "showing").length,
          videoWidth: video.getBoundingClientRect().width, column: video.parentElement.clientWidth};
}"""


@pytest.fixture(scope="module", params=["light", "dark"])
def server(request, tmp_path_factory):
    media = lecture_media(tmp_path_factory.mktemp("media"))
    with streamlit_server(env={"ATTENTION_LAB_MEDIA": str(media), "STREAMLIT_THEME_BASE": request.param}) as url:
        yield url, request.param


def _fits(box: dict, name: str):
    assert box["heading"]["top"] >= box["header"]["bottom"] - 1, (name, box)
    assert box["heading"]["bottom"] <= box["video"]["top"], (name, box)
    assert box["video"]["bottom"] <= box["band"]["top"], (name, box)  # the caption beneath the picture
    assert box["band"]["bottom"] <= box["window"], (name, box)  # all of it in the window
    assert box["showing"] == 0, (name, box)
    # as large as the window allows: the column's whole width, or down to the window's bottom
    assert box["videoWidth"] >= box["column"] - 2 or box["window"] - box["band"]["bottom"] < 40, (name, box)


@pytest.fixture(scope="module")
def viewer(server, browser):
    """One browser for a theme's server, its sizes each a page of its own (a new page in a context that
    has loaded the lab costs Chromium less than a new context)."""
    context = browser.new_context(color_scheme=server[1])
    yield context
    context.close()


def _open(viewer, url, size):
    page = viewer.new_page()
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(url + "/lecture")
    page.wait_for_selector(SETTLED, timeout=60_000)
    page.wait_for_selector(".lab-band", timeout=30_000)
    page.wait_for_function("() => [...document.querySelectorAll('video')].every(v => v.readyState >= 1)",
                           timeout=30_000)
    return page


# Whether the heading's own player is drawn: the first video below it stands above the next heading. A scene whose
# render job is still queued shows its progress instead, until its poll reruns the page; the next video is then the
# next scene's (a clean-clone run measured that one, 674 px below the heading, and failed).
OWN_PLAYER = """(id) => {
  const top = (e) => e.getBoundingClientRect().top;
  const heading = document.getElementById(id);
  if (!heading) return false;
  const main = heading.closest('[data-testid="stMain"]') || document;  // the sidebar has headings of its own
  const video = [...main.querySelectorAll("video")].find((v) => top(v) > top(heading));
  const next = [...main.querySelectorAll("h1, h2, h3")].find((h) => top(h) > top(heading) + 1);
  return Boolean(video && video.readyState >= 1 && (!next || top(video) < top(next)));
}"""


def settled(page, heading: str):
    """The player under `heading` as a viewer sees it: its own video drawn and loaded, the page's fonts in (the
    band measures its captions with them), the first cue shown, and two frames drawn since."""
    page.wait_for_function(OWN_PLAYER, arg=heading, polling=100, timeout=30_000)
    page.wait_for_function("() => document.fonts.status === 'loaded'", timeout=30_000)
    page.wait_for_function(f"() => ({MEASURE})('{heading}').text === {json.dumps(CUES[0][2])}", timeout=30_000)
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_player_and_presenter_fit_the_window_with_the_caption_beneath(server, viewer, size):
    url, scheme = server
    name = f"{size[0]}x{size[1]}-{scheme}"
    page = _open(viewer, url, size)
    try:
        settled(page, "lab-scores")
        box = page.evaluate(MEASURE, "lab-scores")
        _fits(box, "lecture")
        assert box["text"] == CUES[0][2]
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"player-{name}.png"))
        page.evaluate("() => { const v = document.querySelector('video'); v.currentTime = 2.5; }")
        page.wait_for_function("(t) => [...document.querySelectorAll('*')].some((e) => e.shadowRoot && "
                               "e.shadowRoot.querySelector('.lab-band')?.textContent === t)", arg=CUES[1][2],
                               timeout=10_000)
        after = page.evaluate(MEASURE, "lab-scores")["band"]  # a longer caption: the band does not grow
        assert after == pytest.approx(box["band"], abs=1)

        page.get_by_text("Presenter mode: step through one scene").click()
        page.wait_for_selector("#lab-step", timeout=30_000)
        page.wait_for_selector(SETTLED, timeout=30_000)
        settled(page, "lab-step")
        box = page.evaluate(MEASURE, "lab-step")
        _fits(box, "presenter")
        assert box["text"] == CUES[0][2]
        page.screenshot(path=str(ARTIFACTS / f"presenter-{name}.png"))
        assert page.locator("[data-testid=stException]").count() == 0
    finally:
        page.close()


def test_a_player_whose_video_left_the_page_throws_nothing_when_the_window_changes(server, viewer):
    """A clean-clone lecture run caught "Cannot read properties of null (reading 'clientWidth')" on the presenter:
    a rerun took a video out of the page while its band's listeners still ran. Now a player that has left the
    page does nothing."""
    page = _open(viewer, server[0], SIZES[0])
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        settled(page, "lab-scores")
        page.evaluate("() => document.querySelectorAll('video').forEach((v) => v.remove())")
        page.set_viewport_size({"width": SIZES[1][0], "height": SIZES[1][1]})  # a resize, as a window dragged
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        assert errors == []
    finally:
        page.close()
