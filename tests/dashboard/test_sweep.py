"""Many random lessons on every page: no exception, and the weights always core's."""

import random

import numpy as np
import pytest

from core import PRESETS, AttentionConfig, ConfigError, run_trace
from core.config import MASKS, POSITIONALS
from dashboard.links import url_params

from .conftest import PAGES, chart_data, no_exception, page_path


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


@pytest.mark.parametrize("page", PAGES)
def test_random_lessons_on_every_page(make_app, page):
    for cfg in random_lessons(5, seed=PAGES.index(page)):
        at = make_app(query=url_params(cfg), page=page)  # a fresh visit to the link
        no_exception(at)
        assert at.session_state["lesson_cfg"] == cfg
        trace = run_trace(cfg)
        for meta, df in chart_data(at):
            if meta.get("lab") == "weights" and page == "attention":
                h = meta["head"]
                w = np.zeros((cfg.num_tokens, cfg.num_tokens))
                w[df["row"], df["col"]] = df["weight"]
                np.testing.assert_allclose(w, trace.weights[h], rtol=1e-5, atol=1e-6)
                sums = w.sum(axis=1)
                assert np.allclose(sums[~trace.blocked_rows], 1, atol=1e-5) and np.all(sums[trace.blocked_rows] == 0)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_on_every_page(make_app, preset):
    at = make_app(query=url_params(PRESETS[preset]))
    for page in PAGES:
        at.switch_page(page_path(page)).run()
        no_exception(at)
        assert at.session_state["lesson_cfg"] == PRESETS[preset]
        assert chart_data(at) or at.info, f"{page} draws charts or says why not"
