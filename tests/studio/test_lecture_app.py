"""The Lecture page and the sidebar's "Render with my settings", through Streamlit's AppTest."""


from dashboard.app_pages.trained import DEFAULT_SENTENCE as SENTENCE
from dashboard.lesson.state import url_params
from tests.core.conftest import needs_model

from .conftest import bands, fake_render, run_until

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


def test_render_with_my_settings_renders_the_lesson_on_screen_after_a_fragment_rerun(studio_app):
    """The button is drawn in full runs only (outside the lesson's fragment): pressed after a
    temperature move that reran only the fragment, it renders the lesson now on screen."""
    at = studio_app(render_fn=fake_render(), query=TINY)
    button = at.button(key="studio_render")  # as the browser keeps it
    at.sidebar.select_slider(key="ctl_temperature").set_value(0.5).run()
    assert not any(getattr(e, "key", None) == "studio_render" for e in at.sidebar), "a fragment-only rerun"
    button.click().run()
    _no_exception(at)
    assert at.session_state["studio_job_mine"].cfg.temperature == 0.5


def test_with_a_video_in_the_sidebar_a_temperature_move_reruns_all_and_says_the_video_is_of_another_lesson(
        studio_app):
    at = studio_app(render_fn=fake_render(), query=TINY)
    at.button(key="studio_render").click().run()
    run_until(at, lambda a: _videos(a))
    at.sidebar.select_slider(key="ctl_temperature").set_value(0.5).run()
    _no_exception(at)
    assert any(getattr(e, "key", None) == "ctl_temperature" for e in at.sidebar), "a full run"
    assert any("another lesson than the one on your screen" in str(w.value) for w in at.sidebar.warning)


def test_a_failed_render_says_so_and_offers_a_retry(studio_app):
    at = studio_app(render_fn=fake_render(fail=True), query=TINY)
    at.button(key="studio_render").click().run()
    run_until(at, lambda a: a.error)
    _no_exception(at)
    assert "could not be made" in at.error[0].value and "exit status 1" in at.error[0].value
    assert at.button(key="studio_retry_mine")
    assert "ValueError: no frames" in at.get("code")[0].value


@needs_model
def test_lecture_page_plays_every_scene_trained_and_induction_included_with_captions_beneath(studio_app):
    at = studio_app(render_fn=fake_render())
    at.switch_page("app_pages/lecture.py").run()
    run_until(at, lambda a: len(_videos(a)) == 6)
    _no_exception(at)
    assert [s.value for s in at.main.subheader] == ["Scores", "Masking", "Multihead", "Scaling", "Trained",
                                                     "Induction"]
    assert all(not v.proto.subtitles for v in _videos(at))  # no subtitle track over the picture
    shown = bands(at)
    assert [b["heading"] for b in shown] == ["lab-scores", "lab-masking", "lab-multihead", "lab-scaling",
                                             "lab-trained", "lab-induction"]
    assert shown[0]["cues"] == [[0.0, 2.0, "First, project."], [2.0, 3.5, "Then, the scores."]]


def test_presenter_steps_with_next_and_back(studio_app):
    at = studio_app(render_fn=fake_render())
    at.switch_page("app_pages/lecture.py").run()
    at.toggle(key="lecture_presenter").set_value(True).run()
    run_until(at, lambda a: any("Step 1 of 2" in h.value for h in a.subheader))
    assert [b["cues"][0][2] for b in bands(at)] == ["First, project."]  # the caption beneath the clip
    assert at.button(key="presenter_back").disabled
    at.button(key="presenter_next").click().run()
    assert any(h.value == "Step 2 of 2: scores" for h in at.subheader)
    assert [b["cues"][0][2] for b in bands(at)] == ["Then, the scores."]
    assert at.button(key="presenter_next").disabled
    at.button(key="presenter_back").click().run()
    assert any("Step 1 of 2" in h.value for h in at.subheader)
    _no_exception(at)


@needs_model
def test_my_settings_on_the_lecture_page_render_on_request(studio_app):
    """Your lesson's videos render when asked; the trained and the induction video, which cannot draw a
    random lesson, play the class's and say so."""
    at = studio_app(render_fn=fake_render(), query=url_params(__import__("core").PRESETS["padding"]))
    at.switch_page("app_pages/lecture.py").run()
    at.segmented_control(key="lecture_lesson").set_value("my settings").run()
    run_until(at, lambda a: len(_videos(a)) == 2)  # the class's trained and induction videos, made for all
    assert [b["heading"] for b in bands(at)] == ["lab-trained", "lab-induction"]
    notes = [c.value for c in at.main.caption if "not your lesson" in c.value]
    assert notes == ["This video draws the trained model reading the example sentence, not your lesson.",
                     "This video draws the default training run, not your lesson."]
    at.button(key="lecture_render_masking").click().run()
    run_until(at, lambda a: len(_videos(a)) == 3)
    _no_exception(at)


def test_without_manim_the_lab_runs_and_says_what_to_install(studio_app, monkeypatch, request):
    import importlib.util

    from dashboard.video import studio

    studio.videos_available.cache_clear()  # looked up once per process: here, again, without manim
    request.addfinalizer(studio.videos_available.cache_clear)
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "manim" else real(name, *a))
    at = studio_app(render_fn=fake_render())
    _no_exception(at)
    assert at.get("vega_lite_chart"), "the lesson's charts still show"
    assert any("need manim" in c.value for c in at.sidebar.caption)
    at.switch_page("app_pages/lecture.py").run()
    _no_exception(at)
    assert any("need manim" in i.value for i in at.info) and not _videos(at)


def _recording(seen: list):
    inner = fake_render()

    def render(scene, cfg, quality, on_progress=None, timeout=None, media_dir=None, voice=None):
        seen.append((scene, quality))
        return inner(scene, cfg, quality, on_progress, timeout, media_dir, voice)

    return render


def test_class_quality_from_the_sidebar_with_its_wait(studio_app):
    seen = []
    at = studio_app(render_fn=_recording(seen), query=TINY)
    waits = " ".join(c.value for c in at.sidebar.caption)
    assert "fast (480p, 15 fps): about" in waits and "class (1080p, 30 fps): about" in waits and "min" in waits
    at.radio(key="studio_quality").set_value("class").run()
    at.button(key="studio_render").click().run()
    run_until(at, lambda a: _videos(a))
    _no_exception(at)
    assert seen == [("scores", "class")]
    assert any("Video of:" in t.value and "1080p" in t.value for t in at.get("text"))


@needs_model
def test_lecture_page_at_class_quality_plays_what_is_made_and_offers_the_rest(studio_app, tmp_path):
    from animations.render import checked_request
    from core import PRESETS
    from dashboard.video.studio import NARRATOR

    name, cfg, voice = checked_request("masking", PRESETS["default"], "class", NARRATOR)
    fake_render()(name, cfg, "class", media_dir=tmp_path, voice=voice)  # as `make lecture` leaves it
    seen = []
    at = studio_app(render_fn=_recording(seen))
    at.switch_page("app_pages/lecture.py").run()
    at.radio(key="lecture_quality").set_value("class").run()
    _no_exception(at)
    classy = lambda: [s for s in seen if s[1] == "class"]  # noqa: E731 (the fast ones render on first visit)
    assert len(_videos(at)) == 1 and classy() == []  # the one made already plays; nothing renders unasked
    offered = [b.label for b in at.button if b.key and b.key.startswith("lecture_render_")]
    assert len(offered) == 5 and all("class (1080p, 30 fps): about" in label for label in offered)
    at.button(key="lecture_render_scaling").click().run()
    run_until(at, lambda a: len(_videos(a)) == 2)
    assert classy() == [("scaling", "class")]


@needs_model
def test_trained_heads_page_renders_the_trained_video_of_its_sentence(studio_app):
    """Issue 9: the trained scene renders from the Trained heads page through the render service;
    the video is of the page's sentence (whichever head is open), and the sidebar sends the user there."""
    at = studio_app(render_fn=fake_render(), query=TINY)
    at.switch_page("app_pages/trained_heads.py").run()
    _no_exception(at)
    assert not any(b.key == "studio_render" for b in at.sidebar.button)  # not the random lesson's video here
    assert any("A video of these heads" in c.value for c in at.sidebar.caption)
    at.segmented_control(key="view_trained_heads_layer").set_value(4).run()  # another head open: the same video
    at.button(key="trained_render").click().run()
    run_until(at, lambda a: _videos(a))
    _no_exception(at)
    job = at.session_state["studio_job_trained"]
    assert (job.scene, job.cfg.source, job.cfg.text, job.cfg.layer) == ("trained", "trained", SENTENCE, 1)
    assert any(t.value.startswith(f"Video of: “{SENTENCE[:40]}…” · the trained model (all-MiniLM-L6-v2) (trained,")
               for t in at.text)
    assert len(_videos(at)) == 1
