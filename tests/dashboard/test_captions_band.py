"""The narrated videos' captions on the projector (issue 48 item 12): a scene screen plays its step's clip
with the band beneath it, showing the narration's cues of that step on the clip's clock, on by default; the
display setting "Captions under videos" (captions=0 in the address) takes the band's cues away and hides it."""

import json

from streamlit.testing.v1 import AppTest

from animations.sections import Step
from classroom.decks import default_deck
from dashboard.present import deck as decks
from dashboard.present import projector, ready
from dashboard.video import player

from .conftest import APP, _register_pages, no_exception

# two cues of the whole video: the first step's (0 to 4 s), the second's (4 to 9 s), on its clock
SRT = "1\n00:00:00,000 --> 00:00:04,000\nFirst step's words.\n\n2\n00:00:04,000 --> 00:00:09,500\nThe step's words.\n"


def _fake_render(tmp_path, monkeypatch, screen):
    movie = tmp_path / "scene.mp4"
    movie.write_bytes(b"\x00\x00\x00\x18ftypmp42")  # st.video sends the bytes; nothing here plays them
    movie.with_suffix(".srt").write_text(SRT, encoding="utf-8")
    clip = tmp_path / "step.mp4"
    clip.write_bytes(movie.read_bytes())
    parts = [Step("first", clip, 0.0, 4.0, "First step's words."),
             Step(screen.step, clip, 4.0, 9.5, "The step's words.")]
    monkeypatch.setattr(ready, "video_file", lambda s: movie)
    monkeypatch.setattr(projector, "steps", lambda m: parts)


def _band(at) -> dict:
    """What the projector handed the caption band: its cues (start, end, text, on the clip's clock), hidden or not."""
    found = [e.proto for e in at.main if getattr(getattr(e, "proto", None), "component_name", "") == "lab_caption_band"]
    assert len(found) == 1
    return json.loads(found[0].json)


def _open(monkeypatch, tmp_path, extra: dict) -> AppTest:
    deck = default_deck(decks.names())
    screen = next(s for s in deck.screens if s.kind == "scene")
    _fake_render(tmp_path, monkeypatch, screen)
    at = AppTest.from_file(str(APP), default_timeout=60)
    _register_pages(at)
    at.switch_page("app_pages/present.py")
    at.query_params = {"deck": "default", "screen": str(screen.number), "projector": "1", **extra}
    at.run()
    no_exception(at)
    return at


def test_a_scene_screen_shows_its_steps_captions_on_the_clips_clock_by_default(monkeypatch, tmp_path):
    band = _band(_open(monkeypatch, tmp_path, {}))
    assert band["hidden"] is False
    assert band["cues"] == [[0.0, 5.5, "The step's words."]]  # the second cue, 4 s to 9.5 s of the video


def test_the_captions_switch_in_the_sidebar_hides_the_band_and_the_address_says_so(monkeypatch, tmp_path):
    at = _open(monkeypatch, tmp_path, {})
    switch = next(t for t in at.sidebar.toggle if t.label == "Captions under videos")
    assert switch.value is True
    switch.set_value(False).run()
    no_exception(at)
    assert _band(at) == {**_band(at), "cues": [], "hidden": True}
    assert at.query_params.get("captions") in (["0"], "0")


def test_a_link_with_captions_off_opens_the_projector_without_them(monkeypatch, tmp_path):
    band = _band(_open(monkeypatch, tmp_path, {"captions": "0"}))
    assert band["cues"] == [] and band["hidden"] is True


def test_a_steps_cues_are_the_videos_cues_heard_during_it_on_its_own_clock():
    cues = [(0.0, 4.0, "a"), (4.0, 9.5, "b"), (9.5, 12.0, "c")]
    assert player.cues_within(cues, 4.0, 9.5) == [(0.0, 5.5, "b")]
    assert player.cues_within(cues, 3.0, 10.0) == [(0.0, 1.0, "a"), (1.0, 6.5, "b"), (6.5, 7.0, "c")]
    assert player.cues_within(cues, 12.0, 13.0) == []
