"""The scenes a lecture is made of, by name, and the qualities they render at; what a deck may name. No
manim import: the dashboard reads this."""

import functools
from typing import NamedTuple

from classroom.catalogue import BY_URL, VIEW_NAMES
from classroom.decks import Names
from core import guided_heads
from core.config import AttentionConfig
from core.errors import ConfigError
from core.presets import PRESETS

# name -> (module, class); the lecture plays them in this order
SCENES: dict[str, tuple[str, str]] = {
    "scores": ("animations.scenes.scores", "ScoresScene"),
    "masking": ("animations.scenes.masking", "MaskingScene"),
    "multihead": ("animations.scenes.multihead", "MultiHeadScene"),
    "scaling": ("animations.scenes.scaling", "ScalingScene"),
    "trained": ("animations.scenes.trained", "TrainedScene"),
    "induction": ("animations.scenes.induction", "InductionScene"),
}
# Scenes of the trained model: they draw `AttentionConfig.trained` lessons, and only those. The
# others draw a lesson with random or hand-entered weights and say so, which would be untrue of it.
TRAINED = ("trained",)
# Scenes drawn from a recorded training film (core.film, the default LearnSettings), not from a
# lesson: a render of one accepts any lesson and ignores it (render caches it under the default one).
FILMS = ("induction",)
# The random-weight scenes, played with one lesson (the sidebar's "Render with my settings" offers these).
LECTURE = tuple(name for name in SCENES if name not in TRAINED + FILMS)
# What the trained scenes read in a class (`make lecture`, the Lecture page): the Trained heads page's example.
TRAINED_SENTENCE = guided_heads.EXAMPLE
DESCRIPTIONS = {  # one line each, for the dashboard's Lecture page
    "scores": "Tokens become Q, K and V; each query meets every key; ÷√d_k; softmax; the weights mix V.",
    "masking": "A mask blocks keys: −∞ before the softmax, weight 0 after; causal, padding, window.",
    "multihead": "d_model splits into h heads, each with its own weights; concatenated, then mixed by W_O.",
    "scaling": "Why divide by √d_k: without it, softmax saturates into one-hot as d_k grows.",
    "trained": "A trained, distilled model (all-MiniLM-L6-v2) reads a sentence: a head that looks one piece back, "
               "one that parks its weight on [CLS] yet, on most sentences, takes little from it.",
    "induction": "A tiny Transformer learns to continue repeated characters: its loss drops suddenly as "
                 "previous-token and induction heads form; removing heads shows how they share the work (a "
                 "recorded training run).",
}


class Quality(NamedTuple):
    width: int  # pixels
    height: int
    fps: int
    label: str  # for people: the dashboard's choice and the CLI's help

    def manim_config(self) -> dict:
        """The settings manim renders with (the frame stays 16:9, 8 units high: text keeps its size)."""
        return {"pixel_width": self.width, "pixel_height": self.height, "frame_rate": self.fps}


# Seconds to render each scene for the default lesson, narrated, from start to a playable video,
# as measured by `benchmarks/render_bench.py --class-vs-low` on a 2-core machine ("trained": the
# Trained heads page's example sentence; "induction": its film trained in the render, no film saved);
# docs/performance.md has the runs. The dashboard quotes them as the wait to expect.
RENDER_SECONDS = {
    "low": {"scores": 28, "masking": 28, "multihead": 36, "scaling": 35, "trained": 22, "induction": 72},
    "class": {"scores": 85, "masking": 135, "multihead": 68, "scaling": 114, "trained": 61, "induction": 411},
}



def render_seconds(scene: str, quality: str) -> float:
    """The measured seconds of one render (a scene not measured: its quality's mean; 0: none measured)."""
    known = RENDER_SECONDS.get(quality, {})
    return known.get(scene) or (sum(known.values()) / len(known) if known else 0.0)


def duration_text(seconds: float) -> str:
    """'about 40 s', 'about 4.5 min' (to the half minute): a wait as a person says it."""
    if seconds < 55:
        return f"about {max(10, int(seconds / 10 + 0.5) * 10)} s"
    return f"about {int(seconds / 30 + 0.5) / 2:g} min"


QUALITIES = {  # "low" is the quick default; "class" is for a projector
    "low": Quality(854, 480, 15, "fast (480p, 15 fps)"),
    "class": Quality(1920, 1080, 30, "class (1080p, 30 fps)"),
    "medium": Quality(1280, 720, 30, "medium (720p, 30 fps)"),
    "high": Quality(1920, 1080, 60, "high (1080p, 60 fps)"),
}


def lecture_lesson(name: str) -> AttentionConfig:
    """The lesson the class's video of scene `name` draws: the trained model reading the example
    sentence for a trained scene (ConfigError, with the install hint, where the model is missing), the
    default lesson for any other (a film's scene ignores it)."""
    return AttentionConfig.trained(TRAINED_SENTENCE) if name in TRAINED else PRESETS["default"]


def scene_name(name: str) -> str:
    """The catalogue name for a scene name or class name (case-insensitive)."""
    wanted = name.strip().lower()
    for key, (_, cls) in SCENES.items():
        if wanted in (key, cls.lower(), cls.lower().removesuffix("scene")):
            return key
    raise KeyError(f"Unknown scene '{name}': choose one of {', '.join(SCENES)}.")


def scenes_for(cfg) -> tuple[str, ...]:
    """The scenes that can draw the lesson `cfg`, in catalogue order: the trained scenes for a
    trained lesson (a page's "Render this head"), the lecture's scenes for any other."""
    trained = cfg.source == "trained"
    return tuple(name for name in SCENES if name not in FILMS and (name in TRAINED) == trained)


def check_scene(name: str, cfg) -> None:
    """Raise ConfigError, in words, when the scene `name` cannot draw the lesson `cfg` (a film's
    scene draws any: it ignores the lesson)."""
    if name in FILMS or name in scenes_for(cfg):
        return
    if name in TRAINED:
        has = "hand-entered Q, K and V" if cfg.source == "manual" else "random weights"
        raise ConfigError(f"The '{name}' video shows the trained model reading a sentence, so it needs a "
                          f"trained lesson (source trained, as the Trained heads page makes); this lesson has {has}.",
                          "source")
    raise ConfigError(f"The '{name}' video is about lessons with random or hand-entered weights and says so; "
                      f"this lesson is the trained model: render the '{TRAINED[0]}' video for it.", "source")


@functools.cache
def deck_names() -> Names:
    """What a deck may name, from each list's one home: the catalogue's pages (url paths) and their view
    names, the scenes and the rule of which scene draws which lesson. The app, `make lecture` and
    `make handout` read decks with it."""
    return Names(frozenset(BY_URL), frozenset(SCENES), VIEW_NAMES, check_scene)
