"""Watch attention learn: train the tiny Transformer and record a film of its heads.

`train(settings)` runs AdamW on the settings' task and records, at every step, the loss and
accuracy, and at snapshot steps every head's weights on the task's probe plus two measured
scores per head (Olsson et al. 2022):

- previous-token score: how much a token attends to the token just before it;
- induction score: how much a token in the second copy of a repeated segment attends to the
  token just after its earlier occurrence (the move that predicts the next token).

Both are measured on the same fixed sequences for every film (`learn_tasks.eval_batch`), so a
head's name is a measurement, never a guess from its index. The run is deterministic: the same
settings give the same film, bit for bit, on every machine of one CPU kind, since `train` trains
with THREADS torch threads whatever the process has (the thread count changes how float sums are
split, and so the film).
"""

import math
import time

import numpy as np
import torch
import torch.nn.functional as F

from .errors import ConfigError
from .film import BATCH, SEQ_LEN, THREADS, Film, LearnSettings, learning_rate
from .learn_tasks import VOCAB, counts_loss, eval_batch, held_out, probe, task_batch
from .tiny_model import TinyTransformer

__all__ = ["Stopped", "ablated", "accuracy_on", "copy_right", "induction_score", "previous_token_score", "probe",
           "repeat_start", "run", "train", "THREADS"]

EVERY = 25  # a snapshot every EVERY steps (a multiple of it in long runs: see `_every`)...
DENSE = 5  # ...and every DENSE steps while the loss is falling:
FALL = 0.1  # the mean loss of the last DENSE steps fell by FALL (nats) since the last snapshot


class Stopped(Exception):
    """`should_stop()` said stop: the run ended early and recorded no film."""


# -- the scores ------------------------------------------------------------------------------
def previous_token_score(weights: torch.Tensor) -> torch.Tensor:
    """weights (..., T, T) → (...): the mean weight a query puts on the token just before it,

        score = 1/(T-1) · Σ_{t=1}^{T-1} weights[t, t-1]

    1 for a head that always looks one token back; 1/(t+1) per row for a causal head that
    spreads its attention evenly. A batch dimension in front is averaged over by the caller.
    """
    return weights.diagonal(offset=-1, dim1=-2, dim2=-1).mean(dim=-1)


def induction_score(weights: torch.Tensor, first, second, length) -> torch.Tensor:
    """weights (N, ..., T, T) of N sequences → (...): the mean weight that a query in the
    second copy of a repeated segment puts on the token just after the earlier occurrence of
    its own token. In sequence b the segment sits at first[b] and again at second[b], length[b]
    tokens long; query second[b] + i holds the same token as first[b] + i, so

        score = mean over b, and i = 0 .. length[b] - 2, of weights[b, second[b] + i, first[b] + i + 1]

    (the queries whose next token the repeat predicts). 1 for a perfect induction head.
    """
    per_sequence = []
    for b, (a, s, n) in enumerate(zip(first.tolist(), second.tolist(), length.tolist(), strict=True)):
        queries = torch.arange(s, s + n - 1)  # (n - 1,)
        keys = queries - s + a + 1  # (n - 1,) the token after each query's earlier occurrence
        per_sequence.append(weights[b][..., queries, keys].mean(dim=-1))  # (...)
    return torch.stack(per_sequence).mean(dim=0)


# -- the model and its snapshots --------------------------------------------------------------
def _shape(settings: LearnSettings) -> dict:
    return {"vocab": VOCAB, "max_len": SEQ_LEN, "d_model": settings.d_model, "heads": settings.heads,
            "layers": settings.layers, "positions": settings.positions, "causal": settings.causal}


@torch.no_grad()
def _snapshot(model, probe_ids, measured) -> tuple:
    """One forward pass over the probe and the measured sequences: the probe's weights
    (L, H, T, T) and both scores (L, H), from the weights that pass used."""
    tokens = torch.cat([probe_ids.unsqueeze(0), measured.tokens])  # (1 + N, T)
    _, weights = model(tokens, need_weights=True)  # (1 + N, L, H, T, T)
    on_probe, seen = weights[0], weights[1:]
    previous = previous_token_score(seen).mean(dim=0)  # (L, H)
    induction = induction_score(seen, measured.first, measured.second, measured.length)  # (L, H)
    return on_probe.numpy().copy(), previous.numpy().copy(), induction.numpy().copy()


def _every(steps: int) -> int:
    """The regular snapshot interval: EVERY steps; from 1,000 steps on, the multiple of EVERY
    just below steps / 20, so that a long film stays small."""
    return max(EVERY, steps // 20 // EVERY * EVERY)


def _loss_on(logits, batch):
    """Cross-entropy and accuracy of the predictions the task scores (position t predicts t + 1)."""
    chosen = logits[:, :-1][batch.scored]  # (P, V) P scored predictions
    targets = batch.tokens[:, 1:][batch.scored]  # (P,)
    loss = F.cross_entropy(chosen, targets)
    return loss, (chosen.argmax(dim=-1) == targets).float().mean()


@torch.no_grad()
def accuracy_on(model, batch) -> float:
    """The share of `batch`'s scored tokens whose top prediction is right (for the induction
    task: the tokens of the second copy, from its second one)."""
    logits, _ = model(batch.tokens)  # (B, T, V)
    return float(_loss_on(logits, batch)[1])


# -- training ----------------------------------------------------------------------------------
class _Recorder:
    """The film as it is shot: the loss of every step, and a snapshot at step 0, every `every`
    steps, every DENSE steps while the loss falls, and at the last step."""

    def __init__(self, model, settings: LearnSettings):
        self.model, self.steps, self.every = model, settings.steps, _every(settings.steps)
        self.task, self.probe, self.measured = settings.task, probe(settings.task), eval_batch()
        self.loss, self.accuracy = np.zeros(self.steps, np.float32), np.zeros(self.steps, np.float32)
        # counting's loss on the very batches the model learns from: the text's next letter may be new
        self.baseline = np.zeros(self.steps if settings.task == "induction" else 0, np.float32)
        self.snapshots, self.frames = [0], [_snapshot(model, self.probe, self.measured)]
        self.last_loss = math.log(VOCAB)  # at step 0 every guess is uniform: the loss of chance

    def record(self, step: int, loss, accuracy, batch):
        self.loss[step - 1], self.accuracy[step - 1] = loss.item(), accuracy.item()
        if self.baseline.size:
            self.baseline[step - 1] = counts_loss(batch).item()
        recent = float(self.loss[max(0, step - DENSE):step].mean())
        falling = step % DENSE == 0 and self.last_loss - recent >= FALL
        if step % self.every == 0 or falling or step == self.steps:
            self.snapshots.append(step)
            self.frames.append(_snapshot(self.model, self.probe, self.measured))
            self.last_loss = recent

    def film(self, settings: LearnSettings, seconds: float) -> Film:
        weights, previous, induction = (np.stack(parts) for parts in zip(*self.frames, strict=True))
        params = {name: t.detach().numpy().copy() for name, t in self.model.state_dict().items()}
        held = np.array([accuracy_on(self.model, held_out(self.task))], np.float32)
        return Film(settings=settings, loss=self.loss, accuracy=self.accuracy, baseline=self.baseline,
                    held_out=held, probe=self.probe.numpy(),
                    snapshots=np.array(self.snapshots, dtype=np.int64), weights=weights,
                    previous_token=previous, induction=induction, params=params, seconds=seconds)


def train(settings: LearnSettings, progress=None, should_stop=None, threads: int = THREADS) -> Film:
    """Train a fresh model on `settings` and return its film.

    `progress(step, total, loss, accuracy)` is called every 10 steps and at the last one; `should_stop()`
    is asked before every step, and True ends the run with `Stopped`. It trains with `threads` torch
    threads (the process's count is restored after): the default, THREADS, gives every machine the
    film a class sees; another count gives another film (benchmarks time other counts).
    """
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        return _train(settings, progress, should_stop)
    finally:
        torch.set_num_threads(before)


def _train(settings: LearnSettings, progress, should_stop) -> Film:
    start = time.perf_counter()
    g = torch.Generator().manual_seed(settings.seed)  # the model's first weights, then every batch
    model = TinyTransformer.seeded(g, **_shape(settings))
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate(settings.d_model))
    recorder = _Recorder(model, settings)
    for step in range(1, settings.steps + 1):
        if should_stop is not None and should_stop():
            raise Stopped(f"stopped at step {step - 1} of {settings.steps}")
        batch = task_batch(settings.task, g, BATCH)
        # core's fast path (F.scaled_dot_product_attention, held to the formula's numbers by the
        # tests): the weights of a training batch are never shown, so they are not kept
        logits, _ = model(batch.tokens)  # (B, T, V)
        loss, accuracy = _loss_on(logits, batch)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        recorder.record(step, loss, accuracy, batch)
        if progress is not None and (step % 10 == 0 or step == settings.steps):
            progress(step, settings.steps, float(recorder.loss[step - 1]), float(recorder.accuracy[step - 1]))
    return recorder.film(settings, time.perf_counter() - start)


# -- running a trained model -------------------------------------------------------------------
@torch.no_grad()
def run(film: Film, ids) -> tuple[np.ndarray, np.ndarray]:
    """The film's trained model on a student's sequence of 1..SEQ_LEN token ids: every head's
    weights (L, H, T, T) and the probabilities of the next token at each position (T, VOCAB)."""
    ids = [int(i) for i in ids]
    if not 1 <= len(ids) <= SEQ_LEN:
        raise ConfigError(f"The tiny model reads 1 to {SEQ_LEN} characters, got {len(ids)}.", "text")
    if not all(0 <= i < VOCAB for i in ids):
        raise ConfigError(f"Token ids must be between 0 and {VOCAB - 1}.", "text")
    model = _trained(film)
    logits, weights = model(torch.tensor([ids]), need_weights=True)  # (1, T, V), (1, L, H, T, T)
    return weights[0].numpy(), torch.softmax(logits[0], dim=-1).numpy()


ABLATION_SEED = 7  # fixes the fresh sequences an ablation is measured on, whatever the run's seed
ABLATION_SEQUENCES = 256


def _trained(film: Film) -> TinyTransformer:
    model = TinyTransformer.empty(**_shape(film.settings))
    model.load_state_dict({name: torch.from_numpy(np.asarray(a)) for name, a in film.params.items()})
    return model


@torch.no_grad()
def ablated(film: Film, heads=()) -> tuple[float, float]:
    """(loss, accuracy) of the film's trained model on the predictions its task scores, on
    ABLATION_SEQUENCES fresh sequences of the task (the same for every film), with each (layer, head)
    of `heads` (from 1) zero-ablated: its output set to 0 before W_O, so it adds nothing to the
    residual stream. With no heads, what the trained model does on sequences it never saw."""
    model = _trained(film)
    H, d_k = film.settings.heads, film.settings.d_model // film.settings.heads
    for layer, head in heads:
        if not (1 <= head <= H and 1 <= layer <= film.settings.layers):
            raise ValueError(f"no layer {layer}, head {head} in this film")
        # F.linear(concat, W) = concat @ Wᵀ: head h's slice of concat meets W's columns h·d_k … (h+1)·d_k − 1
        model.layers[layer - 1].out_proj.weight[:, (head - 1) * d_k:head * d_k] = 0
    batch = task_batch(film.settings.task, torch.Generator().manual_seed(ABLATION_SEED), ABLATION_SEQUENCES)
    logits, _ = model(batch.tokens)  # (B, T, V)
    loss, accuracy = _loss_on(logits, batch)
    return float(loss), float(accuracy)


def repeat_start(ids) -> int | None:
    """Where the second copy of a phrase typed twice starts (the second time perhaps without the
    phrase's last character, the space between the copies): the smallest period p, 2 <= p <=
    (T + 1) / 2, with ids[i] = ids[i - p] for every i >= p; None for a sequence that is no phrase
    typed twice."""
    ids = np.asarray(ids)
    return next((p for p in range(2, (len(ids) + 1) // 2 + 1) if np.array_equal(ids[p:], ids[:-p])), None)


def copy_right(ids, probs) -> np.ndarray | None:
    """For a phrase typed twice: whether the top prediction is right at each position of the second
    copy whose next token the first copy gives (from the copy's first token to its next-to-last,
    as the induction task scores a copy); None if `ids` is no phrase typed twice."""
    start = repeat_start(ids)
    if start is None:
        return None
    queries = np.arange(start, len(ids) - 1)  # (n,) each predicts the token after it
    return np.asarray(probs)[queries].argmax(axis=-1) == np.asarray(ids)[queries + 1]
