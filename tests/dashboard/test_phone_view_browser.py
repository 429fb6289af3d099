"""The charts too dense for a phone, in Chromium at 390×844 with touch (the checks of test_phone_browser.py):
on Trained heads the thumbnails a student taps to open a head, and the table of measures; on Watch it learn
the open head. A browser that says it is a phone (an iPhone's User-Agent) gets their phone-sized view
(phone.phone_view); one that does not, at the same width, the full charts in boxes that scroll sideways.
Screenshots go to test-artifacts/phone-*.png."""

import io

import numpy as np
import pytest
from PIL import Image

from classroom.films.store import FilmStore
from tests.conftest import streamlit_server
from tests.dashboard.test_phone_browser import HEIGHT, TAP, WAIT, WIDTH, fits_the_width, settled, shot, tall
from tests.dashboard.test_phone_view import FILM, IPHONE
from tests.films import trained
from tests.waits import charts_drawn, still

pytestmark = pytest.mark.browser


def test_a_narrow_window_gets_the_trained_heads_full_grid_tap_sized_in_a_box_of_its_own(browser, lab_server):
    """6 × 12 thumbnails across 358 px were 23 px each, and a thumbnail is what a student taps to open a head.
    In a narrow window whose browser does not say it is a phone (Chromium's own User-Agent), the grid is drawn
    wider, in a box that scrolls sideways itself; the page does not. (A phone with its switch off gets the same
    grid: test_phone_view.py.)"""
    hand = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, is_mobile=True, has_touch=True)
    phone = hand.new_page()
    phone.goto(f"{lab_server}/trained-heads")
    settled(phone)
    phone.get_by_role("heading", name="Every head's measured patterns").wait_for(timeout=120_000)
    grid = phone.locator("[class*=st-key-trained_grid_]")
    grid.locator("canvas.marks, svg.marks").first.wait_for(timeout=WAIT)
    charts_drawn(phone, timeout=WAIT)
    box, drawn = still(grid), grid.locator("canvas.marks, svg.marks").first.bounding_box()
    assert box["width"] <= WIDTH - 32 + 0.5, f"the grid's box is {box['width']:.0f} px wide"
    # 12 heads side by side, after the "layer 1" labels (under 60 px), with a 6 px gap each
    assert (drawn["width"] - 60) / 12 - 6 >= TAP, f"thumbnails on a {drawn['width']:.0f} px wide grid"
    fits_the_width(phone, "Trained heads")
    grid.scroll_into_view_if_needed()
    shot(phone, "trained-heads-grid")
    hand.close()


def a_phone(browser):
    return browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, is_mobile=True, has_touch=True,
                               user_agent=IPHONE)


def runs(inked: np.ndarray) -> list[tuple[int, int]]:
    """(start, end) of each run of True, in pixels."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], inked.astype(int), [0]])))
    return list(zip(edges[::2], edges[1::2], strict=True))


def thumbnails(grid) -> tuple[list, list]:
    """The thumbnails' columns and rows (start, end) in the page's px, read from the grid's own pixels: the cells'
    colours (viridis) are never white, the gaps between thumbnails and the axes' space are."""
    box = grid.bounding_box()
    pixels = np.asarray(Image.open(io.BytesIO(grid.screenshot())).convert("RGB"), dtype=int)  # (h, w, 3)
    ink = (pixels < 235).any(axis=-1)  # (h, w): not white
    columns = [c for c in runs(ink.mean(axis=0) > 0.5) if c[1] - c[0] > 20]  # text and the legend are sparse
    rows = [r for r in runs(ink[:, columns[0][0]:columns[-1][1]].mean(axis=1) > 0.5) if r[1] - r[0] > 20]
    return ([(box["x"] + a, box["x"] + b) for a, b in columns], [(box["y"] + a, box["y"] + b) for a, b in rows])


def opened(phone, layer: int, head: int):
    """The page has opened that head: its sentence under "One head, step by step", and the address."""
    phone.wait_for_url(f"**/trained-heads?*layer={layer}&head={head}*", timeout=WAIT)
    settled(phone)
    said = phone.locator("[data-testid=stMain] [data-testid=stMarkdown]").filter(
        has_text=f"Layer {layer}, head {head} on this sentence")
    assert said.count() == 1, f"layer {layer}, head {head} did not open"


def test_a_phone_gets_the_trained_heads_phone_sized_and_a_tap_opens_a_head(browser, lab_server):
    """A browser that says it is a phone: the switch, on; the grid with a column per layer, every thumbnail at
    least 44 px wide and high, no sideways scrolling; a tap on one opens that head. The table: one measure, no
    sideways scrolling."""
    hand = a_phone(browser)
    phone = hand.new_page()
    phone.goto(f"{lab_server}/trained-heads")
    settled(phone)
    main = phone.locator("[data-testid=stMain]")
    main.get_by_role("heading", name="Every head's measured patterns").wait_for(timeout=120_000)
    switch = main.get_by_test_id("stCheckbox").filter(has_text="Phone-sized view")
    switch.wait_for(timeout=WAIT)  # drawn: a new browser gets the switch's code after the run (a skeleton till then)
    assert switch.count() == 1 and switch.locator("input").is_checked()
    tall(switch.locator("label"), "the Phone-sized view switch")
    grid = phone.locator("[class*=st-key-trained_phone_grid_]")
    grid.locator("canvas.marks").wait_for(timeout=WAIT)
    charts_drawn(phone, timeout=WAIT)
    grid.scroll_into_view_if_needed()
    box = still(grid)
    assert box["width"] <= WIDTH - 32 + 0.5, f"the grid's box is {box['width']:.0f} px wide"
    assert grid.evaluate("e => e.scrollWidth <= e.clientWidth"), "the grid scrolls sideways in its box"
    columns, rows = thumbnails(grid)
    assert len(columns) == 6 and len(rows) == 12, f"{len(columns)} columns (layers), {len(rows)} rows (heads)"
    small = [round(b - a) for a, b in columns + rows if b - a < TAP]
    assert not small, f"thumbnails {small} px wide or high, under {TAP} px"
    fits_the_width(phone, "Trained heads, phone-sized")
    shot(phone, "trained-heads-phone-grid")

    # A tap opens its head, and a second tap another (Vega's canvas once took every tap for the first one); a
    # swipe that scrolls the page from a thumbnail opens none.
    for layer, head in ((4, 7), (2, 10)):
        grid = phone.locator("[class*=st-key-trained_phone_grid_]")  # a new key after each pick
        grid.locator("canvas.marks").wait_for(timeout=WAIT)
        charts_drawn(phone, timeout=WAIT)
        grid.scroll_into_view_if_needed()
        columns, rows = thumbnails(grid)
        phone.touchscreen.tap(sum(columns[layer - 1]) / 2, sum(rows[head - 1]) / 2)
        opened(phone, layer, head)
    x, y = sum(columns[0]) / 2, sum(rows[5]) / 2  # layer 1, head 6
    touch = hand.new_cdp_session(phone)
    touch.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for i in range(1, 8):
        touch.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y - 15 * i}]})
    touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    settled(phone)
    assert "layer=2&head=10" in phone.url, f"a swipe opened a head: {phone.url}"

    table = main.get_by_test_id("stDataFrame")
    table.scroll_into_view_if_needed()
    main.get_by_text("Pick the measure shown above the table").wait_for(timeout=WAIT)
    box = still(table)
    assert box["x"] >= 0 and box["x"] + box["width"] <= WIDTH, f"the table spans {box['x']:.0f}..+{box['width']:.0f}"
    sideways = table.evaluate("e => [...e.querySelectorAll('*')].filter(c => c.scrollWidth > c.clientWidth + 1 "
                              "&& getComputedStyle(c).overflowX.match(/auto|scroll/)).length")
    assert sideways == 0, "the table scrolls sideways"
    fits_the_width(phone, "Trained heads' table, phone-sized")
    shot(phone, "trained-heads-phone-table")
    assert phone.locator("[data-testid=stException]").count() == 0
    hand.close()


@pytest.fixture(scope="module")
def film_server(tmp_path_factory):
    """A lab whose media folder holds a trained film (core's training, in this process), as a class's would."""
    media = tmp_path_factory.mktemp("media")
    FilmStore(media).save(trained(FILM))
    with streamlit_server(env={"ATTENTION_LAB_MEDIA": str(media)}) as url:
        yield url


def film_page(browser, url: str, **context):
    """Watch it learn at 390×844 with touch, the film of FILM shown (its question skipped)."""
    hand = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, is_mobile=True, has_touch=True, **context)
    phone = hand.new_page()
    phone.goto(f"{url}/watch-it-learn?film_steps={FILM.steps}")
    settled(phone)
    phone.get_by_role("button", name="Skip the question").tap()
    phone.get_by_role("heading", name="Every head on the probe sequence at step").wait_for(timeout=60_000)
    settled(phone)
    charts_drawn(phone, timeout=WAIT)
    return hand, phone


def test_a_narrow_window_gets_watch_it_learns_whole_open_head_in_a_box_of_its_own(browser, film_server):
    """Not a phone's User-Agent: the whole 48 × 48 heatmap, 640 px wide in a box that scrolls sideways."""
    hand, phone = film_page(browser, film_server)
    box = phone.locator(".st-key-film_open_head_box")
    box.scroll_into_view_if_needed()
    frame = still(box.get_by_test_id("stFullScreenFrame"))
    assert frame["width"] >= 640 - 0.5 and still(box)["width"] <= WIDTH - 32 + 0.5, (frame, box.bounding_box())
    assert box.evaluate("e => e.scrollWidth > e.clientWidth"), "the open head's box does not scroll sideways"
    assert phone.evaluate("document.documentElement.scrollWidth") <= WIDTH, "the page scrolls sideways"
    shot(phone, "watch-it-learn-open-head-box")
    hand.close()


def test_a_phone_gets_watch_it_learns_open_head_as_one_legible_row(browser, film_server):
    hand, phone = film_page(browser, film_server, user_agent=IPHONE)
    main = phone.locator("[data-testid=stMain]")
    switch = main.get_by_test_id("stCheckbox").filter(has_text="Phone-sized view")
    switch.wait_for(timeout=WAIT)  # drawn: a new browser gets the switch's code after the run (a skeleton till then)
    assert switch.count() == 1
    row = main.get_by_test_id("stVegaLiteChart").filter(has_text="Where letter")
    row.locator("svg.marks").wait_for(timeout=WAIT)
    row.scroll_into_view_if_needed()
    box = still(row)
    assert box["width"] <= WIDTH - 32 + 0.5, f"the open head's row is {box['width']:.0f} px wide"
    fits_the_width(phone, "Watch it learn, phone-sized")
    # The keys' labels ("1 j" ... "48 z"): all 48 drawn, at least 12 px type, at least 12 px apart.
    labels = row.evaluate("""e => [...e.querySelectorAll('svg text')].filter(t => /^[0-9]+ /.test(t.textContent))
        .map(t => ({y: t.getBoundingClientRect().top, px: parseFloat(getComputedStyle(t).fontSize)}))""")
    assert len(labels) == 48, f"{len(labels)} of the 48 letters labelled"
    gaps = np.diff(sorted(label["y"] for label in labels))
    assert gaps.min() >= 12 and min(label["px"] for label in labels) >= 12, (gaps.min(), labels[:3])
    main.get_by_text("is in the second copy: an induction head looks mostly at letter").wait_for(timeout=WAIT)
    # the shot: from the switch and the query's chooser down, below Streamlit's header
    phone.locator(".st-key-phone_view_switch").evaluate("e => { e.scrollIntoView(); window.scrollBy(0, -70); "
                                                        "e.closest('[data-testid=stMain]').scrollBy(0, -70); }")
    shot(phone, "watch-it-learn-phone-row")
    assert phone.locator("[data-testid=stException]").count() == 0
    hand.close()
