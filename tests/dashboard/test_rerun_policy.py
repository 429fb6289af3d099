"""The rerun policy (dashboard/lesson/rerun.py): a temperature move reruns only what shows
the lesson; changes the sidebar must show still rerun the whole app.

AppTest keeps only what the last run drew, so after the fragment's own rerun its tree holds the
fragment's elements alone: that is what these tests read to tell the two kinds of run apart
(the browser keeps the rest; tests/dashboard/test_browser.py moves the slider there).
"""

import numpy as np
import pytest
import torch

from .conftest import chart, messages, no_exception
from .test_pages import grid


def sidebar_keys(at) -> set:
    return {getattr(e, "key", None) for e in at.sidebar if getattr(e, "key", None)}


def test_a_temperature_move_reruns_only_the_lesson_fragment_with_the_new_weights(make_app):
    at = make_app()
    assert {"ctl_temperature", "ctl_d_model", "studio_scene"} <= sidebar_keys(at)
    T = at.session_state["lesson"].num_tokens
    before = grid(chart(at, "masked", head=0), "scaled", T)  # at temperature 1
    at.sidebar.select_slider(key="ctl_temperature").set_value(0.5).run()
    no_exception(at)
    assert at.session_state["lesson"].temperature == 0.5
    assert at.query_params.get("temperature") == "0.5"
    keys = sidebar_keys(at)
    assert not keys & {"ctl_temperature", "ctl_d_model", "studio_scene"}, "the sidebar's controls were not redrawn"
    assert not at.title and not at.markdown, "nor was the page's introduction (its title and paragraph)"
    # Step 3 (open by default): the scores the softmax gets are divided by the temperature, and the
    # weights are their softmax.
    after = grid(chart(at, "masked", head=0), "scaled", T)
    np.testing.assert_allclose(after, before / 0.5, rtol=1e-5, atol=1e-6)
    expected = torch.softmax(torch.tensor(after), dim=-1).numpy()
    np.testing.assert_allclose(grid(chart(at, "weights", head=0), "weight", T), expected, rtol=1e-5, atol=1e-6)


def test_after_a_fragment_rerun_the_next_full_run_shows_the_moved_value_in_the_sidebar(make_app):
    at = make_app()
    at.sidebar.select_slider(key="ctl_temperature").set_value(0.5).run()
    at.run()  # e.g. the display settings changed: a full run
    no_exception(at)
    assert at.sidebar.select_slider(key="ctl_temperature").value == 0.5
    assert at.sidebar.text_input(key="ctl_d_model").value == "16"


def test_a_heads_change_reruns_the_whole_app_so_the_sidebar_shows_the_new_d_k(make_app):
    at = make_app()
    at.sidebar.selectbox(key="ctl_num_heads").set_value(2).run()
    no_exception(at)
    assert "ctl_num_heads" in sidebar_keys(at)
    assert any("d_k = 16 / 2 = **8**" in str(c.value) for c in at.sidebar.caption)


def test_a_refused_change_reruns_the_whole_app_and_puts_the_widget_back(make_app):
    at = make_app()
    at.sidebar.text_input(key="ctl_seed").set_value("4294967296").run()
    no_exception(at)
    assert at.sidebar.text_input(key="ctl_seed").value == "0"
    assert "The seed must be between 0" in messages(at)


def test_page_views_are_kept_and_display_settings_stay_in_the_address(make_app):
    at = make_app(query={"projector": "1", "head": "2"})
    at.sidebar.select_slider(key="ctl_temperature").set_value(0.5).run()
    no_exception(at)
    assert dict(at.query_params) == {"projector": "1", "head": "2", "temperature": "0.5"}


def test_a_seed_typed_another_way_gets_a_full_run_that_shows_it_as_the_lesson_has_it(make_app):
    at = make_app()
    at.sidebar.text_input(key="ctl_seed").set_value(" 01000 ").run()
    no_exception(at)
    assert at.session_state["lesson"].seed == 1000
    assert at.sidebar.text_input(key="ctl_seed").value == "1000"


def test_a_seed_typed_as_the_lesson_writes_it_reruns_only_the_fragment(make_app):
    at = make_app()
    at.sidebar.text_input(key="ctl_seed").set_value("7").run()
    no_exception(at)
    assert at.session_state["lesson"].seed == 7 and at.query_params.get("seed") == "7"
    assert "ctl_seed" not in sidebar_keys(at)


def _early_return_page():
    """A page whose lesson view registers a view setting, then stops before its end."""
    import streamlit as st

    from dashboard.lesson import rerun, state

    state.start_run()

    def the_lesson(cfg):
        state.view_param("show", "window", "causal")
        if cfg.mask == "none":
            st.warning("This view stops here.")
            return
        st.write("never reached for this lesson")

    rerun.view(the_lesson, with_trace=False)


def _raising_page():
    from dashboard.lesson import rerun, state

    state.start_run()

    def the_lesson(cfg):
        state.view_param("show", "window", "causal")
        raise ValueError("a page's bug")

    rerun.view(the_lesson, with_trace=False)


@pytest.mark.parametrize("script", [_early_return_page, _raising_page])
def test_a_view_that_stops_early_still_writes_its_setting_to_the_address(script):
    """The address is written in the policy's `finally`: no early return (or error) in a page skips it
    (Masking and Compare once returned before their own write)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(script, default_timeout=60).run()
    assert at.query_params.get("show") == "window"


def _polled_page():
    """A page with a polled part whose first poll finds a change that the whole page must show."""
    import streamlit as st

    from dashboard.lesson import rerun

    st.session_state["whole_runs"] = st.session_state.get("whole_runs", 0) + 1

    @rerun.poll(60)
    def part():
        st.session_state["polls"] = st.session_state.get("polls", 0) + 1
        st.write(f"poll {st.session_state['polls']}")
        return st.session_state["polls"] == 1

    part()


def test_a_poll_that_finds_a_change_beyond_its_part_runs_the_whole_app_again():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_polled_page, default_timeout=60).run()
    no_exception(at)
    assert (at.session_state["whole_runs"], at.session_state["polls"]) == (2, 2)
    at.run()  # a poll that finds nothing new asks for nothing more
    assert (at.session_state["whole_runs"], at.session_state["polls"]) == (3, 3)


def test_reruns_and_fragments_are_asked_for_only_where_docs_lesson_md_says_why():
    """The policy owns every fragment and every rerun, but for the room's three forms
    (docs/lesson.md, "What runs again"): a new one elsewhere fails here."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "dashboard"
    calls = {str(p.relative_to(root)): (text.count("st.rerun("), text.count("st.fragment("))
             for p in root.rglob("*.py") if (text := p.read_text(encoding="utf-8")).count("st.rerun(")
             + text.count("st.fragment(")}
    assert calls == {"lesson/rerun.py": (5, 4), "room/teacher.py": (2, 0), "room/student.py": (1, 0)}
