"""Helpers for the dashboard's tests: an AppTest of the real app, and its charts' data."""

import json
from pathlib import Path

import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest
from streamlit.util import calc_hash

from tests.conftest import shown

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"
STEPS = ["1. Q, K and V", "2. Q·Kᵀ, then scaled", "3. Mask, then softmax", "4. Weights · V"]  # page 1's tabs
PAGES = ["attention", "multi_head", "masking", "why_scale", "positional", "block", "worked_example"]
URL_PATHS = {"multi_head": "multi-head", "why_scale": "why-scale", "worked_example": "worked-example",
             "trained_heads": "trained-heads"}


def page_path(name: str) -> str:
    return f"app_pages/{name}.py"


@pytest.fixture
def make_app():
    """`make_app(query=None, page=None)`: the app after its first run (optionally from a URL, at a page)."""

    def make(query: dict | None = None, page: str | None = None) -> AppTest:
        at = AppTest.from_file(str(APP), default_timeout=60)
        if query:
            at.query_params = dict(query)
        if page:  # opened at that page, as a link to /<url path> would: st.Page hashes the url path
            at._page_hash = calc_hash(URL_PATHS.get(page, page))
        return at.run()

    return make


def chart_data(at: AppTest) -> list[tuple[dict, object]]:
    """Every chart on the page: (its usermeta, its data as a DataFrame read from the Arrow bytes)."""
    out = []
    for element in at.get("vega_lite_chart"):
        spec = json.loads(element.proto.spec)
        frames = [pa.ipc.open_stream(d.data.data).read_all().to_pandas() for d in element.proto.datasets]
        assert len(frames) == 1, "each chart carries one table"
        out.append((spec.get("usermeta", {}), frames[0]))
    return out


def chart(at: AppTest, lab: str, head: int | None = None):
    """The data of the one chart named `lab` (and `head`)."""
    found = [df for meta, df in chart_data(at) if meta.get("lab") == lab and (head is None or meta.get("head") == head)]
    assert len(found) == 1, f"expected one chart {lab!r} (head {head}), found {len(found)}"
    return found[0]


def no_exception(at: AppTest):
    assert not at.exception, [e.value for e in at.exception]


def messages(at: AppTest) -> str:
    """The notices on the page, as the student reads them (not their Markdown source)."""
    return " ".join(shown(e.value) for e in [*at.error, *at.warning, *at.info])
