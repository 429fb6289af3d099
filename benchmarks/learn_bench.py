"""How fast does the tiny Transformer learn in class, and what does recording a film cost?

- step ratio: `core.learn.train` (core's attention on its fast path, a film recorded)
  against a plain PyTorch loop of the same model (nn.Linear + F.scaled_dot_product_attention,
  the same batches, AdamW, nothing recorded), interleaved rounds in the same run. Goal <= 1.1.
- time to an induction head: wall time until the default film's induction score first reaches
  INDUCTION_THRESHOLD (recording included), and the whole default film; goal <= 5 s on 2 threads.
- seeds: the step at which each seed's default film forms its induction head, and the film's
  accuracy on fresh sequences at the end (the page's "copy accuracy"; goal >= 0.9).
- largest: the largest film the page allows (d_model 128, 8 heads, 2 layers, MAX_STEPS), whole;
  goal about 60 s on 2 threads. Each line says the machine's load average, since the lab's
  machine is shared.

    python benchmarks/learn_bench.py [--quick] [--threads 2] [--seeds 5] [--largest 1] [--no-ratio]
"""

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from core.film import BATCH, MAX_STEPS, SEQ_LEN, LearnSettings, learning_rate
from core.learn import train
from core.learn_tasks import VOCAB, induction_batch


class PlainTransformer(nn.Module):
    """The same attention-only network, written with PyTorch's fused attention: the reference."""

    def __init__(self, d_model: int, heads: int, layers: int):
        super().__init__()
        self.heads = heads
        self.embed = nn.Embedding(VOCAB, d_model)
        self.positions = nn.Embedding(SEQ_LEN, d_model)
        self.qkv = nn.ModuleList(nn.Linear(d_model, 3 * d_model) for _ in range(layers))
        self.out = nn.ModuleList(nn.Linear(d_model, d_model) for _ in range(layers))
        self.unembed = nn.Linear(d_model, VOCAB)

    def forward(self, tokens):
        B, T = tokens.shape
        x = self.embed(tokens) + self.positions.weight[:T]  # (B, T, D)
        for qkv, out in zip(self.qkv, self.out, strict=True):
            q, k, v = qkv(x).view(B, T, 3, self.heads, -1).permute(2, 0, 3, 1, 4)  # 3 × (B, H, T, d_k)
            heads = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, H, T, d_k)
            x = x + out(heads.transpose(1, 2).reshape(B, T, -1))  # (B, T, D)
        return self.unembed(x)  # (B, T, V)


def plain_loop(settings: LearnSettings, steps: int) -> float:
    """Seconds for `steps` steps of the reference: the same batches and loss as `train`."""
    start = time.perf_counter()
    g = torch.Generator().manual_seed(settings.seed)
    model = PlainTransformer(settings.d_model, settings.heads, settings.layers)
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate(settings.d_model))
    for _ in range(steps):
        batch = induction_batch(g, BATCH)
        logits = model(batch.tokens)[:, :-1][batch.scored]  # (P, V)
        loss = F.cross_entropy(logits, batch.tokens[:, 1:][batch.scored])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        loss.item()
    return time.perf_counter() - start


def step_ratio(steps: int, rounds: int) -> tuple[float, float]:
    """Median seconds per step of `train` / of the plain loop, alternating rounds (the machine is
    shared: a slow spell hits both), and train's median seconds per step."""
    settings = LearnSettings(steps=steps)
    ours, ref = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        train(settings, threads=torch.get_num_threads())
        ours.append((time.perf_counter() - start) / steps)
        ref.append(plain_loop(settings, steps) / steps)
    return statistics.median(ours) / statistics.median(ref), statistics.median(ours)


def time_to_induction(settings: LearnSettings):
    """(step, seconds) at which the film's induction head formed, the whole run's seconds, the
    film's size on disk in MB, its accuracy on fresh sequences, and the CPU seconds of this process
    to the head and in all. `should_stop` is asked before every step: its clock says when the step
    before it ended, its snapshot included. On a shared machine the CPU seconds are the steadier
    figure: with one torch thread they are the wall time the run takes on an idle core."""
    ended, cpu = [], []
    start, cpu_start = time.perf_counter(), time.process_time()

    def clock():
        ended.append(time.perf_counter() - start)
        cpu.append(time.process_time() - cpu_start)
        return False

    film = train(settings, should_stop=clock, threads=torch.get_num_threads())
    ended.append(film.seconds)
    cpu.append(time.process_time() - cpu_start)
    step = film.formed_at()
    with tempfile.TemporaryDirectory() as folder:
        size = sum(p.stat().st_size for p in Path(film.save(folder)).iterdir()) / 1e6
    return (step, (None if step is None else ended[step]), film.seconds, size, film.final_accuracy,
            (None if step is None else cpu[step]), cpu[-1])


def load() -> str:
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (noisier)")
    parser.add_argument("--threads", type=int, default=2, help="torch threads (the class laptop: 2)")
    parser.add_argument("--seeds", type=int, default=5, help="default films to train, seeds 0..N-1")
    parser.add_argument("--largest", type=int, default=0, help="times to train the largest film the page allows")
    parser.add_argument("--no-ratio", action="store_true", help="skip the step ratio")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if not args.no_ratio:
        ratio, per_step = step_ratio(steps=40 if args.quick else 100, rounds=3 if args.quick else 5)
        print(f"train step {per_step * 1e3:.1f} ms; ratio train / plain PyTorch loop {ratio:.3f} (goal <= 1.1)")
    if args.seeds:
        print(f"{'seed':>4} {'formed at step':>15} {'seconds to it':>14} {'whole film s':>13} {'film MB':>8} "
              f"{'fresh acc':>9} {'CPU s to it':>11} {'CPU s':>7}")
    for seed in range(args.seeds):
        step, seconds, total, size, accuracy, cpu_to_it, cpu = time_to_induction(LearnSettings(seed=seed))
        shown = "never" if step is None else f"{step}"
        to_it = "-" if seconds is None else f"{seconds:.2f}"
        cpu_it = "-" if cpu_to_it is None else f"{cpu_to_it:.2f}"
        print(f"{seed:>4} {shown:>15} {to_it:>14} {total:>13.2f} {size:>8.2f} {accuracy:>9.3f} {cpu_it:>11} "
              f"{cpu:>7.1f}  ({load()})", flush=True)
    for _ in range(args.largest):
        settings = LearnSettings(d_model=128, heads=8, layers=2, steps=MAX_STEPS)
        cpu_start = time.process_time()
        film = train(settings, threads=torch.get_num_threads())
        print(f"largest film ({MAX_STEPS} steps, d_model 128, 8 heads, 2 layers): {film.seconds:.1f} s, "
              f"CPU {time.process_time() - cpu_start:.1f} s, fresh accuracy {film.final_accuracy:.3f} ({load()})",
              flush=True)


if __name__ == "__main__":
    main()
