"""The handout as a student opens it: a file, in Chromium, with the network off. Screenshots go to
test-artifacts/."""

import pytest

from classroom.decks import default_deck
from classroom.handout import write_handout
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

# Each fraction of the formulas drawn as one: its numerator above its denominator (a browser without
# MathML would run them together on one line).
FRACTIONS_STACKED = """() => [...document.querySelectorAll('mfrac')].every(f =>
  f.children[0].getBoundingClientRect().bottom <= f.children[1].getBoundingClientRect().top + 1)"""
IMAGES_DRAWN = "() => [...document.images].every(i => i.complete && i.naturalWidth > 0)"


def test_the_handout_opens_offline_with_no_error_and_draws_its_formulas_and_charts(browser, deck_names, tmp_path):
    deck = default_deck(deck_names)
    path = write_handout(deck, tmp_path / "handout.html")
    context = browser.new_context(viewport={"width": 1200, "height": 900}, offline=True)
    page = context.new_page()
    errors, requests = [], []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.on("request", lambda r: requests.append(r.url))
    try:
        page.goto(path.as_uri(), wait_until="load")
        assert requests == [path.as_uri()]  # the file, and nothing else
        assert not errors
        assert page.locator("section.screen").count() == len(deck.screens)
        assert page.evaluate("document.images.length") >= 5 and page.evaluate(IMAGES_DRAWN)
        assert page.locator("mfrac").count() >= 5 and page.evaluate(FRACTIONS_STACKED)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=ARTIFACTS / "handout-top.png")
        page.locator("#screen-10").screenshot(path=ARTIFACTS / "handout-masking.png")
    finally:
        context.close()
