"""Helpers for the dashboard's tests: the real app opened at a page, as a link opens it, and its charts' data.

The pages are read from the app (classroom/catalogue.py's PAGES), so a new page is tested here the day
it joins the navigation, and a page is opened through AppTest's public API only, then checked to be
the page that ran."""

import json
from pathlib import Path

import pyarrow as pa
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from classroom import catalogue
from dashboard import navigation
from tests.conftest import shown

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


def page_name(file: str) -> str:
    """A page's name in the tests and in the app's session keys: "multi_head" for "app_pages/multi_head.py"."""
    return file.removeprefix("app_pages/").removesuffix(".py")


def page_file(page: str) -> str:
    """The file of the page named by its file's name ("multi_head") or its url path ("multi-head")."""
    found = [p.file for p in catalogue.PAGES if page in (page_name(p.file), *p.urls)]
    assert found, f"no page {page!r} in classroom/catalogue.py's PAGES"
    return found[0]


DEFAULT_FILE = next(p.file for p in catalogue.PAGES if p.default)
# The pages whose lesson view is a fragment drawing the sidebar's lesson as charts (rerun.view): every page
# but those that run whole (videos, the trained model, a film, the room) and these.
OWN_TESTS = {"compare": "draws two lessons, A and A with one setting changed (test_compare_page.py)"}
PAGES = [page_name(p.file) for p in catalogue.PAGES if not p.runs_whole and page_name(p.file) not in OWN_TESTS]


def opened(at: AppTest) -> str:
    """The page that ran last, as the app recorded the page st.navigation chose (its file's name)."""
    return at.session_state[navigation.HERE] if navigation.HERE in at.session_state else ""


def assert_opened(at: AppTest, page: str):
    want = page_name(page_file(page))
    assert opened(at) == want, f"asked for the page {want!r}, but {opened(at)!r} ran"


def _register_pages(at: AppTest):
    """AppTest.switch_page finds a page by its file only among the pages a run registered with st.navigation
    (its documented rule: run first, then switch). This run registers them and stops right there, before the
    app reads the link or draws anything, so the run that follows is the session's first, at the page, as
    a browser's first run is when it opens a link to that page."""
    choose = navigation.choose

    def choose_then_stop():
        choose()
        st.stop()

    navigation.choose = choose_then_stop
    try:
        at.run()
    finally:
        navigation.choose = choose
    no_exception(at)


def open_app(query: dict | None = None, page: str | None = None, app: Path = APP) -> AppTest:
    """The app after a session's first run, opened from a link (`query`) to a page (its file's name or url
    path; None: the default page), checked to be that page."""
    at = AppTest.from_file(str(app), default_timeout=60)
    file = page_file(page) if page else DEFAULT_FILE
    if file != DEFAULT_FILE:
        _register_pages(at)
        at.switch_page(file)
    if query:
        at.query_params = dict(query)
    at.run()
    assert_opened(at, page_name(file))
    return at


def switch(at: AppTest, page: str) -> AppTest:
    """Another page of the same session (a click in the sidebar), checked to be that page."""
    at.switch_page(page_file(page)).run()
    assert_opened(at, page)
    return at


@pytest.fixture
def make_app():
    """`make_app(query=None, page=None)`: open_app, for tests that open several sessions."""
    return open_app


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


@pytest.fixture
def lab(tmp_path):
    """start(renders, env, address) -> a real lab server with a room open and renders queued in it
    (test_hostile_server.Lab, running lab_harness.py; served on 127.0.0.1 unless `address` says);
    each stopped at the end."""
    from tests.dashboard.test_hostile_server import Lab

    made = []

    def start(renders: int, env: dict | None = None, address: str = "127.0.0.1") -> Lab:
        made.append(Lab(tmp_path, renders, env, address))
        return made[-1]

    yield start
    for one in made:
        one.stop()
