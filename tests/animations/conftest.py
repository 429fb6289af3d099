"""Scenes rendered under manim's dry_run at class quality (1080p30), once per (scene, lesson),
shared by the tests. A dry run writes no video, but the camera is the one a class render uses:
the step snapshots are 1080p frames."""

from pathlib import Path

import pytest

from core import PRESETS, AttentionConfig

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "animations"

# the default lesson, a causal one with 5 tokens and 4 heads, the article's 2x2 example, and a wide one
LESSONS = {
    "default": PRESETS["default"],
    "causal-5x4": AttentionConfig(source="random", seq_len=5, d_model=16, num_heads=4, mask="causal"),
    "article-2x2": PRESETS["article-2x2"],
    "eight-heads": PRESETS["eight-heads"],  # 10 tokens (8 shown), long words, 8 heads
}
WIDE = AttentionConfig(source="random", seq_len=12, d_model=256, num_heads=16)  # 8 of 16 heads, 8 of 16 columns each
SCENES = ("scores", "masking", "multihead", "scaling")
SHORTEST = "scaling"  # the shortest scene: the one real render of the suite (narrated)

# Every animation jumps to its end (manim's skip_animations): the mobjects, sections, captions and
# layouts are those of a full dry run, without rasterising every frame (5x faster); only the
# snapshots at the end of each step are drawn. The real renders play every frame.
SKIP = True
_rendered: dict = {}


def dry_run(scene: str, lesson: str, media_dir: Path):
    """The scene after a dry run (no video), with its last frame saved as a PNG artifact."""
    key = (scene, lesson)
    if key not in _rendered:
        import importlib

        from manim import tempconfig
        from PIL import Image

        from animations.catalog import QUALITIES
        from animations.catalog import SCENES as CATALOG

        module, cls = CATALOG[scene]
        scene_class = getattr(importlib.import_module(module), cls)
        options = {"dry_run": True, "disable_caching": True, **QUALITIES["class"].manim_config(),
                   "progress_bar": "none", "verbosity": "WARNING", "media_dir": str(media_dir)}
        with tempconfig(options):
            obj = scene_class(LESSONS[lesson] if lesson in LESSONS else WIDE, skip_animations=SKIP)
            obj.record_layout = True
            obj.snapshot_dir = ARTIFACTS / "steps" / lesson
            obj.snapshot_dir.mkdir(parents=True, exist_ok=True)
            obj.render()
            obj.renderer.update_frame(obj, ignore_skipping=True)
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            Image.fromarray(obj.renderer.get_frame()).save(ARTIFACTS / f"{scene}-{lesson}-last.png")
        _rendered[key] = obj
    return _rendered[key]


@pytest.fixture(scope="session")
def manim_media(tmp_path_factory):
    return tmp_path_factory.mktemp("manim-media")


@pytest.fixture(params=[(s, lesson) for s in SCENES for lesson in LESSONS] + [("multihead", "wide")],
                ids=lambda p: f"{p[0]}-{p[1]}")
def scene(request, manim_media):
    name, lesson = request.param
    return dry_run(name, lesson, manim_media)


@pytest.fixture(scope="session")
def dry_scene(manim_media):
    """dry_scene(scene, lesson) -> the scene after a dry run (shared with the parametrised tests)."""
    return lambda name, lesson: dry_run(name, lesson, manim_media)


@pytest.fixture(scope="session")
def rendered(tmp_path_factory):
    """The suite's one real render: the shortest scene, default lesson, low quality, narrated."""
    import os

    from animations.render import render

    here = tmp_path_factory.mktemp("cwd")
    progress = []
    cwd = os.getcwd()
    os.chdir(here)  # a relative media folder is relative to the caller, not to the worker
    try:
        movie = render(SHORTEST, PRESETS["default"], "low", on_progress=lambda d, t: progress.append((d, t)),
                       media_dir="media")
    finally:
        os.chdir(cwd)
    assert movie.is_absolute() and movie.is_relative_to(here / "media")
    return {"movie": movie, "media": here / "media", "progress": progress}
