"""The recipe for a new page (docs/recipes.md), followed as written: the page's code and its record in the
catalogue are the recipe's own code blocks, so the test breaks the day the recipe does. One test opens the
page in a copy of the app; the other adds it to a copy of the whole lab and runs the repository's own checks
there (layout, navigation, page smoke tests, the handout's topics), which read the catalogue as the app does."""

import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from classroom import catalogue
from core import PRESETS, run_trace
from dashboard import navigation
from tests.conftest import ROOT

from .conftest import APP, chart, no_exception, open_app
from .test_pages import grid


def recipe() -> tuple[str, str, str, catalogue.Page]:
    """docs/recipes.md's "Adding a page": its text, the page's code (step 1) and its record (step 2), as text
    and as the Page it makes."""
    text = (ROOT / "docs" / "recipes.md").read_text(encoding="utf-8")
    text = text.split("\n## Adding a page\n", 1)[1].split("\n## ", 1)[0]
    code, record = (textwrap.dedent(b) for b in re.findall(r"^ *```python\n(.*?)^ *```$", text, re.S | re.M))
    record = " ".join(record.split()).removesuffix(",")
    return text, code, record, eval(record, vars(catalogue))  # the docs' own text, read as the catalogue reads it


def test_a_page_made_by_the_recipe_opens_and_draws_the_lessons_weights(tmp_path, monkeypatch):
    text, code, _, page = recipe()
    assert f"`dashboard/{page.file}`" in text, "the recipe names the file its record opens"
    # A copy of the app's scripts: st.Page runs a page from its file beside app.py; what they import is ours.
    app = tmp_path / "dashboard"
    shutil.copytree(APP.parent / "app_pages", app / "app_pages", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(APP, app)
    (app / page.file).write_text(code, encoding="utf-8")  # step 1
    routes = [(page, page.url, {})] + navigation._ROUTES  # step 2, as the catalogue's record becomes a route
    monkeypatch.setattr(navigation, "_ROUTES", routes)
    monkeypatch.setattr(catalogue, "PAGES", (page, *catalogue.PAGES))

    at = open_app(query={"head": "2"}, page=page.url, app=app / "app.py")  # a link to /row-weights?head=2
    no_exception(at)
    assert [t.value for t in at.title] == [page.title]
    assert any(len(str(m.value)) > 80 for m in at.markdown), "it explains itself"
    T = PRESETS["default"].num_tokens
    weights = grid(chart(at, "weights", head=1), "weight", T)
    np.testing.assert_allclose(weights, run_trace(PRESETS["default"]).weights[1], rtol=1e-5, atol=1e-6)
    assert at.query_params.get("head") == "2", "its head control is in the address"


# The repository's checks that read the catalogue: each must pass with the new page in it.
GUARDS = ("tests/test_layout.py", "tests/dashboard/test_navigation.py", "tests/dashboard/test_pages.py",
          "tests/dashboard/test_room_hiding.py::test_every_page_every_kind_of_screen_and_the_presenter_have_a_row_of_known_kinds",
          "tests/classroom/test_handout.py::test_every_page_scene_and_question_kind_has_its_topic",
          "tests/dashboard/test_present.py::test_the_dashboard_names_every_page_scene_and_view_the_default_deck_uses")


@pytest.mark.slow
def test_a_page_added_by_the_recipe_passes_the_repositorys_own_checks(tmp_path):
    _, code, record, page = recipe()
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.splitlines()
    lab = tmp_path / "lab"
    for name in files:
        if (ROOT / name).is_file():
            (lab / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, lab / name)
    (lab / "dashboard" / page.file).write_text(code, encoding="utf-8")  # step 1
    source = lab / "classroom" / "catalogue.py"
    before, after = source.read_text(encoding="utf-8").split("\n)\nBY_URL", 1)
    source.write_text(f"{before}\n    {record},\n)\nBY_URL{after}", encoding="utf-8")  # step 2, at the end

    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:xdist", "-p", "no:cacheprovider",
                          "-m", "not (browser or render or hall or slow)", *GUARDS],
                         cwd=lab, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    name = page.file.removeprefix("app_pages/").removesuffix(".py")
    assert re.search(rf"^PASSED tests/dashboard/test_pages\.py::\w+\[{name}\]", run.stdout, re.M), \
        "the copy's page smoke tests ran for the new page"
