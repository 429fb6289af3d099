"""The Trained heads page in Debian's Chromium with a teacher's own models (issue 27): the picker lists a
folder named in ATTENTION_LAB_MODELS and a model in a (fake) Hugging Face cache, and opens each; the
server gets both through its environment. Screenshots go to test-artifacts/."""

import re
from urllib.parse import parse_qs, urlparse

import pytest

from tests import checkpoints
from tests.conftest import ARTIFACTS, streamlit_server
from tests.core.conftest import needs_model
from tests.waits import charts_drawn

pytestmark = [pytest.mark.browser, needs_model]
pytest.importorskip("transformers", reason="transformers (requirements-dev.txt) makes the tiny models")

SETTLED = "[data-testid=stApp][data-test-script-state=notRunning]"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("browser-models")
    gpt2 = checkpoints.make_gpt2(root / "tiny-gpt2")
    checkpoints.hub_layout(checkpoints.make_bert(root / "made-bert"), root / "hub", "acme/tiny-bert")
    with streamlit_server({"ATTENTION_LAB_MODELS": str(gpt2), "HF_HUB_CACHE": str(root / "hub")}) as url:
        yield url


def settle(page):
    page.wait_for_selector(SETTLED, timeout=60_000)
    page.wait_for_selector("[data-testid=stVegaLiteChart] canvas, [data-testid=stVegaLiteChart] svg", timeout=60_000)
    charts_drawn(page)  # Vega draws just after the script settles


def model_in_address(page) -> str | None:
    return parse_qs(urlparse(page.url).query).get("model", [None])[0]


def test_the_picker_lists_and_opens_a_folder_model_and_a_cached_one(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    try:
        page.goto(f"{server}/trained-heads")
        settle(page)
        picker = page.locator("[data-testid=stSelectbox]").filter(has_text="Model").first
        picker.click()
        options = page.locator("[role=option]")
        options.first.wait_for(timeout=10_000)
        listed = [options.nth(i).inner_text() for i in range(options.count())]
        assert listed[0].startswith("all-MiniLM-L6-v2 · BERT · 6 layers × 12 heads · ")
        assert any(re.match(r"tiny-gpt2 · GPT-2 · 2 layers × 4 heads · \d+ kB", o) for o in listed), listed
        assert any(o.startswith("acme/tiny-bert · BERT · 2 layers × 4 heads · ") for o in listed), listed
        options.filter(has_text="tiny-gpt2").first.click()
        page.wait_for_function("() => new URL(location.href).searchParams.get('model') === 'tiny-gpt2'",
                               polling=100, timeout=30_000)
        settle(page)
        assert page.locator("[data-testid=stException]").count() == 0
        assert page.get_by_text("The strongest measured patterns").count() == 1
        assert page.get_by_text("Heads worth a look").count() == 0
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "trained-heads-gpt2-1280x720.png"), full_page=True)

        page.goto(f"{server}/trained-heads?model=acme%2Ftiny-bert")  # a link to the cached model
        settle(page)
        assert model_in_address(page) == "acme/tiny-bert"
        assert page.locator("[data-testid=stException]").count() == 0
        intro = page.locator("[data-testid=stMarkdownContainer]").filter(has_text="This page reads").first
        assert re.search(r"This page reads acme/tiny-bert, from this machine's Hugging Face cache: a BERT-family "
                         r"encoder.* 2 layers × 4 heads, d_model 32", intro.inner_text()), intro.inner_text()
        page.screenshot(path=str(ARTIFACTS / "trained-heads-cached-bert-1280x720.png"), full_page=True)
    finally:
        context.close()
