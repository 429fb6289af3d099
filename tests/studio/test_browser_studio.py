"""In Chromium: press "Render with my settings" and watch the video appear and play."""

import pytest

from tests.conftest import ARTIFACTS, streamlit_server

pytestmark = [pytest.mark.browser, pytest.mark.render]

SETTLED = "[data-testid=stApp][data-test-script-state=notRunning]"
TINY = "?source=random&seq_len=3&d_model=4&num_heads=1"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with streamlit_server(env={"ATTENTION_LAB_MEDIA": str(tmp_path_factory.mktemp("media"))}) as url:
        yield url


def test_render_button_gives_a_video_that_plays(server, page):
    page.goto(server + "/" + TINY)
    page.wait_for_selector(SETTLED, timeout=30_000)
    sidebar = page.locator("[data-testid=stSidebar]")
    button = sidebar.get_by_role("button", name="Render with my settings")  # scene 1, the default
    button.scroll_into_view_if_needed()
    button.click()
    video = sidebar.locator("video")
    video.wait_for(timeout=180_000)
    # Start it muted (headless Chromium allows that), then see its clock move.
    playing = page.wait_for_function(
        """() => { const v = document.querySelector('[data-testid=stSidebar] video');
                   if (!v) return false;
                   if (v.paused) { v.muted = true; v.play().catch(() => {}); }
                   return v.readyState >= 2 && v.currentTime > 0.2 ? v.duration : false; }""",
        timeout=60_000)
    assert playing.json_value() > 5  # seconds of video
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "studio-video.png"))
    assert page.locator("[data-testid=stException]").count() == 0
    assert sidebar.get_by_role("button", name="Download the video").count() == 1
