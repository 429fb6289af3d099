"""Small summaries of core's arrays that the front ends show (so they compute nothing)."""

import numpy as np


def stage_summary(stages: dict) -> list[dict]:
    """For each block stage (name -> (T, D) array), in order: its shape and mean row length."""
    return [{"stage": name, "shape": tuple(a.shape), "mean_norm": float(np.linalg.norm(a, axis=-1).mean())}
            for name, a in stages.items()]
