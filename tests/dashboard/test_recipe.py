"""The recipe for a new page (docs/recipes.md), followed as written in a copy of the app: the page's code and its
row in the navigation are the recipe's own code blocks, so the test breaks the day the recipe does."""

import ast
import re
import shutil
import textwrap

import numpy as np

from core import PRESETS, run_trace
from dashboard import navigation
from tests.conftest import ROOT

from .conftest import APP, chart, no_exception, open_app
from .test_pages import grid


def recipe() -> tuple[str, str, tuple]:
    """docs/recipes.md's "Adding a page": its text, the page's code (step 1) and its row for PAGES (step 2)."""
    readme = (ROOT / "docs" / "recipes.md").read_text(encoding="utf-8")
    text = readme.split("\n## Adding a page\n", 1)[1].split("\n## ", 1)[0]
    code, row = (textwrap.dedent(b) for b in re.findall(r"^ *```python\n(.*?)^ *```$", text, re.S | re.M))
    return text, code, ast.literal_eval(row.strip().removesuffix(","))


def test_a_page_made_by_the_readmes_recipe_opens_and_draws_the_lessons_weights(tmp_path, monkeypatch):
    text, code, row = recipe()
    file, title, url_path, extra = row
    assert f"`dashboard/{file}`" in text, "the recipe names the file its row opens"
    # A copy of the app's scripts: st.Page runs a page from its file beside app.py; what they import is ours.
    app = tmp_path / "dashboard"
    shutil.copytree(APP.parent / "app_pages", app / "app_pages", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(APP, app)
    (app / file).write_text(code, encoding="utf-8")  # step 1
    hidden = next(i for i, (*_, more) in enumerate(navigation.PAGES) if more.get("visibility") == "hidden")
    monkeypatch.setattr(navigation, "PAGES", [*navigation.PAGES[:hidden], row, *navigation.PAGES[hidden:]])  # step 2

    at = open_app(query={"head": "2"}, page=url_path, app=app / "app.py")  # a link to /row-weights?head=2
    no_exception(at)
    assert [t.value for t in at.title] == [title]
    assert any(len(str(m.value)) > 80 for m in at.markdown), "it explains itself"
    T = PRESETS["default"].num_tokens
    weights = grid(chart(at, "weights", head=1), "weight", T)
    np.testing.assert_allclose(weights, run_trace(PRESETS["default"]).weights[1], rtol=1e-5, atol=1e-6)
    assert at.query_params.get("head") == "2", "its head control is in the address"
