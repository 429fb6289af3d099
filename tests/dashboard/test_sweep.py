"""Many random lessons on every page: no exception, and every chart of weights on every page is core's."""

import random

import numpy as np
import pytest

from core import PRESETS, AttentionConfig, ConfigError, run_trace
from core.config import MASKS, POSITIONALS
from core.lesson import with_mask
from dashboard.lesson.state import url_params

from .conftest import PAGES, chart_data, no_exception, switch


def random_lessons(n: int, seed: int = 3) -> list[AttentionConfig]:
    rng, out = random.Random(seed), []
    while len(out) < n:
        d_model = rng.choice([1, 2, 6, 8, 12, 16, 32, 64, 96])
        heads = rng.choice([h for h in range(1, min(d_model, 16) + 1) if d_model % h == 0])
        T = rng.randint(1, 20)
        values = dict(source="random", seq_len=T, d_model=d_model, num_heads=heads, mask=rng.choice(MASKS),
                      pad_length=rng.randint(1, T), window=rng.randint(1, 5), positional=rng.choice(POSITIONALS),
                      scale=rng.random() < 0.7, temperature=round(rng.uniform(0.05, 5), 2), seed=rng.randint(0, 99))
        if values["mask"] == "custom":
            values["custom_mask"] = tuple(tuple(rng.random() < 0.6 for _ in range(T)) for _ in range(T))
        try:
            out.append(AttentionConfig(**values))
        except ConfigError:
            continue  # e.g. rotary with an odd d_k; those messages are tested elsewhere
    return out


def _grid(df, column: str, T: int) -> np.ndarray:
    out = np.zeros((T, T))
    out[df["row"], df["col"]] = df[column]
    return out


def weights_shown(page: str, cfg: AttentionConfig) -> list[np.ndarray]:
    """What core says each weights chart of the page holds, in the page's order: (H, T, T) each."""
    if page == "attention":
        return [run_trace(cfg).weights]
    if page == "masking":  # opens on the lesson's mask, or causal when it has none
        return [run_trace(with_mask(cfg, cfg.mask if cfg.mask != "none" else "causal")).weights]
    if page == "positional":
        shown = []
        for p in POSITIONALS:
            try:
                shown.append(run_trace(cfg.replace(positional=p)).weights)
            except ConfigError:
                continue  # the page says why instead (rotary with an odd d_k)
        return shown
    if page == "multi_head":  # every head its own chart, in order
        weights = run_trace(cfg).weights
        return [weights] * len(weights)
    if page == "worked_example":  # the article's example and its masking listing, whatever the lesson
        return [run_trace(PRESETS["article-2x2"]).weights, run_trace(PRESETS["article-causal"]).weights]
    return []


def check_weights(page: str, cfg: AttentionConfig, at):
    """Every chart of weights on the page holds core's numbers, and its rows sum to 1 or are blocked."""
    T, trace = cfg.num_tokens, run_trace(cfg)
    expected = iter(weights_shown(page, cfg))
    checked = 0
    for meta, df in chart_data(at):
        if meta.get("lab") == "weights":
            shown = next(expected, None)
            assert shown is not None, f"the page {page} draws a weights chart that weights_shown does not list"
            want = shown[meta["head"] or 0]  # a one-head chart may leave its head out of the spec
            w = _grid(df, "weight", len(want))
        elif meta.get("lab") == "mean-weights":
            w, want = df["value"].to_numpy().reshape(T, T), trace.mean_weights
        else:
            continue
        np.testing.assert_allclose(w, want, rtol=1e-5, atol=1e-6)
        sums = w.sum(axis=1)
        assert np.all((np.abs(sums - 1) < 1e-5) | (sums == 0))
        checked += 1
    assert next(expected, None) is None, "every weights chart core computes is on the page"
    return checked


@pytest.mark.parametrize("page", PAGES)
def test_random_lessons_on_every_page_show_cores_weights(make_app, page):
    for cfg in random_lessons(5, seed=PAGES.index(page)):
        at = make_app(query=url_params(cfg), page=page)  # a fresh visit to the link
        no_exception(at)
        assert at.session_state["lesson"] == cfg
        checked = check_weights(page, cfg, at)
        assert checked >= (page in ("attention", "masking", "positional", "multi_head", "worked_example"))


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_on_every_page(make_app, preset):
    at = make_app(query=url_params(PRESETS[preset]))
    for page in PAGES:
        switch(at, page)
        no_exception(at)
        assert at.session_state["lesson"] == PRESETS[preset]
        assert chart_data(at) or at.info, f"{page} draws charts or says why not"
