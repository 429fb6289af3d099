"""Projector mode, a step per screen (issue 25), in Debian's Chromium: page 1's steps, Masking's stages, Why √d_k's
parts and a trained head opened alone each fit the window at 1920×1080 and 1280×720; the arrow keys move between
steps. One server; screenshots go to test-artifacts/.
"""

import pytest

from tests.conftest import ARTIFACTS
from tests.waits import charts_drawn

from .projector_checks import SETTLED, RunEndHeld, contrast, press, settle, theme_background, window

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(lab_server):
    return lab_server


# Projector mode, a step per screen (issue 25): the screen's last chart and every caption of the page's
# main part end above the window's bottom at scroll 0. Each page's steps, stages or parts, and their address key.
SLIDES = {"": ("step", 4), "masking": ("mask_stage", 3), "why-scale": ("why_part", 2)}
BOTTOMS = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  const parts = [...main.querySelectorAll('[data-testid=stVegaLiteChart] .marks, [data-testid=stCaptionContainer]')]
      .filter(e => e.innerText === undefined || e.classList.contains('marks') || e.innerText.trim());
  return {bottom: Math.max(...parts.map(e => e.getBoundingClientRect().bottom)), height: innerHeight,
          scrolled: main.scrollTop || document.scrollingElement.scrollTop};
}"""
NUMBERS = "() => document.querySelectorAll('[data-testid=stMain] .mark-text.role-mark text').length"
CAPTION_COLOURS = """[...document.querySelectorAll('[data-testid=stMain] [data-testid=stCaptionContainer]')]
    .map(e => getComputedStyle(e).color)"""


WINDOWS = [((1920, 1080), "light"), ((1280, 720), "dark")]  # a projector's two sizes, each in one theme


@pytest.mark.parametrize("path", SLIDES, ids=lambda p: p or "home")
def test_projector_mode_shows_a_step_per_screen_at_1080p_and_720p(server, clean_context, path):
    """Every step of page 1, stage of Masking or part of Why √d_k, reached as a teacher does (the first from its
    link, the others with the keyboard's →, and ← goes back one), with its charts' titles and captions, in the
    window at 1920×1080 and 1280×720 (light and dark) without scrolling; captions at 7:1 or more."""
    name, steps = SLIDES[path]
    ARTIFACTS.mkdir(exist_ok=True)
    fits, numbers = [], []
    for (width, height), scheme in WINDOWS:
        with window(clean_context, width, height, scheme) as page:
            settle(page, f"{server}/{path}?projector=1&{name}=1")
            for step in range(1, steps + 1):
                if step > 1:
                    press(page, "ArrowRight", name)
                got = page.evaluate(BOTTOMS)
                page.screenshot(path=str(ARTIFACTS / f"projector-slide-{scheme}-{width}x{height}-{path or 'home'}-"
                                                     f"{name}{step}.png"))
                if (path, step) == ("", 2):  # two 7 × 7 grids of scores, nothing masked: a number in every cell
                    numbers.append((width, page.evaluate(NUMBERS)))
                background = theme_background(page, scheme, scheme)
                for colour in page.evaluate(CAPTION_COLOURS):
                    assert contrast(colour, background) >= 7, f"{scheme} {name}={step}: {colour} on {background}"
                fits.append((width, scheme, step, got["bottom"], got["height"], got["scrolled"]))
            press(page, "ArrowLeft", name)
    assert all(bottom <= h + 0.5 and scrolled == 0 for *_, bottom, h, scrolled in fits), fits  # 0.5: sub-pixel
    # At 720p the smallest number's cell (50.67 px), rounded down to whole 1/64 px, once printed no number at all
    assert numbers == ([(1920, 2 * 7 * 7), (1280, 2 * 7 * 7)] if not path else []), numbers


LONG_SENTENCE = "The cat sat on the mat because it was tired."  # 13 word pieces: past the numbers' floor at 1080p
SLIDE_CHARTS = "() => document.querySelectorAll('[data-testid=stMain] [data-testid=stVegaLiteChart]').length"


@pytest.mark.parametrize("step, charts", [(2, 2), (3, 1)])
def test_projector_mode_opens_a_trained_head_alone_in_the_window_at_1080p_and_720p(server, clean_context, step, charts):
    """Trained heads, projector mode: "Open this head" shows that head's step alone (step 2: two charts, 3: one), at
    scroll 0, its 13 word pieces, title and captions in the window at 1920×1080 (light) and 1280×720 (dark). The page
    is loaded once, at 1920×1080; "Show the open head alone", unticked, brings the whole page back, which the window,
    made 1280×720 and dark, opens the head from again."""
    ARTIFACTS.mkdir(exist_ok=True)
    fits = []
    with window(clean_context, *WINDOWS[0][0], WINDOWS[0][1]) as page:
        settle(page, f"{server}/trained-heads?projector=1&step={step}&sentence={LONG_SENTENCE.replace(' ', '+')}")
        for (width, height), scheme in WINDOWS:
            page.set_viewport_size({"width": width, "height": height})
            page.emulate_media(color_scheme=scheme)
            assert page.evaluate(SLIDE_CHARTS) > 1, "the whole page, grid and open head, before the click"
            page.get_by_role("button", name="Open this head").first.click()
            page.wait_for_url("**alone=1**", timeout=30_000)
            page.wait_for_selector(SETTLED, timeout=60_000)
            page.wait_for_function(f"() => ({SLIDE_CHARTS})() === {charts} && [...document.querySelectorAll("
                                   "'[data-testid=stVegaLiteChart]')].every(c => c.querySelector('svg.marks'))",
                                   polling=100, timeout=30_000)
            charts_drawn(page)  # and Vega's resize to the container's width
            got = page.evaluate(BOTTOMS)
            page.screenshot(path=str(ARTIFACTS / f"projector-slide-{scheme}-{width}x{height}-trained-step{step}.png"))
            rows = page.evaluate("() => document.querySelectorAll('[data-testid=stMain] [data-testid=stVegaLiteChart] "
                                 "g.mark-rect.role-mark path').length")
            assert rows == 13 * 13 * charts and got["scrolled"] == 0, (rows, got)  # every piece's row and column
            theme_background(page, scheme, scheme)
            fits.append((width, scheme, got["bottom"], got["height"]))
            page.get_by_text("Show the open head alone", exact=True).click()
            page.wait_for_function("() => !location.search.includes('alone=1')", polling=100, timeout=30_000)
            page.wait_for_selector(SETTLED, timeout=60_000)
    assert all(bottom <= h + 0.5 for _, _, bottom, h in fits), fits  # 0.5: sub-pixel layout


# The slide's first row (the title, the layer's and head's buttons) and the page's scroll, as the slide is shown.
SLIDE_TOP = """() => ({title: document.querySelector('[data-testid=stMain] h1').getBoundingClientRect().top,
                     scrolled: document.querySelector('[data-testid=stMain]').scrollTop || scrollY})"""


def test_projector_mode_opens_a_trained_head_alone_at_its_top_from_far_down_the_page(server, clean_context):
    """Trained heads, projector mode, 1280×720: "Open this head", under the grid far down the page (the page
    scrolled there), opens that head alone at the slide's top: the page at scroll 0, its title in the window.
    The run's end reaches the page only once the slide is drawn above the whole page's elements (RunEndHeld),
    as on a loaded server: the page, cleared then, once kept the scroll, cut to the slide's height (205 px
    scrolled, the title above the window; issue 50 item 8)."""
    with window(clean_context, 1280, 720, "dark") as page:
        run_end = RunEndHeld(page)
        settle(page, f"{server}/trained-heads?projector=1&step=2&sentence={LONG_SENTENCE.replace(' ', '+')}")
        button = page.get_by_role("button", name="Open this head").first
        button.scroll_into_view_if_needed()
        assert page.evaluate(SLIDE_TOP)["scrolled"] > 720, "the button is more than a window down the page"
        run_end.holding = True
        button.click()
        page.wait_for_url("**alone=1**", timeout=30_000)
        page.wait_for_selector(SETTLED, timeout=60_000)  # its status comes after the run's end, which is held
        assert run_end.held, "the run's end, held"
        charts_drawn(page)  # the slide's two charts drawn, the whole page's still below them
        run_end.release()
        page.wait_for_function(f"() => ({SLIDE_CHARTS})() === 2", polling=100, timeout=30_000)
        charts_drawn(page)
        got = page.evaluate(SLIDE_TOP)
        page.screenshot(path=str(ARTIFACTS / "projector-slide-dark-1280x720-trained-opened-from-far-down.png"))
    assert got["scrolled"] == 0 and got["title"] >= 0, got


# A deck's part of a long page (issue 48 item 4): the link's `part` alone, with the lesson of the default deck's
# screen, sized as a slide. Multi-head's eight heads of a 10-word sentence, Positional's two 7-word grids.
PARTS = {"multi-head": ("part=heads&text=Attention+lets+every+word+look+at+every+other+word.&num_heads=8&d_model=64",
                        "Each square is one head's weights"),
         "positional": ("part=encodings&head=2", "without positions (left)")}


@pytest.mark.parametrize("path", PARTS)
def test_a_long_pages_part_fits_the_projector_at_1080p_and_720p(server, clean_context, path):
    """The part a deck's screen names, and nothing of the rest of the page: its charts and captions end above
    the window's bottom at scroll 0, at 1920×1080 and 1280×720, with no export menu."""
    query, words = PARTS[path]
    fits = []
    for (width, height), scheme in WINDOWS:
        with window(clean_context, width, height, scheme) as page:
            settle(page, f"{server}/{path}?projector=1&{query}")
            charts_drawn(page)
            page.get_by_text(words).first.wait_for()
            page.screenshot(path=str(ARTIFACTS / f"projector-part-{scheme}-{width}x{height}-{path}.png"))
            assert page.get_by_role("button", name="Export").count() == 0
            got = page.evaluate(BOTTOMS)
            fits.append((width, got["bottom"], got["height"], got["scrolled"]))
    assert all(bottom <= h + 0.5 and scrolled == 0 for _, bottom, h, scrolled in fits), fits
