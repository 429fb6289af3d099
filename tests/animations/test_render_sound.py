"""The narrated render, by the numbers (PyAV): a sound track as long as the picture, each step's
speech starting inside its step, no clipping, a normal loudness, subtitles inside the mp4 and
for the browser, speech in every section clip, and the speech cached for the next render.

Loudness range: the RMS of the speech (20 ms frames above -45 dBFS) lies between -30 and
-10 dBFS, where spoken word is mastered; the peak stays below -1 dBFS (Piper's sentences peak
at -4.4 dBFS, VOLUME = 0.6, and AAC may overshoot a little).
"""

import av
import numpy as np
import pytest

from animations.narration import LEAD
from animations.render import outputs
from animations.speech import spoken
from animations.voice import NARRATOR, Synthesis

from .conftest import SHORTEST

pytestmark = pytest.mark.render
FRAME_S = 0.02
QUIET_DB, SPEECH_DB = -50.0, -35.0  # a frame below QUIET_DB is silence; a speech onset rises above SPEECH_DB


def _audio(path) -> tuple[np.ndarray, int]:
    """The sound track as mono float samples in [-1, 1], and its sample rate."""
    with av.open(str(path)) as container:
        stream = container.streams.audio[0]
        chunks = [frame.to_ndarray().astype(np.float32) for frame in container.decode(stream)]
        rate = stream.codec_context.sample_rate
    samples = np.concatenate(chunks, axis=1)  # (channels, n) for planar float AAC
    return samples.mean(axis=0), rate


def _frames_db(samples, rate) -> np.ndarray:
    hop = int(rate * FRAME_S)
    frames = samples[: len(samples) // hop * hop].reshape(-1, hop)
    return 20 * np.log10(np.sqrt((frames**2).mean(axis=1)) + 1e-9)


def _streams(path) -> dict:
    with av.open(str(path)) as container:
        return {s.type: (s.codec_context.name, float(s.duration * s.time_base) if s.duration else None)
                for s in container.streams}


def test_sound_and_picture_last_as_long(rendered):
    streams = _streams(rendered["movie"])
    assert streams["audio"][0] == "aac" and streams["subtitle"][0] == "mov_text"
    assert abs(streams["audio"][1] - streams["video"][1]) < 0.1, streams


def test_each_steps_speech_starts_inside_the_step(rendered):
    samples, rate = _audio(rendered["movie"])
    db = _frames_db(samples, rate)
    start = 0.0
    for section in outputs(rendered["movie"])["sections"]:
        end = start + float(section["duration"])
        first, last = int(start / FRAME_S), int(end / FRAME_S)
        loud = np.flatnonzero(db[first:last] > SPEECH_DB)
        assert loud.size, f"no speech in {section['name']}"
        onset = start + loud[0] * FRAME_S
        assert start <= onset < start + LEAD + 0.5, (section["name"], start, onset)
        assert db[first: int((start + LEAD - 0.05) / FRAME_S)].max() < QUIET_DB  # the previous step's voice is over
        start = end


def test_a_pace_a_lecture_hall_can_follow(rendered, dry_scene):
    """At most 125 words of subtitle a minute of video, and speech (from each step's first word to
    its last sound) fills at most 85 % of it: the picture holds after each sentence."""
    duration = _streams(rendered["movie"])["video"][1]
    words = sum(len(c.split()) for c in dry_scene(SHORTEST, "default").captions)
    assert words / duration * 60 <= 125, (words, duration)
    samples, rate = _audio(rendered["movie"])
    db = _frames_db(samples, rate)
    spoken_s, start = 0.0, 0.0
    for section in outputs(rendered["movie"])["sections"]:
        end = start + float(section["duration"])
        frames = db[int(start / FRAME_S): int(end / FRAME_S)]
        onset, last = np.flatnonzero(frames > SPEECH_DB)[0], np.flatnonzero(frames > QUIET_DB)[-1]
        spoken_s += (last - onset + 1) * FRAME_S
        start = end
    assert spoken_s / duration <= 0.85, (spoken_s, duration)


def test_no_clipping_and_a_normal_loudness(rendered):
    samples, rate = _audio(rendered["movie"])
    peak_db = 20 * np.log10(np.abs(samples).max())
    db = _frames_db(samples, rate)
    speech = db[db > -45]
    rms_db = 10 * np.log10(np.mean(10 ** (speech / 10)))
    assert peak_db < -1.0, peak_db
    assert -30 <= rms_db <= -10, rms_db
    assert speech.size * FRAME_S > 0.4 * len(samples) / rate  # speech, with pauses to look between sentences


def test_subtitles_for_the_browser_and_inside_the_mp4(rendered, dry_scene):
    vtt = outputs(rendered["movie"])["vtt"].read_text(encoding="utf-8")
    assert vtt.startswith("WEBVTT\n\n00:00:00.000 --> ")
    assert all(c.replace("&", "&amp;").replace("<", "&lt;") in vtt for c in dry_scene(SHORTEST, "default").captions)
    with av.open(str(rendered["movie"])) as container:
        cues = [str(sub) for packet in container.demux(container.streams.subtitles[0]) for sub in packet.decode()]
    assert len(cues) >= len(outputs(rendered["movie"])["sections"])


def test_every_section_clip_carries_its_speech(rendered):
    files = outputs(rendered["movie"])
    for section in files["sections"]:
        clip = files["sections_index"].parent / section["video"]
        streams = _streams(clip)
        assert "audio" in streams, section["name"]
        assert abs(streams["audio"][1] - streams["video"][1]) < 0.1
        samples, rate = _audio(clip)
        assert _frames_db(samples, rate).max() > SPEECH_DB  # sound, not silence


def test_a_second_render_synthesises_nothing(rendered, dry_scene):
    captions = dry_scene(SHORTEST, "default").captions
    again = Synthesis([spoken(c) for c in captions], NARRATOR, rendered["media"] / "tts")
    assert again.synthesised == 0 and again.proc is None


def test_the_vtt_is_the_narrations_captions_in_order_timed_within_the_video(rendered, dry_scene, tmp_path):
    """WCAG 1.2.2's captions: one cue per step, the narration's own text in order, starting where its step
    starts, in time order and inside the video; the export (make lecture) takes the .vtt with the mp4."""
    import html

    from animations.render import export
    from animations.sections import read_srt

    files = outputs(rendered["movie"])
    cues = read_srt(files["vtt"])
    assert [html.unescape(text) for _, _, text in cues] == dry_scene(SHORTEST, "default").captions
    duration = _streams(rendered["movie"])["video"][1]
    ends = [0.0] + [end for _, end, _ in cues]
    assert all(ends[i] <= start + 1e-3 and start < end for i, (start, end, _) in enumerate(cues))
    assert ends[-1] <= duration + 0.05
    starts = [0.0]
    for section in files["sections"][:-1]:
        starts.append(starts[-1] + float(section["duration"]))
    assert [start for start, _, _ in cues] == pytest.approx(starts, abs=0.1)  # each caption from its step's start
    exported = export(rendered["movie"], tmp_path, "scaling")
    assert exported.with_suffix(".vtt").read_text(encoding="utf-8") == files["vtt"].read_text(encoding="utf-8")
