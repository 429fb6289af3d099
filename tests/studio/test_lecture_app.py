"""The Lecture page and the sidebar's "Render with my settings", through Streamlit's AppTest."""

import pytest

from dashboard.links import url_params

from .conftest import fake_render, run_until

TINY = {"source": "random", "seq_len": "3", "d_model": "4", "num_heads": "1"}


def _videos(at):
    return at.get("video")


def _no_exception(at):
    assert not at.exception, [e.value for e in at.exception]


def test_render_with_my_settings_shows_the_video(studio_app):
    at = studio_app(render_fn=fake_render(), query=TINY)
    _no_exception(at)
    at.selectbox(key="studio_scene").set_value("scaling")
    at.button(key="studio_render").click().run()
    run_until(at, lambda a: _videos(a))
    _no_exception(at)
    assert len(_videos(at)) == 1
    assert any(b.label == "Download the video" for b in at.get("download_button"))


@pytest.mark.render
def test_render_with_my_settings_for_real(studio_app):
    at = studio_app(query=TINY)
    at.selectbox(key="studio_scene").set_value("scaling")
    at.toggle(key="studio_voice").set_value(False).run()  # silent: the narrated render is tested in tests/animations
    at.button(key="studio_render").click().run()
    run_until(at, lambda a: _videos(a) or a.error, seconds=240)
    _no_exception(at)
    assert not at.error, [e.value for e in at.error]
    assert len(_videos(at)) == 1


def test_a_failed_render_says_so_and_offers_a_retry(studio_app):
    at = studio_app(render_fn=fake_render(fail=True), query=TINY)
    at.button(key="studio_render").click().run()
    run_until(at, lambda a: a.error)
    _no_exception(at)
    assert "could not be made" in at.error[0].value and "exit status 1" in at.error[0].value
    assert at.button(key="studio_retry_mine")
    assert "ValueError: no frames" in at.get("code")[0].value


def test_lecture_page_plays_the_default_lesson(studio_app):
    at = studio_app(render_fn=fake_render())
    at.switch_page("app_pages/lecture.py").run()
    run_until(at, lambda a: len(_videos(a)) == 4)
    _no_exception(at)
    assert [s.value for s in at.main.subheader] == ["Scores", "Masking", "Multihead", "Scaling"]


def test_presenter_steps_with_next_and_back(studio_app):
    at = studio_app(render_fn=fake_render())
    at.switch_page("app_pages/lecture.py").run()
    at.toggle(key="lecture_presenter").set_value(True).run()
    run_until(at, lambda a: any("Step 1 of 2" in m.value for m in a.markdown))
    assert any(m.value == "### First, project." for m in at.markdown)
    assert at.button(key="presenter_back").disabled
    at.button(key="presenter_next").click().run()
    assert any("Step 2 of 2: scores" in m.value for m in at.markdown)
    assert any(m.value == "### Then, the scores." for m in at.markdown)
    assert at.button(key="presenter_next").disabled
    at.button(key="presenter_back").click().run()
    assert any("Step 1 of 2" in m.value for m in at.markdown)
    _no_exception(at)


def test_my_settings_on_the_lecture_page_render_on_request(studio_app):
    at = studio_app(render_fn=fake_render(), query=url_params(__import__("core").PRESETS["padding"]))
    at.switch_page("app_pages/lecture.py").run()
    at.segmented_control(key="lecture_lesson").set_value("my settings").run()
    assert not _videos(at)
    at.button(key="lecture_render_masking").click().run()
    run_until(at, lambda a: len(_videos(a)) == 1)
    _no_exception(at)


def test_without_manim_the_lab_runs_and_says_what_to_install(studio_app, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "manim" else real(name, *a))
    at = studio_app(render_fn=fake_render())
    _no_exception(at)
    assert at.get("vega_lite_chart"), "the lesson's charts still show"
    assert any("need manim" in c.value for c in at.sidebar.caption)
    at.switch_page("app_pages/lecture.py").run()
    _no_exception(at)
    assert any("need manim" in i.value for i in at.info) and not _videos(at)
