"""Scene 4: why √d_k. A random query and keys (a new draw at each size) at growing d_k, softmaxed with and
without the scale: without it the weights saturate into one-hot. Every number comes from
core.analysis (score_row, saturation)."""

import math

from manim import DOWN, LEFT, RIGHT, UP, FadeIn, ReplacementTransform, VGroup

from animations import style
from animations.mobjects import bar_row, fmt, label, shown
from animations.scenes.base import LessonScene
from animations.scenes.words import pct
from core.analysis import saturation, score_row

BAR_WIDTH = 5.2
SEEDS = range(20)
KEYS = 16  # keys per row in the summary's table


def _root(d_k: int) -> str:
    r = math.sqrt(d_k)
    return f"√{d_k} = {r:g}" if r.is_integer() else f"√{d_k} (about {r:.2f})"


class ScalingScene(LessonScene):
    title = "Why divide by √d_k?"
    sizes = (4, 16, 64, 256)  # d_k values shown, plus the lesson's own

    def construct(self):
        self.T = max(2, shown(self.cfg.num_tokens))
        self.d_ks = sorted({self.cfg.d_k, *self.sizes})
        bars = None
        for n, d_k in enumerate(self.d_ks):
            bars = self.show_size(d_k, bars, first=n == 0)
        self.summary()

    def bars(self, d_k):
        seed = self.cfg.seed
        rows = VGroup()
        for scaled, color, name in ((False, style.KEY, "without ÷√d_k"), (True, style.QUERY, "with ÷√d_k")):
            row = bar_row(score_row(d_k, self.T, seed, scaled), width=BAR_WIDTH, height=3.0, color=color,
                          tag=("score_row", d_k, scaled))
            row.add(label(name, 22, color=color).next_to(row, UP, buff=0.25))
            rows.add(self.show(row))
        self.place(rows.arrange(RIGHT, buff=1.4, aligned_edge=DOWN), top=2.2)
        rows.add(label(f"d_k = {d_k}", 26, bold=True).move_to(UP * 2.6))
        return rows

    def size_caption(self, d_k, first) -> str:
        raw, scaled = score_row(d_k, self.T, self.cfg.seed, False), score_row(d_k, self.T, self.cfg.seed, True)
        weights = (f"Unscaled, softmax gives its largest weight {pct(raw.max())}; scaled, {pct(scaled.max())}.")
        if first:
            return (f"One query against {self.T} keys, every entry drawn at random: independent, with mean 0 and "
                    "variance 1, and no trained model. Then a dot product has mean 0 and variance d_k, a spread of "
                    f"about √d_k: here d_k = {d_k}, a spread of about √{d_k}. {weights} This is a single random "
                    f"draw, so its figures jump from size to size; the table at the end averages {len(SEEDS)}.")
        return (f"d_k = {d_k}: the unscaled scores are the scaled ones multiplied by {_root(d_k)}, the same numbers "
                f"spread exactly √{d_k} times as wide; the scaled ones spread about 1. {weights}")

    def show_size(self, d_k, old, first):
        self.step(f"d_k-{d_k}", self.size_caption(d_k, first),
                  "softmax(q·k<sup>T</sup>)  vs  softmax(q·k<sup>T</sup> / √d<sub>k</sub>)",
                  f"one random draw per size (seed {self.cfg.seed}; new vectors at each size) · {self.T} keys")
        new = self.bars(d_k)
        self.play(FadeIn(new) if old is None else ReplacementTransform(old, new), run_time=1.2)
        self.hold(2.5 if first else 2.0)
        return new

    def summary(self):
        raw = saturation(self.d_ks, T=KEYS, seeds=SEEDS, scaled=False)["max_weight"]
        scaled = saturation(self.d_ks, T=KEYS, seeds=SEEDS, scaled=True)["max_weight"]
        self.step("saturation", f"Averaged over {len(SEEDS)} random draws of {KEYS} keys, the largest weight of a row: "
                  f"without the scale it climbs to {fmt(raw[-1])} at d_k = {self.d_ks[-1]}; with it, it stays near "
                  f"{fmt(scaled[-1])}. A saturated softmax passes almost no gradient to the scores, so W_Q and W_K "
                  "nearly stop learning: its Jacobian, diag(p) − p·pᵀ, goes to 0 in every entry. What the head passes "
                  "on still learns: output i is Σ p_ij v_j, so its derivative with respect to v_j is p_ij, and the "
                  "gradient reaches W_V through the value the row picked. W_O comes after the sum: its gradient never "
                  "passes through the softmax.",
                  "mean largest weight in a row", f"{len(SEEDS)} seeds × {KEYS} keys at every size")
        self.clear_stage()
        cells = [label("d_k", 24, bold=True), label("without ÷√d_k", 24, color=style.KEY),
                 label("with ÷√d_k", 24, color=style.QUERY)]
        for d_k, a, b in zip(self.d_ks, raw, scaled, strict=True):
            cells += [label(str(d_k), 24), label(fmt(a), 24, color=style.KEY), label(fmt(b), 24, color=style.QUERY)]
        table = self.place(VGroup(*cells).arrange_in_grid(cols=3, buff=(1.2, 0.35)))
        table.values = {"without": raw, "with": scaled}
        self.table = table
        self.play(FadeIn(VGroup(*cells[:3])), run_time=0.5)
        self.play(FadeIn(VGroup(*cells[3:]), shift=LEFT * 0.2), run_time=1.2)
        self.hold(3.5)
