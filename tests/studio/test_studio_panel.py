"""The sidebar's video panel says whose lesson a video shows, and the narration toggle works."""

import threading

from core import AttentionConfig
from dashboard.lesson.state import url_params
from dashboard.video import studio

from .conftest import fake_render, run_until

TINY = dict(source="random", seq_len=3, d_model=4, num_heads=1)


def _gated(gate: threading.Event, seen: list):
    """fake_render that records the voice asked for and waits for `gate` before finishing."""
    inner = fake_render()

    def render(scene, cfg, quality, on_progress=None, timeout=None, media_dir=None, voice=None):
        seen.append((cfg.seed, voice))
        gate.wait(30)
        return inner(scene, cfg, quality, on_progress, timeout, media_dir, voice)

    return render


def _texts(at) -> list[str]:
    return [t.value for t in at.get("text")]


def _set_seed(at, seed: int):
    at.text_input(key="ctl_seed").input(str(seed)).run()  # the seed is typed (sidebar.py)


def test_a_fourth_request_keeps_the_third_video_labelled_as_the_third_lesson(studio_app):
    gate, seen = threading.Event(), []
    at = studio_app(render_fn=_gated(gate, seen), query=url_params(AttentionConfig(**TINY, seed=1)))
    for seed in (1, 2, 3):
        _set_seed(at, seed)
        at.button(key="studio_render").click().run()
    _set_seed(at, 4)
    at.button(key="studio_render").click().run()
    assert any("You already have 3 videos rendering" in w.value for w in at.sidebar.warning)
    assert any("Video of:" in t and "seed 3" in t for t in _texts(at)), _texts(at)
    assert any("another lesson than the one on your screen" in w.value for w in at.sidebar.warning)
    gate.set()
    run_until(at, lambda a: a.get("video"))
    assert any("Video of:" in t and "seed 3" in t for t in _texts(at))  # the video still says whose it is
    assert any("another lesson" in w.value for w in at.sidebar.warning)
    _set_seed(at, 3)  # back on the third lesson: its video, no warning
    assert not any("another lesson" in w.value for w in at.sidebar.warning)
    assert not at.exception


def test_narration_toggle_and_rate_reach_the_render(studio_app):
    gate, seen = threading.Event(), []
    gate.set()
    at = studio_app(render_fn=_gated(gate, seen), query=url_params(AttentionConfig(**TINY, seed=5)))
    at.radio(key="studio_rate").set_value(0.7).run()
    at.button(key="studio_render").click().run()
    run_until(at, lambda a: a.get("video"))
    assert seen[-1][1] is not None and seen[-1][1].rate == 0.7
    assert any("narrated at 0.7× pace" in t for t in _texts(at))
    at.toggle(key="studio_voice").set_value(False).run()
    _set_seed(at, 6)
    at.button(key="studio_render").click().run()
    run_until(at, lambda a: any("seed 6" in t and "silent" in t for t in _texts(a)))
    assert seen[-1] == (6, None)
    assert not at.exception


def test_without_piper_the_sidebar_says_narration_is_off_and_how_to_install(studio_app, monkeypatch):
    monkeypatch.setattr(studio, "missing", lambda voice=None: "Narration is off: piper-tts is not installed "
                                                              "(run `make run`, which installs them).")
    seen = []
    gate = threading.Event()
    gate.set()
    at = studio_app(render_fn=_gated(gate, seen), query=url_params(AttentionConfig(**TINY, seed=7)))
    assert at.toggle(key="studio_voice").disabled
    assert any("Narration is off" in c.value and "make run" in c.value for c in at.sidebar.caption)
    at.button(key="studio_render").click().run()
    run_until(at, lambda a: a.get("video"))
    assert seen[-1] == (7, None)
    assert not at.exception
