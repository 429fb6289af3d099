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
    """A real render (manim, in the server's render process) of the scene and narration the sidebar
    chose: Scaling, silent (the narrated render is tested in tests/animations; a silent one is the
    shortest real render); one video, no error, and it plays."""
    page.goto(server + "/" + TINY)
    page.wait_for_selector(SETTLED, timeout=30_000)
    sidebar = page.locator("[data-testid=stSidebar]")
    scene = sidebar.get_by_role("combobox", name="Scene")
    scene.scroll_into_view_if_needed()
    scene.click()
    page.get_by_role("option", name="scaling", exact=True).click()
    page.wait_for_function("() => document.querySelector('[data-testid=stSidebar] input[aria-label=Scene]').value "
                           "=== 'scaling'", polling=100, timeout=30_000)
    page.wait_for_selector(SETTLED, timeout=30_000)
    sidebar.locator("[data-testid=stCheckbox]").filter(has_text="Narration").click()
    page.wait_for_function("() => !document.querySelector('[data-testid=stSidebar] input[aria-label=Narration]')"
                           ".checked", polling=100, timeout=30_000)
    page.wait_for_selector(SETTLED, timeout=30_000)
    button = sidebar.get_by_role("button", name="Render with my settings")
    button.scroll_into_view_if_needed()
    button.click()
    video = sidebar.locator("video")
    video.wait_for(timeout=180_000)
    assert sidebar.locator("video").count() == 1
    assert "scaling, silent" in sidebar.inner_text()  # the panel says which video it shows
    assert page.locator("[data-testid=stAlertContentError]").count() == 0
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
