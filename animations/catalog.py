"""The scenes a lecture is made of, by name, and the qualities they render at. No manim import:
the dashboard reads this."""

from typing import NamedTuple

# name -> (module, class); the lecture plays them in this order
SCENES: dict[str, tuple[str, str]] = {
    "scores": ("animations.scenes.scores", "ScoresScene"),
    "masking": ("animations.scenes.masking", "MaskingScene"),
    "multihead": ("animations.scenes.multihead", "MultiHeadScene"),
    "scaling": ("animations.scenes.scaling", "ScalingScene"),
}
LECTURE = tuple(SCENES)
DESCRIPTIONS = {  # one line each, for the dashboard's Lecture page
    "scores": "Tokens become Q, K and V; each query meets every key; ÷√d_k; softmax; the weights mix V.",
    "masking": "A mask blocks keys: −∞ before the softmax, weight 0 after; causal, padding, window.",
    "multihead": "d_model splits into h heads, each with its own weights; concatenated, then mixed by W_O.",
    "scaling": "Why divide by √d_k: without it, softmax saturates into one-hot as d_k grows.",
}


class Quality(NamedTuple):
    width: int  # pixels
    height: int
    fps: int
    label: str  # for people: the dashboard's choice and the CLI's help

    def manim_config(self) -> dict:
        """The settings manim renders with (the frame stays 16:9, 8 units high: text keeps its size)."""
        return {"pixel_width": self.width, "pixel_height": self.height, "frame_rate": self.fps}


# Seconds to render each scene for the default lesson, narrated, from start to a playable video:
# `benchmarks/render_bench.py --class-vs-low` on the 2-core development machine while other jobs
# ran on it (load 4-8), 2026-11-29: provisional. The dashboard quotes them as the wait to expect.
RENDER_SECONDS = {
    "low": {"scores": 28, "masking": 28, "multihead": 36, "scaling": 35},
    "class": {"scores": 85, "masking": 135, "multihead": 68, "scaling": 114},
}

QUALITIES = {  # "low" is the quick default; "class" is for a projector
    "low": Quality(854, 480, 15, "fast (480p, 15 fps)"),
    "class": Quality(1920, 1080, 30, "class (1080p, 30 fps)"),
    "medium": Quality(1280, 720, 30, "medium (720p, 30 fps)"),
    "high": Quality(1920, 1080, 60, "high (1080p, 60 fps)"),
}


def scene_name(name: str) -> str:
    """The catalogue name for a scene name or class name (case-insensitive)."""
    wanted = name.strip().lower()
    for key, (_, cls) in SCENES.items():
        if wanted in (key, cls.lower(), cls.lower().removesuffix("scene")):
            return key
    raise KeyError(f"Unknown scene '{name}': choose one of {', '.join(SCENES)}.")
