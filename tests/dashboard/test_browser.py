"""The real thing: `streamlit run` on a loopback port, driven in Debian's Chromium by Playwright.

Screenshots go to test-artifacts/ (git-ignored). Skipped where Chromium is missing.
"""

import contextlib
from pathlib import Path
from urllib.parse import urlencode

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from tests.conftest import ARTIFACTS, close_clean
from tests.waits import charts_drawn, still

pytestmark = pytest.mark.browser

# Page 1 answers at / (test_projector.py opens every page there, fresh and from the sidebar) and at the
# names a teacher would type.
ALIASES = ["attention", "scaled-dot-product"]
SETTLED = "[data-testid=stApp][data-test-script-state=notRunning]"
TEMPERATURE_IS = "v => new URL(location.href).searchParams.get('temperature') === v"
# The colours of each chart's heatmap cells (one string a chart): a move that changes the numbers recolours them.
FILLS = """() => [...document.querySelectorAll('[data-testid=stVegaLiteChart]')].map(chart =>
  [...chart.querySelectorAll('g.mark-rect.role-mark path')].map(p => p.getAttribute('fill')).join())"""
# Waits poll every 100 ms, not on every animation frame (Playwright's default), which keeps Chromium drawing.


@pytest.fixture(scope="module")
def server(lab_server):
    return lab_server


@pytest.fixture
def page(clean_context):
    """A new page (a new Streamlit session) at 1600×1400 in the light scheme, in the shared context
    (its front end cached): the context's cookies and the page's storage are cleared after the test."""
    opened = clean_context.new_page()
    yield opened
    for popup in [p for p in clean_context.pages if p.opener() is opened]:
        close_clean(popup)
    close_clean(opened)


@pytest.fixture(scope="module")
def page_one(server, lab_context):
    """Page 1 of the default lesson, loaded once for the tests that leave the lesson as it was (each
    asserts that it did: the box shows d_model 16 again, the address holds no lesson setting)."""
    opened = lab_context.new_page()
    open_settled(opened, server)
    yield opened
    close_clean(opened)


def open_settled(page, url: str):
    page.goto(url)
    page.wait_for_selector(SETTLED, timeout=60_000)
    page.wait_for_selector("[data-testid=stVegaLiteChart] canvas, [data-testid=stVegaLiteChart] svg", timeout=30_000)
    charts_drawn(page)  # Vega draws just after the script settles


@pytest.mark.parametrize("path", ALIASES)
def test_page_one_answers_at_the_names_a_teacher_would_type(server, page, path):
    open_settled(page, f"{server}/{path}")
    assert page.locator("[data-testid=stException]").count() == 0
    assert page.locator("[data-testid=stVegaLiteChart]").count() >= 1
    assert page.locator("h1").first.inner_text().strip() == "Scaled dot-product attention"


def test_a_keyboard_slider_move_redraws_the_weights(server, page):
    open_settled(page, server)
    charts = page.locator("[data-testid=stVegaLiteChart]")
    weights = charts.nth(charts.count() - 1)  # step 3 (the tab open by default): the softmax weights
    weights.scroll_into_view_if_needed()
    before, colours = weights.screenshot(), page.evaluate(FILLS)[-1]
    slider = page.locator("[data-testid=stSlider]").filter(has_text="Softmax temperature").get_by_role("slider")
    slider.focus()
    for _ in range(2):
        slider.press("ArrowLeft")  # 1 -> 0.7 -> 0.5: sharper weights
    page.wait_for_function(TEMPERATURE_IS, arg="0.5", polling=100, timeout=20_000)
    page.wait_for_selector(SETTLED, timeout=30_000)
    with contextlib.suppress(PlaywrightTimeout):  # the screenshots below say whether it changed
        page.wait_for_function(f"before => ({FILLS})().at(-1) !== before", arg=colours, polling=100, timeout=15_000)
    charts_drawn(page)
    after = weights.screenshot()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "slider-moved.png"))
    assert after != before, "the weights chart did not change"
    assert page.locator("[data-testid=stException]").count() == 0


def test_a_temperature_move_keeps_the_sidebar_and_every_view_in_the_address(server, page):
    """The move reruns only the lesson's fragment (dashboard/lesson/rerun.py): the rest of the
    sidebar and the page's introduction stay as they were, and the display setting and the page's
    head stay in the address."""
    open_settled(page, f"{server}/?weights=row&head=2")
    # Tag each heatmap's cells: keyed by cell (charts._grid), they are updated in place, not rebuilt.
    tagged = page.evaluate("() => { const cells = document.querySelectorAll('.mark-rect.role-mark path');"
                           " cells.forEach(p => { p.__lab = true; }); return cells.length; }")
    colours = page.evaluate(FILLS)
    slider = page.locator("[data-testid=stSlider]").filter(has_text="Softmax temperature").get_by_role("slider")
    slider.focus()
    slider.press("ArrowLeft")  # 1 -> 0.7
    page.wait_for_function(TEMPERATURE_IS, arg="0.7", polling=100, timeout=20_000)
    page.wait_for_selector(SETTLED, timeout=30_000)
    # Vega draws just after the script settles: the weights' new colours (new cells or the same ones), then still
    page.wait_for_function(f"before => JSON.stringify(({FILLS})()) !== JSON.stringify(before)", arg=colours,
                           polling=100, timeout=30_000)
    charts_drawn(page)
    kept = page.evaluate("() => [...document.querySelectorAll('.mark-rect.role-mark path')]"
                         ".filter(p => p.__lab).length")
    assert tagged == 2 * 49 and kept == tagged, "the heatmaps' cells were redrawn in place"
    params = page.evaluate("() => Object.fromEntries(new URL(location.href).searchParams)")
    assert params == {"weights": "row", "head": "2", "temperature": "0.7"}
    assert page.get_by_label("d_model (size of each token vector, 1 to 1,024)").input_value() == "16"
    assert page.get_by_text("d_k = 16 / 4 = 4").count() == 1
    assert page.get_by_role("heading", name="Scaled dot-product attention").is_visible()
    assert page.get_by_text("Each token's vector x is multiplied by three matrices").is_visible()
    assert page.locator("[data-testid=stException]").count() == 0
    open_settled(page, page.url)  # the address alone brings the same screen back
    assert slider.get_attribute("aria-valuetext") == "0.7"


def test_on_a_page_that_runs_whole_a_temperature_move_reaches_the_address(server, page):
    """Where the page has no lesson view to hand the run to (the Room page runs whole), a temperature
    move runs the whole app, whose end writes the address."""
    page.goto(f"{server}/room")
    page.wait_for_selector(SETTLED, timeout=30_000)
    page.get_by_role("heading", name="Classroom room", exact=True).wait_for(timeout=30_000)
    slider = page.locator("[data-testid=stSlider]").filter(has_text="Softmax temperature").get_by_role("slider")
    slider.focus()
    slider.press("ArrowLeft")  # 1 -> 0.7
    page.wait_for_function(TEMPERATURE_IS, arg="0.7", polling=100, timeout=20_000)
    page.wait_for_selector(SETTLED, timeout=30_000)
    assert page.locator("[data-testid=stException]").count() == 0


def test_loading_the_worked_example_from_its_page_puts_it_in_the_sidebar(server, page):
    """A page button that changes the lesson runs inside the lesson's fragment: the fragment sees
    that the sidebar no longer shows the lesson and asks for a full run."""
    open_settled(page, f"{server}/worked-example")
    page.get_by_role("button", name="Load this example into the sidebar").click()
    page.get_by_text("Q, K and V as entered by the preset").wait_for(timeout=20_000)
    page.wait_for_selector(SETTLED, timeout=30_000)
    assert page.get_by_label("d_model (size of each token vector, 1 to 1,024)").input_value() == "2"
    assert "source=manual" in page.url
    assert page.locator("[data-testid=stException]").count() == 0


@pytest.mark.parametrize("typed,words", [
    ("2000", "d_model must be between 1 and 1024, got 2000"),
    ("1e3", "written with the digits 0 to 9"),
    ("abc", "d_model must be a whole number"),
    ("", "d_model is empty"),
])
def test_typing_a_d_model_that_cannot_work_keeps_the_lesson_and_says_why(page_one, typed, words):
    page = page_one
    box = page.get_by_label("d_model (size of each token vector, 1 to 1,024)")
    box.fill(typed)
    box.press("Enter")
    # The notice of this value (it quotes what was typed): the page is shared, and two values get the same words.
    page.get_by_text(words).filter(has_text=typed).first.wait_for(timeout=20_000)
    page.wait_for_selector(SETTLED, timeout=30_000)
    assert box.input_value() == "16", "the box shows the lesson's d_model again"
    assert "d_model" not in page.url and "?" not in page.url
    assert page.locator("[data-testid=stException]").count() == 0


def test_typing_a_seed_that_cannot_work_keeps_the_lesson_and_says_why(page_one):
    """The seed's box sits in the sidebar's small fragment (rerun.settings), whose own rerun would
    leave the notice unsaid: its callback asks for the whole app, which says why and puts the box back."""
    page = page_one
    box = page.get_by_role("textbox", name="Seed of the random weights")
    box.fill("1e3")
    box.press("Enter")
    page.get_by_text("The seed must be a whole number").filter(has_text="1e3").first.wait_for(timeout=20_000)
    page.wait_for_selector(SETTLED, timeout=30_000)
    assert box.input_value() == "0", "the box shows the lesson's seed again"
    assert "seed" not in page.url and "?" not in page.url
    assert page.locator("[data-testid=stException]").count() == 0


def test_pasting_too_much_text_says_how_long_it_may_be(page_one):
    page = page_one
    box = page.get_by_role("textbox", name="Text to attend over")
    box.fill("word " * 600)
    box.press("Enter")
    page.get_by_text("3,000 characters long; the lab takes at most 2,000").first.wait_for(timeout=20_000)
    assert "text=" not in page.url and "?" not in page.url
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
    box = still(grid)  # the popover slides open: aim once the grid has stopped moving (a busy machine slides slowly)
    # The grid's cells as glide-data-grid's accessible table gives them (glide-cell-<column>-<row>; column 0
    # is the index): row 1, column 1, ticked.
    cell = page.locator("[data-testid=stDataFrame] #glide-cell-1-0")
    expect(cell).to_have_text("true")
    # 3×3 checkboxes after a narrow index column and a header row: aim at row 1, column 1's box, whose click unticks it.
    page.mouse.click(box["x"] + box["width"] * 0.32, box["y"] + box["height"] * 0.37)
    expect(cell).to_have_text("false", timeout=20_000)
    page.keyboard.press("Escape")  # closes the popover
    grid.wait_for(state="hidden", timeout=20_000)
    page.wait_for_function("() => new URL(location.href).searchParams.get('custom_mask') === '000;110;111'",
                           polling=100, timeout=20_000)
    page.wait_for_selector(SETTLED, timeout=30_000)
    page.get_by_text("Fully blocked row").first.wait_for(timeout=20_000)
    page.screenshot(path=str(ARTIFACTS / "custom-mask-blocked-row.png"))
    assert page.locator("[data-testid=stException]").count() == 0


def test_export_menu_downloads_a_png_rendered_on_the_server(server, page):
    open_settled(page, server)
    page.get_by_role("button", name="Export").last.click()
    button = page.get_by_role("button", name="Chart (PNG)")
    button.wait_for(timeout=20_000)
    with page.expect_download(timeout=30_000) as info:
        button.click()
    path = info.value.path()
    assert info.value.suggested_filename.endswith(".png")
    assert Path(path).read_bytes().startswith(b"\x89PNG")


def test_a_crafted_link_shows_its_values_as_text_not_a_link_an_image_or_a_heading(server, page):
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    crafted = {"mask": "[Log in again](http://evil.example)", "head": "![x](http://evil.example/p.png)",
               "step": "x\n# EXAM CANCELLED"}
    open_settled(page, f"{server}/attention?{urlencode(crafted)}")
    notices = page.locator("[data-testid=stAlert]")
    said = " ".join(notices.nth(i).inner_text() for i in range(notices.count())).replace("\u2060", "")  # invisible
    assert "[Log in again](http://evil.example)" in said and "![x](http://evil.example/p.png)" in said
    assert "EXAM CANCELLED" in said
    assert page.locator("a[href*='evil']").count() == 0
    assert page.locator("img[src*='evil']").count() == 0
    assert page.locator("h1", has_text="EXAM").count() == 0
    assert not [u for u in requested if not u.startswith(server)], "the page fetched from outside the lab"


# The weights chart's cell for query 1, key 2: its box, the box of the number printed in it, and its description.
CELL = """() => {
  const chart = [...document.querySelectorAll('[data-testid=stVegaLiteChart]')].at(-1);
  const cell = chart.querySelectorAll('g.mark-rect.role-mark path')[1];
  const box = cell.getBoundingClientRect(), x = box.x + box.width / 2, y = box.y + box.height / 2;
  const number = [...chart.querySelectorAll('g.mark-text.role-mark text')].find(t => {
    const b = t.getBoundingClientRect(); return b.left <= x && x <= b.right && b.top <= y && y <= b.bottom; });
  return {x, y, number: number ? number.textContent : null, label: cell.getAttribute('aria-label'),
          under: document.elementFromPoint(x, y) === cell};
}"""


def test_a_pointer_on_a_cells_number_shows_the_cells_tooltip(page_one):
    """A number is drawn over its cell, and the number layer has no tooltip of its own (heatmaps._numbers): the
    pointer passes through the number to the cell, whose tooltip shows, with the weight the cell prints."""
    page = page_one
    cell = page.evaluate(CELL)
    assert cell["number"] and cell["under"], cell
    assert cell["label"].startswith("query: 1 The; key: 2 cat; q·k: "), cell["label"]
    weight = cell["label"].rsplit("weight: ", 1)[1]  # three decimals; the cell prints two
    assert f"{float(weight):.2f}" == cell["number"], (weight, cell["number"])
    page.mouse.move(cell["x"], cell["y"])
    tip = page.wait_for_function("() => { const t = document.getElementById('vg-tooltip-element'); return t && "
                                 "getComputedStyle(t).visibility !== 'hidden' && t.innerText.includes('weight') && "
                                 "t.innerText; }", polling=100, timeout=10_000).json_value()
    assert "1 The" in tip and "2 cat" in tip and weight in tip, tip
    page.mouse.move(0, 0)
