"""Pieces of the scenes' sentences, said the same way in every scene.

Numbers in a caption come from the trace, printed as the grids print them (two decimals)
or as a whole percentage; tokens are quoted ‘like this’, which the narrator's normaliser
(animations.speech) recognises.
"""

from core import PRESETS, AttentionConfig

ARTICLE = "“Transformer Architecture and the Self-Attention Mechanism” by Ashok Kumar Yadav"
RANDOM_WEIGHTS = ("These weights are random, not trained: the arithmetic is real, the patterns are not; "
                  "the dashboard's Trained heads page shows learned ones.")


def tok(token: str) -> str:
    """A token as a caption quotes it."""
    return f"‘{token}’"


def pct(weight: float) -> str:
    """A weight as a whole percentage, e.g. 0.1734 -> '17%'."""
    return f"{round(100 * float(weight))}%"


def article_example(cfg: AttentionConfig) -> str:
    """The name of the article's example this lesson is, or ''."""
    return next((name for name, preset in PRESETS.items() if name.startswith("article") and preset == cfg), "")


def citation(cfg: AttentionConfig) -> str:
    """A sentence citing the article when the lesson is one of its worked examples."""
    return f" This is a worked example from {ARTICLE}." if article_example(cfg) else ""


def weights_note(cfg: AttentionConfig) -> str:
    """Once per video: where Q, K and V come from, and that nothing here was trained."""
    if article_example(cfg) == "article-4x8":
        return (" Q, K and V are the article's x·W_Q, x·W_K and x·W_V, with x and every W drawn at random, N(0, 1), "
                "and nothing trained.")
    if cfg.source == "manual":
        return " Q, K and V were entered by hand: no weight matrix and no training is involved."
    return " " + RANDOM_WEIGHTS
