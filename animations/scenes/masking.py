"""Scene 2: masking. The causal mask slides over the score grid, blocked cells become −∞,
softmax sends them to 0 while the rest of the row grows; then padding and a sliding window;
and a query that may attend to nothing at all."""

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    FadeOut,
    ReplacementTransform,
    Square,
    SurroundingRectangle,
    VGroup,
)

from animations import style
from animations.mobjects import AttentionGrid, cell_size, label, shown, shown_note
from animations.scenes.base import LessonScene

WHY = {  # one sentence per mask kind, for the step where the lesson's own mask arrives
    "causal": "A causal mask hides the future: each token sees itself and the tokens before it.",
    "padding": "A padding mask hides the padded keys, which carry no meaning.",
    "window": "A window mask lets each token see only its nearest predecessors.",
    "custom": "This mask was drawn by hand, cell by cell.",
}


class MaskingScene(LessonScene):
    title = "Masking"
    head = 0

    def construct(self):
        cfg = self.cfg if self.cfg.mask != "none" else self.cfg.replace(mask="causal")
        tr = self.variant("masked", cfg)
        self.variant("unmasked", cfg.replace(mask="none"))
        T = len(tr.tokens)
        self.n, self.tokens = shown(T), tr.tokens[: shown(T)]
        self.cell = cell_size(self.n)
        self.head = min(self.head, tr.num_heads - 1)
        grid = self.show_scores(tr)
        grid = self.slide_mask(tr, grid)
        grid = self.softmax(tr, grid)
        self.renormalise(tr)
        pad = cfg.pad_length if cfg.mask == "padding" else max(1, T - 2)
        grid = self.show_variant("padding", cfg.replace(mask="padding", pad_length=pad),
                                 f"Padding: a batch pads short sentences; here only the first {pad} tokens are real, "
                                 "and every query ignores the padded keys.",
                                 f"mask: key j is real (j ≤ {pad})", None)
        w = min(cfg.window, T)
        grid = self.show_variant("window", cfg.replace(mask="window", window=w),
                                 f"A sliding window: each query sees only itself and the {w - 1} tokens before it, "
                                 "a band along the diagonal, so the cost grows with T × w instead of T².",
                                 f"mask: key j within i − {w - 1} … i", grid)
        self.blocked_row(cfg, grid)

    def grid(self, variant, field, **kw):
        tr = self.traces[variant]
        kind = "weights" if field == "weights" else "scores"
        mask = tr.mask[: self.n, : self.n] if field == "weights" else None
        g = AttentionGrid(getattr(tr, field)[self.head, : self.n, : self.n], self.tokens, self.tokens, kind=kind,
                          cell=self.cell, tag=(variant, field, self.head), mask=mask, **kw)
        return self.show(self.place(g))

    def footnote(self):
        tr = self.trace
        parts = [f"head {self.head + 1} of {tr.num_heads}", shown_note(len(tr.tokens))]
        return " · ".join(p for p in parts if p)

    def show_scores(self, tr):
        self.step("scores", "The scaled scores of every query (row) with every key (column), before any mask.",
                  "Q·K<sup>T</sup> / √d<sub>k</sub>", self.footnote())
        grid = self.grid("masked", "scaled")
        self.play(FadeIn(grid), run_time=1)
        self.hold(1.5)
        return grid

    def slide_mask(self, tr, grid):
        kind = self.variants["masked"].mask
        self.step("mask", f"The {kind} mask slides over the grid: grey cells are pairs that may not attend. "
                  + WHY.get(kind, ""), "Q·K<sup>T</sup> / √d<sub>k</sub> + M")
        cover = VGroup(*[Square(self.cell, stroke_width=0).set_fill(style.MASKED, opacity=0.9)
                         .move_to(grid.square_rows[i][j]) for i in range(self.n) for j in range(self.n)
                         if not tr.mask[i, j]])
        start = cover.copy().shift(LEFT * (self.cell * self.n + 1.5)).set_opacity(0)
        self.play(ReplacementTransform(start, cover), run_time=1.5)
        self.hold(1.0)
        self.step("minus-infinity", "Blocked cells get the score −∞: no finite score can beat it.",
                  "M<sub>ij</sub> = −∞ where j may not be seen")
        new = self.grid("masked", "masked")
        self.play(ReplacementTransform(grid, new), FadeOut(cover), run_time=1.2)
        self.hold(1.5)
        return new

    def softmax(self, tr, grid):
        self.step("softmax", "Softmax turns −∞ into exactly 0: e^−∞ = 0. Blocked pairs get no attention at all.",
                  "softmax(Q·K<sup>T</sup> / √d<sub>k</sub> + M)")
        new = self.grid("masked", "weights")
        self.play(ReplacementTransform(grid, new), run_time=1.2)
        self.hold(2.0)
        return new

    def renormalise(self, tr):
        partly = [r for r in range(self.n) if 0 < tr.mask[r, : self.n].sum() < self.n] or [0]
        i = partly[len(partly) // 2]  # a row that loses some keys and keeps others
        self.step("renormalise", f"Row '{self.tokens[i]}' before and after the mask: the blocked weights go to 0 "
                  "and the remaining ones grow, so the row still sums to 1.", "weights with and without M")
        self.clear_stage()
        h = self.head
        rows = VGroup()
        for variant, name in (("unmasked", "no mask"), ("masked", "masked")):
            t = self.traces[variant]
            g = AttentionGrid(t.weights[h, i, : self.n], [name], self.tokens, kind="weights",
                              mask=t.mask[i : i + 1, : self.n], tag=(variant, "weights", h, i), label_size=20)
            rows.add(self.show(g))
        self.place(rows.arrange(DOWN, buff=1.2, aligned_edge=RIGHT))
        self.play(FadeIn(rows[0]), run_time=0.8)
        self.play(FadeIn(rows[1], shift=DOWN * 0.4), run_time=1.2)
        self.hold(3.5)
        self.clear_stage()

    def show_variant(self, name, cfg, caption, markup, grid):
        self.step(name, caption, markup)
        self.variant(name, cfg)
        new = self.grid(name, "weights")
        self.play(ReplacementTransform(grid, new) if grid else FadeIn(new), run_time=1.2)
        self.hold(2.5)
        return new

    def blocked_row(self, cfg, grid):
        T = cfg.num_tokens
        keep = tuple(tuple(i > 0 and j <= i for j in range(T)) for i in range(T))
        self.step("blocked-row", "A query whose keys are all blocked: softmax of a row of −∞ would be 0/0. "
                  "Like PyTorch, the lab gives it weights 0 and output 0, never NaN.",
                  "all of row i blocked ⇒ weights 0, output 0")
        self.variant("blocked", cfg.replace(mask="custom", custom_mask=keep))
        new = self.grid("blocked", "weights")
        self.play(ReplacementTransform(grid, new), run_time=1.2)
        box = SurroundingRectangle(new.row(0), color=style.HIGHLIGHT, buff=0.04)
        why = label("no key to attend to", 18, color=style.HIGHLIGHT).next_to(box, RIGHT, buff=0.15)
        if why.get_right()[0] > 7:
            why.next_to(box, UP, buff=0.1)
        self.play(Create(box), FadeIn(why), run_time=0.8)
        self.hold(3.0)

