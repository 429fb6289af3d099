"""The Trained heads page in Debian's Chromium: it renders without an exception box, and a click on a
thumbnail opens the head that the thumbnail's own tooltip names. Screenshots go to test-artifacts/."""

import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.conftest import ARTIFACTS
from tests.core.conftest import needs_model
from tests.waits import charts_drawn, still

pytestmark = [pytest.mark.browser, needs_model]

SETTLED = "[data-testid=stApp][data-test-script-state=notRunning]"
SENTENCE = "The old teacher who lived near the river told the children a long story about the storm that flooded it."


@pytest.fixture(scope="module")
def server(lab_server):
    return lab_server


def settle(page):
    page.wait_for_selector(SETTLED, timeout=60_000)
    page.wait_for_selector("[data-testid=stVegaLiteChart] canvas, [data-testid=stVegaLiteChart] svg", timeout=60_000)
    charts_drawn(page)  # Vega draws just after the script settles


# Vega's tooltip as a reader sees it: its text while shown, else "".
TOOLTIP_TEXT = """() => {
  const tip = document.getElementById("vg-tooltip-element");
  const box = tip && tip.getBoundingClientRect();
  return tip && box.width > 0 && box.height > 0 && getComputedStyle(tip).visibility !== "hidden" ? tip.innerText : "";
}"""
# The tooltip read a frame after the pointer moved (one call to the browser per point, where a locator's
# count, visibility and text were three).
TOOLTIP_SHOWN = f"() => new Promise(r => requestAnimationFrame(() => r(({TOOLTIP_TEXT})())))"
THUMBNAIL = r"layer\s+(\d+)\s+head\s+(\d+)"  # what the model view's tooltip says of a thumbnail


def thumbnail_under_pointer(page, box) -> tuple[int, int, float, float]:
    """Move over the grid until Vega's tooltip names a thumbnail: (layer, head, x, y). A point between
    thumbnails shows none: after a short wait for it, the next point."""
    for fx in (0.62, 0.45, 0.8, 0.3):
        for fy in (0.45, 0.3, 0.6, 0.75):
            x, y = box["x"] + box["width"] * fx, box["y"] + box["height"] * fy
            page.mouse.move(x, y)
            try:
                said = page.wait_for_function(f"names => {{ const t = ({TOOLTIP_TEXT})(); "
                                              "return new RegExp(names).test(t) && t; }", arg=THUMBNAIL,
                                              polling=100, timeout=2_000).json_value()
            except PlaywrightTimeout:
                continue
            found = re.search(THUMBNAIL, said)
            return int(found[1]), int(found[2]), x, y
    raise AssertionError("no thumbnail answered with a tooltip")


def tooltip_numbers(page, field: str, points) -> list[int]:
    """The token numbers that Vega's tooltip gives for `field` ("query" or "key") at each point
    (x, y in the viewport) in turn, each kept once, in the order met."""
    seen = []
    for x, y in points:
        page.mouse.move(x, y)
        found = re.search(rf"{field}\s+(\d+)", page.evaluate(TOOLTIP_SHOWN))
        if found and (not seen or seen[-1] != int(found[1])):
            seen.append(int(found[1]))
    return seen


def test_the_page_renders_and_a_thumbnail_click_opens_that_head(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    try:
        page.goto(f"{server}/trained-heads?sentence={SENTENCE.replace(' ', '%20')}")
        settle(page)
        assert page.locator("h1").first.inner_text().strip() == "Trained heads"
        assert page.locator("[data-testid=stException]").count() == 0
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "trained-heads-1280x720.png"))
        grid = page.locator("[data-testid=stVegaLiteChart]").first
        # The model view's 6 x 12 thumbnails of 23 x 23 cells are one Canvas, not 38,088 SVG paths
        # whose paint the browser would redo on every change anywhere on the page.
        assert grid.locator("canvas").count() == 1 and grid.locator("svg path").count() == 0
        # The open head's 23 x 23 weights: on a Canvas too (sizing.SVG_UP_TO), redrawn faster than
        # 529 SVG cells on every head move.
        charts = page.locator("[data-testid=stVegaLiteChart]")
        assert charts.count() == 4, "the model view, the open head's weights, its weights beside its norm shares"
        weights = charts.nth(1)
        assert weights.locator("canvas").count() == 1 and weights.locator("svg path").count() == 0
        # Rows and columns in the sentence's order (the scales' domain), 10 after 9, not after 1:
        # the tooltips met going down the plot's middle (the part on screen), then across it, about
        # three points to a cell (a cell is over 25 px at this size), so none is stepped over.
        weights.scroll_into_view_if_needed()
        box = weights.locator("canvas").bounding_box()
        top, bottom = max(box["y"], 0), min(box["y"] + box["height"], 720)
        down = [(box["x"] + box["width"] * 0.55, y) for y in range(int(top) + 2, int(bottom) - 2, 9)]
        across = [(box["x"] + box["width"] * f / 100, (top + bottom) / 2) for f in range(4, 100)]
        for field, points in (("query", down), ("key", across)):
            met = tooltip_numbers(page, field, points)
            assert len(met) >= 12 and met == list(range(met[0], met[0] + len(met))) and 10 in met, (field, met)
        grid.scroll_into_view_if_needed()
        layer, head, x, y = thumbnail_under_pointer(page, still(grid))  # aimed once the scroll has ended
        page.mouse.click(x, y)
        page.wait_for_function("([l, h]) => { const p = new URL(location.href).searchParams; "
                               "return (p.get('layer') || '1') === l && (p.get('head') || '1') === h; }",
                               arg=[str(layer), str(head)], polling=100, timeout=30_000)
        settle(page)
        heading = page.get_by_text(f"Layer {layer}, head {head}", exact=False).first
        heading.scroll_into_view_if_needed()
        still(heading)  # the scroll has ended
        page.screenshot(path=str(ARTIFACTS / "trained-heads-opened-1280x720.png"))
        assert page.locator("[data-testid=stException]").count() == 0
    finally:
        context.close()
