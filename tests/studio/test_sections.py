"""Presenter steps read from a render folder: clips in order, each with its own caption."""

import json

from animations.sections import read_srt, steps

SRT = """1
00:00:00,000 --> 00:00:04,200
First step,
on two lines.

2
00:00:04,200 --> 00:00:07,933
Second step.
"""


def _render_folder(tmp_path):
    (tmp_path / "scores.mp4").write_bytes(b"")
    (tmp_path / "scores.srt").write_text(SRT, encoding="utf-8")
    sections = tmp_path / "sections"
    sections.mkdir()
    index = [{"name": "project", "video": "scores_0000_project.mp4", "duration": "4.2"},
             {"name": "dot-product", "video": "scores_0001_dot-product.mp4", "duration": "3.733333"}]
    (sections / "scores.json").write_text(json.dumps(index), encoding="utf-8")
    return tmp_path / "scores.mp4"


def test_read_srt(tmp_path):
    movie = _render_folder(tmp_path)
    cues = read_srt(movie.with_suffix(".srt"))
    assert cues == [(0.0, 4.2, "First step, on two lines."), (4.2, 7.933, "Second step.")]
    assert read_srt(tmp_path / "missing.srt") == []


def test_steps_pair_sections_with_captions(tmp_path):
    movie = _render_folder(tmp_path)
    got = steps(movie)
    assert [s.name for s in got] == ["project", "dot-product"]
    assert [s.caption for s in got] == ["First step, on two lines.", "Second step."]
    assert got[1].clip == tmp_path / "sections" / "scores_0001_dot-product.mp4"
    assert abs(got[1].start - 4.2) < 1e-9 and abs(got[1].end - 7.933333) < 1e-6
