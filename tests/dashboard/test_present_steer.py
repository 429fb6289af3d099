"""The views the presenter view steers (issue 48 item 7) are ones each page takes from its address: for every
page's every steered view, a link with its last value opens the page at that value, with no "this link asks for"
notice (so the projector, which opens the page's view as a link would, shows what the presenter picked)."""

from types import SimpleNamespace

import pytest

from classroom.catalogue import PAGES, VIEW_NAMES
from core.presets import PRESETS
from dashboard.present import steer

from .conftest import messages, no_exception, open_app

STEERED = [(page, s) for page in PAGES for s in page.steers]


def test_every_steered_view_is_a_view_name():
    assert STEERED and all(s.name in VIEW_NAMES for _, s in STEERED)


@pytest.mark.parametrize("page, view", STEERED, ids=lambda x: getattr(x, "url", None) or getattr(x, "name", ""))
def test_a_steered_view_opens_its_page_at_the_picked_value(page, view):
    values = steer.values(view, SimpleNamespace(lesson=PRESETS["default"]))
    assert len(values) >= 2
    at = open_app({"projector": "1", view.name: values[-1]}, page=page.url)
    no_exception(at)
    assert "asks for" not in messages(at)
    assert at.query_params.get(view.name) in (values[-1], [values[-1]])
