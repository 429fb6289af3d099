"""Scene 3: multi-head attention. d_model splits into h heads of d_k; each head has its own
weight grid; the head outputs are concatenated back to d_model and projected by W_O."""

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Arrow, FadeIn, LaggedStart, Rectangle, ReplacementTransform, VGroup

from animations import style
from animations.mobjects import AttentionGrid, cell_size, label, shown, shown_note
from animations.scenes.base import LessonScene

MAX_HEADS_SHOWN = 8
MAX_COLUMNS = 64  # numbers per token drawn; wider matrices show the first few of each head
HEAD_COLORS = (style.QUERY, style.KEY, style.VALUE, style.OUTPUT, style.HIGHLIGHT, "#56B4E9", "#D55E00", "#FFFFFF")


class MultiHeadScene(LessonScene):
    title = "Multi-head attention"

    def construct(self):
        tr = self.trace
        T = len(tr.tokens)
        self.n, self.tokens = shown(T), tr.tokens[: shown(T)]
        self.h = min(tr.num_heads, MAX_HEADS_SHOWN)
        d_k = tr.d_k
        self.per_head = min(d_k, max(1, MAX_COLUMNS // self.h))  # columns drawn of each head
        self.columns = np.concatenate([np.arange(k * d_k, k * d_k + self.per_head) for k in range(self.h)])
        self.split(tr)
        self.head_grids(tr)
        self.close_up(tr)
        concat = self.concatenate(tr)
        self.project(tr, concat)

    def footnote(self):
        tr = self.trace
        parts = [f"d_model = {tr.x.shape[1]}", f"{tr.num_heads} heads of d_k = {tr.d_k}", shown_note(len(tr.tokens)),
                 f"heads 1–{MAX_HEADS_SHOWN} shown" if tr.num_heads > MAX_HEADS_SHOWN else "",
                 f"{self.per_head} of {tr.d_k} numbers per head shown" if self.per_head < tr.d_k else ""]
        return " · ".join(p for p in parts if p)

    def matrix(self, field, values, room=11.0, columns=None, **kw):
        """A (tokens x numbers) matrix in the diverging scale; wide ones get narrow cells."""
        if columns is not None:
            values = values[:, columns]
        width = cell_size(values.shape[-1], room)
        cell = (width, min(0.74, 5.2 / self.n, max(width, 0.45)))
        grid = AttentionGrid(values, kind="scores", cell=cell, **kw)
        grid.tag, grid.columns = ("main", field, None), columns
        return self.show(grid)

    def split(self, tr):
        D, d_k, w = tr.x.shape[1], tr.d_k, self.per_head
        self.step("split", f"Each token is a vector of d_model = {D} numbers. Multi-head attention cuts its "
                  f"queries, keys and values into {tr.num_heads} heads of d_k = {d_k} numbers each.",
                  f"d<sub>model</sub> = h × d<sub>k</sub>:  {D} = {tr.num_heads} × {d_k}", self.footnote())
        x = self.matrix("x", tr.x[: self.n], row_labels=self.tokens, show_numbers=False, columns=self.columns)
        self.place(x, top=2.5)
        self.play(FadeIn(x), run_time=1)
        bands = VGroup()
        for k in range(self.h):
            cols = VGroup(*[x.square_rows[i][j] for i in range(self.n) for j in range(k * w, (k + 1) * w)])
            band = Rectangle(width=cols.width, height=cols.height, stroke_color=HEAD_COLORS[k], stroke_width=4)
            band.move_to(cols)
            tag = label(f"head {k + 1}", 16, color=HEAD_COLORS[k])
            if tag.width > band.width:
                tag = label(str(k + 1), 16, color=HEAD_COLORS[k])
            bands.add(VGroup(band, tag.next_to(band, UP, buff=0.1)))
        self.play(LaggedStart(*[FadeIn(b) for b in bands], lag_ratio=0.3), run_time=1.5)
        self.hold(2.5)

    def head_grids(self, tr):
        self.step("heads", "Each head computes its own attention with its own slice of Q, K and V, so each "
                  "learns a different pattern of who looks at whom.",
                  "head<sub>i</sub> = softmax(Q<sub>i</sub>K<sub>i</sub><sup>T</sup> / √d<sub>k</sub>) V<sub>i</sub>")
        self.clear_stage()
        per_row = self.h if self.h <= 4 else (self.h + 1) // 2
        rows = (self.h + per_row - 1) // per_row
        cell = min(cell_size(self.n, 12.6 / per_row - 0.45), cell_size(self.n, 5.6 / rows - 0.6))
        grids = VGroup()
        for k in range(self.h):
            g = AttentionGrid(tr.weights[k, : self.n, : self.n], self.tokens if k % per_row == 0 else (),
                              kind="weights", cell=cell, mask=tr.mask[: self.n, : self.n],
                              tag=("main", "weights", k), label_size=14 if cell < 0.5 else 18)
            g.add(label(f"head {k + 1}", 18, color=HEAD_COLORS[k]).next_to(g.squares, UP, buff=0.1))
            grids.add(self.show(g))
        self.head_grid_list = list(grids)
        self.place(grids.arrange_in_grid(rows=rows, cols=per_row, buff=(0.35, 0.35)))
        self.play(LaggedStart(*[FadeIn(g) for g in grids], lag_ratio=0.3), run_time=2)
        self.hold(3.0)

    def close_up(self, tr):
        k = min(1, self.h - 1)
        self.step("close-up", f"Head {k + 1} up close: its own weights, every row summing to 1. "
                  "Compare the pattern with the other heads.",
                  f"head {k + 1}: softmax(Q<sub>{k + 1}</sub>K<sub>{k + 1}</sub><sup>T</sup> / √d<sub>k</sub>)")
        self.clear_stage()
        g = AttentionGrid(tr.weights[k, : self.n, : self.n], self.tokens, self.tokens, kind="weights",
                          cell=cell_size(self.n), mask=tr.mask[: self.n, : self.n], tag=("main", "weights", k))
        g.add(label(f"head {k + 1}", 22, color=HEAD_COLORS[k], bold=True).next_to(g, UP, buff=0.15))
        self.play(FadeIn(self.show(self.place(g))), run_time=1)
        self.hold(2.5)

    def concatenate(self, tr):
        self.step("concat", "Each head outputs d_k numbers per token. Put side by side, the heads give back "
                  "one vector of d_model numbers per token.",
                  "Concat(head<sub>1</sub>, …, head<sub>h</sub>)")
        self.clear_stage()
        parts = VGroup()
        for k in range(self.h):
            g = self.matrix("heads", tr.heads[k, : self.n, : self.per_head], room=11.0 / self.h, show_numbers=False)
            g.tag = ("main", "heads", k)
            g.add(Rectangle(width=g.squares.width, height=g.squares.height, stroke_color=HEAD_COLORS[k],
                            stroke_width=4).move_to(g.squares))
            parts.add(g)
        self.place(parts.arrange(RIGHT, buff=0.4))
        self.play(LaggedStart(*[FadeIn(p) for p in parts], lag_ratio=0.2), run_time=1.2)
        concat = self.matrix("concat", tr.concat[: self.n], row_labels=self.tokens, show_numbers=False,
                             columns=self.columns)
        self.place(concat)
        self.play(ReplacementTransform(parts, concat), run_time=1.5)
        self.hold(2.5)
        return concat

    def project(self, tr, concat):
        self.step("project", "Finally W_O, a learned d_model × d_model matrix, mixes what the heads found "
                  "into the layer's output, one row per token.",
                  "MultiHead(x) = Concat(head<sub>1</sub>, …, head<sub>h</sub>) W<sub>O</sub>")
        D = tr.output.shape[1]
        room = 4.8
        small = self.matrix("concat", tr.concat[: self.n], room=room, row_labels=self.tokens, columns=self.columns)
        out = self.matrix("output", tr.output[: self.n, :MAX_COLUMNS], room=room)  # numbers if they fit
        title = f"output: {D} per token" if D <= MAX_COLUMNS else f"output: first {MAX_COLUMNS} of {D} per token"
        out.add(label(title, 18, color=style.OUTPUT).next_to(out.squares, UP, buff=0.15))
        small.add(label("concat", 18).next_to(small.squares, UP, buff=0.15))
        arrow = Arrow(LEFT * 0.7, RIGHT * 0.7, color=style.TEXT_LIGHT)
        wo = label("× W_O", 22)
        row = VGroup(small, VGroup(wo, arrow).arrange(DOWN, buff=0.1), out).arrange(RIGHT, buff=0.3)
        self.place(row)
        self.play(ReplacementTransform(concat, small), run_time=1)
        self.play(FadeIn(wo), FadeIn(arrow), FadeIn(out, shift=RIGHT * 0.3), run_time=1.2)
        self.hold(3.5)
