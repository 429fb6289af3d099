"""How fast is core's MultiHeadAttention next to PyTorch's own, measured in the same run?

Three ratios per point (ours / reference, lower is better), one thread, inference mode:
- weights path: `MultiHeadAttention(x, mask)` vs `nn.MultiheadAttention(need_weights=True,
  average_attn_weights=False)`;
- fast path: `MultiHeadAttention(x, mask, need_weights=False)` vs
  `nn.MultiheadAttention(need_weights=False)`;
- formula: `fast_attention` (what the weights path runs) vs `attention` (the formula as a student
  reads it), on the same q, k, v: what the fast path saves.
Goal: median ratio <= 1.0 on the first two paths, no point above 1.3; below 1.0 on the third.

    python benchmarks/core_bench.py [--quick]
"""

import argparse
import statistics

import torch
from torch import nn
from torch.utils import benchmark

from core import MultiHeadAttention, attention, causal_mask, fast_attention, to_torch_mask

HEADS, BATCH = 8, 2


def _ratio(ours, ref, min_run_time, rounds=5):
    """Median time of ours / median time of ref, measured in alternating rounds.

    The machine is shared and noisy: alternating short rounds lets a slow spell hit both.
    """
    timers = [benchmark.Timer(stmt="fn()", globals={"fn": fn}, num_threads=1) for fn in (ours, ref)]
    times = ([], [])
    for _ in range(rounds):
        for timer, out in zip(timers, times, strict=True):
            out.append(timer.blocked_autorange(min_run_time=min_run_time).median)
    return statistics.median(times[0]) / statistics.median(times[1])


def measure(T, D, causal, min_run_time):
    torch.manual_seed(0)
    ref = nn.MultiheadAttention(D, HEADS, batch_first=True).eval()
    ours = MultiHeadAttention.from_torch(ref).eval()
    x = torch.randn(BATCH, T, D)
    q, k, v = torch.randn(3, BATCH, HEADS, T, D // HEADS).unbind(0)  # (B, H, T, d_k) each
    keep = causal_mask(T) if causal else None
    blocked = None if keep is None else to_torch_mask(keep)
    with torch.inference_mode():
        pairs = {
            "weights": (lambda: ours(x, keep),
                        lambda: ref(x, x, x, attn_mask=blocked, need_weights=True, average_attn_weights=False)),
            "fast": (lambda: ours(x, keep, need_weights=False),
                     lambda: ref(x, x, x, attn_mask=blocked, need_weights=False)),
            "formula": (lambda: fast_attention(q, k, v, keep), lambda: attention(q, k, v, keep)),
        }
        return {path: _ratio(a, b, min_run_time) for path, (a, b) in pairs.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter timings (noisier)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    min_run_time = 0.02 if args.quick else 0.1
    print(f"{'T':>5} {'d_model':>8} {'mask':>7} {'weights':>9} {'fast':>9} {'formula':>9}")
    ratios = {"weights": [], "fast": [], "formula": []}
    for D in (64, 512):
        for T in (8, 64, 256, 512):
            for causal in (False, True):
                r = measure(T, D, causal, min_run_time)
                for path in ratios:
                    ratios[path].append(r[path])
                print(f"{T:>5} {D:>8} {'causal' if causal else 'none':>7} "
                      f"{r['weights']:>9.3f} {r['fast']:>9.3f} {r['formula']:>9.3f}")
    med = {p: statistics.median(v) for p, v in ratios.items()}
    worst = {p: max(v) for p, v in ratios.items()}
    print(f"median ratio: weights {med['weights']:.3f}, fast {med['fast']:.3f} "
          f"(max {worst['weights']:.3f}, {worst['fast']:.3f}; ours / torch.nn, lower is better); "
          f"formula {med['formula']:.3f} (max {worst['formula']:.3f}; fast_attention / attention)")


if __name__ == "__main__":
    main()
