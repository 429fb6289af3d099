"""core.learn.ablated: a head removed is a head whose output is 0 before W_O, checked against another
way to silence it (its value projection zeroed, so every weighted sum it makes is 0), and the whole
model's loss against cross-entropy computed here from its logits."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from core.film import LearnSettings
from core.learn import ABLATION_SEED, ABLATION_SEQUENCES, ablated, train
from core.learn_tasks import task_batch
from core.tiny_model import TinyTransformer

SMALL = LearnSettings(d_model=16, heads=2, steps=30)  # trains in a second or two: enough to be no longer random


@pytest.fixture(scope="module")
def film():
    return train(SMALL)


def _by_hand(film, silenced=()):
    """The film's model with each (layer, head) of `silenced` given a zero value projection (rows of
    in_proj for V, and their bias): (loss, accuracy) on the same fresh sequences, computed here."""
    shape = {"vocab": 32, "max_len": 48, "d_model": SMALL.d_model, "heads": SMALL.heads, "layers": SMALL.layers,
             "positions": SMALL.positions, "causal": SMALL.causal}
    model = TinyTransformer.empty(**shape)
    model.load_state_dict({k: torch.from_numpy(np.asarray(v)) for k, v in film.params.items()})
    D, d_k = SMALL.d_model, SMALL.d_model // SMALL.heads
    with torch.no_grad():
        for layer, head in silenced:
            rows = slice(2 * D + (head - 1) * d_k, 2 * D + head * d_k)  # W_V's rows of the stacked W_Q, W_K, W_V
            model.layers[layer - 1].in_proj.weight[rows] = 0
            model.layers[layer - 1].in_proj.bias[rows] = 0
        batch = task_batch(SMALL.task, torch.Generator().manual_seed(ABLATION_SEED), ABLATION_SEQUENCES)
        logits, _ = model(batch.tokens)  # (B, T, V)
    chosen, targets = logits[:, :-1][batch.scored], batch.tokens[:, 1:][batch.scored]
    return float(F.cross_entropy(chosen, targets)), float((chosen.argmax(-1) == targets).float().mean())


def test_the_whole_model_is_scored_on_the_second_copy(film):
    assert ablated(film) == pytest.approx(_by_hand(film), abs=1e-6)


@pytest.mark.parametrize("heads", [[(1, 1)], [(2, 2)], [(1, 2), (2, 1)]])
def test_a_removed_head_adds_nothing(film, heads):
    removed = ablated(film, heads)
    assert removed == pytest.approx(_by_hand(film, heads), abs=1e-5)
    assert removed[0] != pytest.approx(ablated(film)[0], abs=1e-4)  # and it made a difference


def test_a_head_that_is_not_there_is_refused(film):
    with pytest.raises(ValueError, match="no layer 3, head 1"):
        ablated(film, [(3, 1)])
