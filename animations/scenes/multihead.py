"""Scene 3: multi-head attention. Every head projects all of x with its own W_Q, W_K, W_V:
Q = x·W_Q (d_model numbers per token) splits into h heads of d_k; each head has its own
weight grid; the head outputs are concatenated back to d_model and projected by W_O."""

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Arrow, FadeIn, LaggedStart, Rectangle, ReplacementTransform, VGroup

from animations import style
from animations.mobjects import MAX_SHOWN, AttentionGrid, cell_size, label, shown
from animations.scenes.base import CONTENT_HEIGHT, CONTENT_WIDTH, LessonScene
from animations.scenes.words import citation, pct, tok, weights_note

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
        T = len(tr.tokens)
        shown = [f"tokens 1–{MAX_SHOWN} of {T}" if T > MAX_SHOWN else "",
                 f"heads 1–{MAX_HEADS_SHOWN}" if tr.num_heads > MAX_HEADS_SHOWN else "",
                 f"{self.per_head} of {tr.d_k} numbers per head" if self.per_head < tr.d_k else ""]
        shown = ", ".join(s for s in shown if s)
        return f"d_model {tr.x.shape[1]} · {tr.num_heads} heads, d_k {tr.d_k}" + (f" · shown: {shown}" if shown else "")

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
        D, h, d_k = tr.x.shape[1], tr.num_heads, tr.d_k
        if self.cfg.source == "manual":
            how = f"Here Q, K and V were entered by hand, {D} numbers per token, and are cut into {h} heads"
        elif h == 1:
            how = f"Q = x·W_Q (and likewise K and V) gives {D} numbers per token, all for one head"
        else:
            how = (f"Every head sees all {D} numbers of x: Q = x·W_Q (and likewise K and V) gives {D} numbers per "
                   f"token, and head 1 takes the first {d_k} of them, head 2 the next {d_k}, and so on: {h} heads")
        rotary = " Rotary positions then turn each head's queries and keys." if self.cfg.positional == "rotary" else ""
        own = " So each head has its own slice of W_Q, W_K and W_V." if h > 1 and self.cfg.source != "manual" else ""
        self.step("split", f"{how}{f', each with d_k = {d_k}' if h > 1 else ''}.{own}{rotary}" + citation(self.cfg),
                  f"Q = x·W<sub>Q</sub>:  {D} = {h} × {d_k}", self.footnote())
        x = self.matrix("x", tr.x[: self.n], room=3.6, row_labels=self.tokens, show_numbers=False,
                        columns=self.columns)
        x.add(label("x", 22, bold=True).next_to(x.squares, UP, buff=0.15))
        times = label("× W_Q", 22) if self.cfg.source != "manual" else label("=", 22)
        left = CONTENT_WIDTH - x.width - times.width - 2 * 0.4 - 0.12 * (self.h - 1) - 0.1  # for the heads' squares
        heads = VGroup()
        for k in range(self.h):
            g = self.matrix("q", tr.q[k, : self.n, : self.per_head], room=min(7.6, left) / self.h,
                            show_numbers=False)
            g.tag = ("main", "q", k)
            g.add(Rectangle(width=g.squares.width, height=g.squares.height, stroke_color=HEAD_COLORS[k],
                            stroke_width=4).move_to(g.squares))
            name = label(f"head {k + 1}", 20, color=HEAD_COLORS[k])
            g.add((name if name.width <= g.squares.width else label(str(k + 1), 20, color=HEAD_COLORS[k]))
                  .next_to(g.squares, UP, buff=0.1))
            heads.add(g)
        heads.arrange(RIGHT, buff=0.12)
        q_name = label("Q", 24, color=style.QUERY, bold=True).next_to(heads, UP, buff=0.45)
        row = self.place(VGroup(x, times, VGroup(heads, q_name)).arrange(RIGHT, buff=0.4), top=2.6)
        self.play(FadeIn(x), run_time=1)
        self.play(FadeIn(times), FadeIn(q_name), LaggedStart(*[FadeIn(g) for g in heads], lag_ratio=0.3),
                  run_time=1.5)
        self.row = row
        self.hold(2.5)

    def head_grids(self, tr):
        self.step("heads", "Each head computes its own attention from its own slice of Q, K and V, so each can "
                  "attend in a pattern of its own." + weights_note(self.cfg),
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
            g.add(label(f"head {k + 1}", 20, color=HEAD_COLORS[k]).next_to(g.squares, UP, buff=0.1))
            grids.add(self.show(g))
        self.head_grid_list = list(grids)
        self.place(grids.arrange_in_grid(rows=rows, cols=per_row, buff=(0.35, 0.35)))
        self.play(LaggedStart(*[FadeIn(g) for g in grids], lag_ratio=0.3), run_time=2)
        self.hold(3.0)

    def close_up(self, tr):
        k = min(1, self.h - 1)
        self.step("close-up", self.close_up_caption(tr, k),
                  f"head {k + 1}: softmax(Q<sub>{k + 1}</sub>K<sub>{k + 1}</sub><sup>T</sup> / √d<sub>k</sub>)")
        self.clear_stage()
        g = AttentionGrid(tr.weights[k, : self.n, : self.n], self.tokens, self.tokens, kind="weights",
                          cell=cell_size(self.n), mask=tr.mask[: self.n, : self.n], tag=("main", "weights", k),
                          fit_height=CONTENT_HEIGHT - 0.5)  # room for its name above
        g.add(label(f"head {k + 1}", 22, color=HEAD_COLORS[k], bold=True).next_to(g, UP, buff=0.15))
        self.play(FadeIn(self.show(self.place(g))), run_time=1)
        self.hold(2.5)

    def close_up_caption(self, tr, k) -> str:
        rows = "every row that may attend adding up to 1" if tr.blocked_rows.any() else "every row adding up to 1"
        text = f"Head {k + 1} up close: its own weights, {rows}."
        i = max(range(self.n), key=lambda r: (tr.mask[r].sum(), -r))  # the query that sees the most keys
        if k > 0 and not tr.blocked_rows[i]:
            j = int(tr.weights[k, i].argmax())
            text += (f" Here {tok(tr.tokens[i])} gives {pct(tr.weights[k, i, j])} of its attention to "
                     f"{tok(tr.tokens[j])}; in head 1, {pct(tr.weights[0, i, j])}.")
        return text

    def concatenate(self, tr):
        D, h, d_k = tr.x.shape[1], tr.num_heads, tr.d_k
        together = (f"Put side by side, the {h} heads give back one vector of d_model, here {D}, numbers per token"
                    if h > 1 else f"With one head, that is already d_model, here {D}, numbers per token")
        self.step("concat", f"Each head outputs d_k, here {d_k}, numbers per token. {together}.",
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
        D = tr.output.shape[1]
        what = ("W_O is the identity here (a hand-entered lesson), so the output is the concatenation"
                if self.cfg.source == "manual" else
                f"Finally W_O, a d_model × d_model matrix ({D} × {D}, random here, trained in a real model), mixes "
                "what the heads found into the layer's output")
        self.step("project", f"{what}, one row per token.",
                  "MultiHead(x) = Concat(head<sub>1</sub>, …, head<sub>h</sub>) W<sub>O</sub>")
        room = 4.8
        small = self.matrix("concat", tr.concat[: self.n], room=room, row_labels=self.tokens, columns=self.columns)
        out = self.matrix("output", tr.output[: self.n, :MAX_COLUMNS], room=room)  # numbers if they fit
        title = f"output: {D} per token" if D <= MAX_COLUMNS else f"output: first {MAX_COLUMNS} of {D} per token"
        out.add(label(title, 20, color=style.OUTPUT).next_to(out.squares, UP, buff=0.15))
        small.add(label("concat", 20).next_to(small.squares, UP, buff=0.15))
        arrow = Arrow(LEFT * 0.7, RIGHT * 0.7, color=style.TEXT_LIGHT)
        wo = label("× W_O", 22)
        row = VGroup(small, VGroup(wo, arrow).arrange(DOWN, buff=0.1), out).arrange(RIGHT, buff=0.3)
        self.place(row)
        self.play(ReplacementTransform(concat, small), run_time=1)
        self.play(FadeIn(wo), FadeIn(arrow), FadeIn(out, shift=RIGHT * 0.3), run_time=1.2)
        self.hold(3.5)
