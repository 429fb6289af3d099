"""Scene 2: masking. The lesson's mask (causal when it has none) slides over the score grid,
blocked cells become −∞, softmax sends them to 0 while the rest of the row grows; then
padding and a sliding window; and a query that may attend to nothing at all. The mask demos
come from `core.lesson.with_mask`, the rule the dashboard's Masking page follows too."""

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
from animations.mobjects import MAX_SHOWN, AttentionGrid, cell_size, label, shown, shown_note
from animations.scenes.base import CONTENT_HEIGHT, LessonScene
from animations.scenes.words import citation, pct, tok, weights_note
from core.lesson import with_mask

SDPA_ZERO_SINCE = "2.5"  # the PyTorch version whose SDPA first gave a fully blocked row 0, not NaN

WHY = {  # one sentence per mask kind, for the step where the lesson's own mask arrives
    "causal": "A causal mask hides the future: each token sees itself and the tokens before it.",
    "padding": "A padding mask hides the padded keys, which carry no meaning.",
    "window": "A window mask lets each token see only itself and its nearest predecessors.",
    "custom": "This mask was drawn by hand, cell by cell.",
}


class MaskingScene(LessonScene):
    title = "Masking"
    head = 0

    def construct(self):
        cfg = self.cfg if self.cfg.mask != "none" else with_mask(self.cfg, "causal")
        tr = self.variant("masked", cfg)
        self.variant("unmasked", cfg.replace(mask="none"))
        T = len(tr.tokens)
        self.n, self.tokens = shown(T), tr.tokens[: shown(T)]
        self.head = min(self.head, tr.num_heads - 1)
        grid = self.show_scores(tr)
        grid = self.slide_mask(tr, grid)
        grid = self.softmax(tr, grid)
        self.renormalise(tr)
        padded = with_mask(self.cfg, "padding")
        grid = self.show_variant("padding", padded, self.padding_caption,
                                 f"mask: key j is real (j ≤ {padded.pad_length})", None)
        grid = self.show_variant("window", with_mask(self.cfg, "window"), self.window_caption,
                                 "mask: key j within i − w + 1 … i", grid)
        self.blocked_row(grid)

    def grid(self, variant, field, start=0, **kw):
        """The (shown) grid of one variant's array; `start`: the first token shown."""
        tr = self.traces[variant]
        n = shown(len(tr.tokens))
        rows = slice(start, start + n)
        kind = "weights" if field == "weights" else "scores"
        mask = tr.mask[rows, rows] if field == "weights" else None
        g = AttentionGrid(getattr(tr, field)[self.head, rows, rows], tr.tokens[rows], tr.tokens[rows], kind=kind,
                          cell=cell_size(n), tag=(variant, field, self.head), mask=mask, fit_height=CONTENT_HEIGHT,
                          **kw)
        g.offset = start  # tests compare the grid with the trace from this token on
        return self.show(self.place(g))

    def footnote(self):
        tr = self.trace
        parts = [f"head {self.head + 1} of {tr.num_heads}", shown_note(len(tr.tokens))]
        return " · ".join(p for p in parts if p)

    def show_scores(self, tr):
        self.step("scores", "The scaled scores of every query (row) with every key (column), before any mask."
                  + weights_note(self.cfg) + citation(self.cfg), "Q·K<sup>T</sup> / √d<sub>k</sub>", self.footnote())
        grid = self.grid("masked", "scaled")
        self.play(FadeIn(grid), run_time=1)
        self.hold(1.5)
        return grid

    def slide_mask(self, tr, grid):
        kind = self.variants["masked"].mask
        self.step("mask", f"The {kind} mask slides over the grid: grey cells are pairs that may not attend. "
                  + WHY.get(kind, ""), "Q·K<sup>T</sup> / √d<sub>k</sub> + M")
        cover = VGroup(*[Square(grid.cell, stroke_width=0).set_fill(style.MASKED, opacity=0.9)
                         .move_to(grid.square_rows[i][j]) for i in range(self.n) for j in range(self.n)
                         if not tr.mask[i, j]])
        start = cover.copy().shift(LEFT * (grid.cell * self.n + 1.5)).set_opacity(0)
        self.play(ReplacementTransform(start, cover), run_time=1.5)
        self.hold(1.0)
        self.step("minus-infinity", "Blocked cells get the score −∞, lower than every finite score: the mask M "
                  "is −∞ where key j may not be seen by query i, and 0 elsewhere, added to the scores.",
                  "M<sub>ij</sub> = −∞ where j may not be seen, 0 elsewhere")
        new = self.grid("masked", "masked")
        self.play(ReplacementTransform(grid, new), FadeOut(cover), run_time=1.2)
        self.hold(1.5)
        return new

    def softmax(self, tr, grid):
        self.step("softmax", "Softmax turns −∞ into exactly 0, since e^−∞ = 0: blocked pairs get no attention at all.",
                  "softmax(Q·K<sup>T</sup> / √d<sub>k</sub> + M)")
        new = self.grid("masked", "weights")
        self.play(ReplacementTransform(grid, new), run_time=1.2)
        self.hold(2.0)
        return new

    def renormalise(self, tr):
        partly = [r for r in range(self.n) if 0 < tr.mask[r].sum() < len(tr.tokens)]
        i = partly[len(partly) // 2] if partly else 0  # a row that loses some keys and keeps others
        self.step("renormalise", self.renormalise_caption(i, partly), "weights with and without M")
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

    def renormalise_caption(self, i, partly) -> str:
        before, after = self.traces["unmasked"].weights[self.head, i], self.traces["masked"].weights[self.head, i]
        if not partly:
            return (f"Row {tok(self.tokens[i])} before and after the mask: this mask blocks whole rows or "
                    "nothing, so no row's weights are shared out again.")
        j = int(after.argmax())
        return (f"Row {tok(self.tokens[i])} before and after the mask: the blocked weights go to 0 and the others "
                f"grow, so the row still adds up to 1. The weight on {tok(self.trace.tokens[j])} goes from "
                f"{pct(before[j])} to {pct(after[j])}.")

    def padding_caption(self, cfg) -> str:
        real, total = cfg.pad_length, cfg.num_tokens
        if real >= total:
            return f"Padding: here all {total} tokens are real, so the padding mask hides nothing."
        shown_from = max(0, total - MAX_SHOWN)
        where = f" (the last {MAX_SHOWN} tokens are shown)" if shown_from else ""
        return (f"Padding: a batch pads its shorter sentences to one length. Here the {real} real tokens are "
                f"followed by {total - real} padding tokens, and no query attends to them: their columns are "
                f"grey{where}.")

    def window_caption(self, cfg) -> str:
        T = cfg.num_tokens
        w = min(cfg.window, T)
        sees = ("only itself" if w == 1 else "itself and at most the token before it" if w == 2
                else f"itself and at most the {w - 1} tokens before it")
        return (f"A sliding window of width {w}: each query sees {sees}, a band along the diagonal. A banded or "
                "sparse kernel computes only those scores, about T × w instead of T²; with a dense mask, as here, "
                f"all {T} × {T} scores are still computed, then hidden.")

    def show_variant(self, name, cfg, caption, markup, grid):
        self.step(name, caption(cfg), markup)
        tr = self.variant(name, cfg)
        start = max(0, len(tr.tokens) - MAX_SHOWN) if name == "padding" else 0  # keep the padded keys in view
        new = self.grid(name, "weights", start=start)
        self.play(ReplacementTransform(grid, new) if grid else FadeIn(new), run_time=1.2)
        self.hold(2.5)
        return new

    def blocked_demo(self):
        """The lesson under a custom mask with a query that sees no key (with_mask's rule)."""
        cfg = with_mask(self.cfg, "custom")
        if not self.variant("blocked", cfg).blocked_rows[: MAX_SHOWN].any():  # the lesson's own grid has none
            cfg = with_mask(self.cfg.replace(mask="none"), "custom")
        return self.variant("blocked", cfg)

    def blocked_row(self, grid):
        tr = self.blocked_demo()
        i = int(tr.blocked_rows[: MAX_SHOWN].argmax())
        self.step("blocked-row", f"A query that may see no key at all, here the query of {tok(tr.tokens[i])}: "
                  "softmax of a row of −∞ would be 0/0. The lab gives it weights 0 and output 0. "
                  "PyTorch's F.scaled_dot_product_attention returns no weights; its output for this row is 0 "
                  f"(since PyTorch {SDPA_ZERO_SINCE}; NaN before). nn.MultiheadAttention gives NaN when it returns "
                  "its weights, its default; without them, 0 before its output projection. This row adds up to 0, "
                  "not 1.",
                  "all of row i blocked ⇒ weights 0, output 0")
        new = self.grid("blocked", "weights")
        self.play(ReplacementTransform(grid, new), run_time=1.2)
        box = SurroundingRectangle(new.row(i), color=style.HIGHLIGHT, buff=0.04)
        why = label("no key to attend to", 20, color=style.HIGHLIGHT).next_to(box, RIGHT, buff=0.15)
        if why.get_right()[0] > 7:
            why.next_to(box, UP, buff=0.1)
        self.play(Create(box), FadeIn(why), run_time=0.8)
        self.hold(3.0)
