"""The pages are made once per session (st.Page resolves its file's path when made: a dozen system
calls a page, each a turn of the GIL under a class's load), and links use those same pages."""

import streamlit as st

from classroom import catalogue


def test_a_session_keeps_its_pages_across_reruns(make_app, monkeypatch):
    at = make_app()
    first = at.session_state["navigation_pages"]
    assert [p.title for p in first][:len(catalogue.PAGES)] == [page.title for page in catalogue.PAGES]
    made = []
    monkeypatch.setattr(st, "Page", lambda *a, **k: made.append(a) or None)
    at.sidebar.select_slider(key="ctl_temperature").set_value(2.0).run()  # the lesson view alone
    at.run()  # a full run
    assert not at.exception and made == []
    assert at.session_state["navigation_pages"] is first
    assert [e.proto.page for e in at.get("page_link")] == ["trained-heads"]  # the untrained note's link


def test_each_session_has_pages_of_its_own(make_app):
    """st.navigation marks the chosen page on the Page object: sessions must not share them."""
    one, two = make_app(), make_app()
    assert not set(map(id, one.session_state["navigation_pages"])) & set(map(id, two.session_state["navigation_pages"]))
