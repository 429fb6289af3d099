"""The scenes a lecture is made of, by name. No manim import: the dashboard reads this."""

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
QUALITIES = {"low": "low_quality", "medium": "medium_quality", "high": "high_quality"}


def scene_name(name: str) -> str:
    """The catalogue name for a scene name or class name (case-insensitive)."""
    wanted = name.strip().lower()
    for key, (_, cls) in SCENES.items():
        if wanted in (key, cls.lower(), cls.lower().removesuffix("scene")):
            return key
    raise KeyError(f"Unknown scene '{name}': choose one of {', '.join(SCENES)}.")
