"""A video rendered "with my settings" shows the numbers the dashboard shows, to the digit."""

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from core import AttentionConfig
from dashboard.lesson.state import url_params

from .conftest import APP

LESSON = AttentionConfig(text="Students watch the weights move", d_model=16, num_heads=4, mask="causal",
                         positional="sinusoidal", seed=3)


def _dashboard_weights(cfg, head: int) -> np.ndarray:
    """Head `head`'s softmax weights as the dashboard's chart carries them."""
    import json

    import pyarrow as pa

    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params = url_params(cfg)
    at.run()
    for element in at.get("vega_lite_chart"):
        meta = json.loads(element.proto.spec).get("usermeta", {})
        if meta.get("lab") == "weights" and meta.get("head") == head:
            df = pa.ipc.open_stream(element.proto.datasets[0].data.data).read_all().to_pandas()
            T = cfg.num_tokens
            out = np.full((T, T), np.nan)
            out[df["row"].to_numpy(), df["col"].to_numpy()] = df["weight"].to_numpy()
            return out
    raise AssertionError("the dashboard drew no weights chart for that head")


def _scene_weight_texts(cfg, tmp_path) -> list[list[str]]:
    from manim import tempconfig

    from animations.scenes.scores import ScoresScene

    with tempconfig({"dry_run": True, "disable_caching": True, "quality": "low_quality", "progress_bar": "none",
                     "verbosity": "WARNING", "media_dir": str(tmp_path)}):
        scene = ScoresScene(cfg, skip_animations=True)  # each animation at its end: no frames drawn
        scene.render()
    grids = [g for g in scene.grids if g.tag[1] == "weights" and len(g.tag) == 3]
    assert grids, "the scene drew no weight grid"
    return grids[0].texts()


@pytest.mark.render
def test_video_and_dashboard_print_the_same_weights(tmp_path):
    drawn = _scene_weight_texts(LESSON, tmp_path)  # head 1, the first tokens the frame holds
    shown = _dashboard_weights(LESSON, head=0)
    assert len(drawn) >= 5
    assert drawn == [[f"{w:.2f}" for w in row[: len(drawn[0])]] for row in shown[: len(drawn)]]
