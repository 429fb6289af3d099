"""Scene 1: scores. Tokens become Q, K, V; a query meets each key; the score grid fills in,
is divided by √d_k, softmax turns each row into weights, and the weights mix the rows of V."""

from manim import DOWN, LEFT, RIGHT, UP, Create, FadeIn, LaggedStart, ReplacementTransform, SurroundingRectangle, VGroup

from animations import style
from animations.mobjects import AttentionGrid, cell_size, fmt, label, shown, shown_note
from animations.scenes.base import LessonScene

MAX_DIMS = 4  # columns of Q, K, V shown


def _paren(value: float) -> str:
    """A factor in a written product: negative numbers in brackets."""
    return f"({fmt(value)})" if value < 0 else fmt(value)


class ScoresScene(LessonScene):
    title = "Scores: Q·Kᵀ / √d_k"
    head = 0  # which head the scene follows

    def construct(self):
        tr = self.trace
        self.head = h = min(self.head, tr.num_heads - 1)
        self.n = shown(len(tr.tokens))
        self.dims = min(tr.d_k, MAX_DIMS)
        self.tokens = tr.tokens[: self.n]
        self.query = next((i for i in (1, 0, *range(self.n)) if i < self.n and not tr.blocked_rows[i]), 0)
        qkv = self.show_qkv(tr, h)
        self.show_dot_product(tr, h, qkv)
        grid = self.show_scores(tr, h)
        grid = self.show_scaling(tr, h, grid)
        grid = self.show_softmax(tr, h, grid)
        self.show_mixing(tr, h, grid)

    def footnote(self, extra=""):
        tr = self.trace
        parts = [f"head {self.head + 1} of {tr.num_heads}", f"d_k = {tr.d_k}",
                 shown_note(len(tr.tokens)), f"first {self.dims} of {tr.d_k} dims" if tr.d_k > self.dims else "",
                 extra]
        return " · ".join(p for p in parts if p)

    def show_qkv(self, tr, h):
        self.step("project", "Each token's vector x is multiplied by three learned matrices: "
                  "its query Q (what it looks for), key K (what it offers) and value V (what it passes on).",
                  "Q = x·W<sub>Q</sub>   K = x·W<sub>K</sub>   V = x·W<sub>V</sub>", self.footnote())
        grids = VGroup()
        for name, arr, color in (("Q", tr.q, style.QUERY), ("K", tr.k, style.KEY), ("V", tr.v, style.VALUE)):
            rows = self.tokens if name == "Q" else ()
            g = AttentionGrid(arr[h, : self.n, : self.dims], rows, kind="vector", color=color,
                              cell=cell_size(self.n, 5.0), tag=("main", name.lower(), h))
            g.add(label(name, 26, color=color, bold=True).next_to(g.squares, UP, buff=0.15))
            grids.add(self.show(g))
        self.place(grids.arrange(RIGHT, buff=1.3), bottom=-2.95)  # room for the dot product
        self.play(LaggedStart(*[FadeIn(g) for g in grids], lag_ratio=0.4), run_time=2)
        self.hold(2.5)
        return grids

    def show_dot_product(self, tr, h, qkv):
        i = self.query
        self.step("dot-product", f"The query of '{self.tokens[i]}' meets every key: a dot product, one score per key. "
                  "Multiply the numbers pair by pair and add them up.",
                  "score<sub>ij</sub> = q<sub>i</sub> · k<sub>j</sub>")
        q_grid, k_grid = qkv[0], qkv[1]
        q_box = SurroundingRectangle(q_grid.row(i), color=style.HIGHLIGHT, buff=0.03)
        k_box = SurroundingRectangle(k_grid.row(0), color=style.HIGHLIGHT, buff=0.03)
        self.play(Create(q_box), Create(k_box), run_time=0.6)
        terms = [f"{_paren(a)}×{_paren(b)}" for a, b in zip(tr.q[h, i, :3], tr.k[h, i, :3], strict=True)]
        more = " + …" if tr.d_k > 3 else ""
        self.play(k_box.animate.move_to(k_grid.row(i)), run_time=0.5)
        line = label(f"q·k = {' + '.join(terms)}{more} = {fmt(tr.scores[h, i, i])}", 20, color=style.HIGHLIGHT)
        self.play(FadeIn(line.to_edge(DOWN, buff=0.55)), run_time=0.8)
        self.hold(2.0)
        scores = VGroup(*[label(fmt(tr.scores[h, i, j]), 18, color=style.HIGHLIGHT)
                          .next_to(k_grid.row(j), RIGHT, buff=0.15) for j in range(self.n)])
        self.play(k_box.animate.move_to(k_grid.row(0)), run_time=0.3)
        for j in range(self.n):
            self.play(k_box.animate.move_to(k_grid.row(j)), FadeIn(scores[j]), run_time=0.3)
        self.hold(1.5)
        self.scores_of_query = scores

    def show_scores(self, tr, h):
        self.step("scores", "Doing this for every query and every key fills the score grid: "
                  "row = the query, column = the key. Blue is negative, orange positive.",
                  "scores = Q·K<sup>T</sup>")
        self.clear_stage()
        grid = self.show(AttentionGrid(tr.scores[h, : self.n, : self.n], self.tokens, self.tokens, kind="scores",
                                       cell=cell_size(self.n), tag=("main", "scores", h)))
        self.place(grid)
        self.play(FadeIn(VGroup(grid.row_labels, grid.col_labels)), run_time=0.5)
        self.play(LaggedStart(*[FadeIn(grid.row(i)) for i in range(self.n)], lag_ratio=0.5), run_time=2)
        self.hold(2.0)
        return grid

    def show_scaling(self, tr, h, grid):
        masked = bool((~tr.mask).any())
        field = "masked" if masked else "scaled"
        scale_text = (f"Every score is divided by √d_k = √{tr.d_k}, so it is multiplied by {tr.scale:.2f}: "
                      "this keeps the scores from growing with the size of the vectors.")
        if masked:
            scale_text += " Blocked pairs (the mask) become −∞."
        self.step("scale", scale_text, f"Q·K<sup>T</sup> / √d<sub>k</sub>   (× {tr.scale:.2f})")
        new = self.show(AttentionGrid(getattr(tr, field)[h, : self.n, : self.n], self.tokens, self.tokens,
                                      kind="scores",
                                      cell=cell_size(self.n), tag=("main", field, h)))
        self.place(new)
        self.play(ReplacementTransform(grid, new), run_time=1.5)
        self.hold(2.5)
        return new

    def show_softmax(self, tr, h, grid):
        i = self.query
        self.step("softmax", "Softmax turns each row into weights: all positive, and each row sums to 1. "
                  f"Row '{self.tokens[i]}' shows how much this token attends to every other one.",
                  "weights = softmax(Q·K<sup>T</sup> / √d<sub>k</sub>)")
        new = self.show(AttentionGrid(tr.weights[h, : self.n, : self.n], self.tokens, self.tokens, kind="weights",
                                      cell=cell_size(self.n), tag=("main", "weights", h), mask=tr.mask))
        self.place(new)
        self.play(ReplacementTransform(grid, new), run_time=1.5)
        box = SurroundingRectangle(new.row(i), color=style.HIGHLIGHT, buff=0.04)
        total = label("sums to 1", 20, color=style.HIGHLIGHT).next_to(box, RIGHT, buff=0.15)
        self.play(Create(box), FadeIn(total), run_time=0.8)
        self.hold(2.5)
        return new

    def show_mixing(self, tr, h, grid):
        i = self.query
        self.step("mix-values", f"The weights mix the value rows: the output of '{self.tokens[i]}' is the "
                  "weighted sum of every V row, mostly of the rows it attends to most.",
                  "output<sub>i</sub> = Σ<sub>j</sub> w<sub>ij</sub> v<sub>j</sub>", self.footnote())
        self.clear_stage()
        weights = self.show(AttentionGrid(tr.weights[h, i, : self.n][:, None], self.tokens, [f"w({self.tokens[i]},·)"],
                                          kind="weights", cell=cell_size(self.n),
                                          tag=("main", "weights", h, i)))
        values = self.show(AttentionGrid(tr.v[h, : self.n, : self.dims], kind="vector", color=style.VALUE,
                                         cell=cell_size(self.n), tag=("main", "v", h)))
        values.add(label("V", 26, color=style.VALUE, bold=True).next_to(values.squares, UP, buff=0.15))
        out = self.show(AttentionGrid(tr.heads[h, i, : self.dims], [self.tokens[i]], kind="vector",
                                      color=style.OUTPUT, tag=("main", "heads", h, i)))
        out.add(label("output", 24, color=style.OUTPUT, bold=True).next_to(out.squares, UP, buff=0.15))
        times = label("×", 36)
        equals = label("=", 36)
        VGroup(weights, times, values, equals, out).arrange(RIGHT, buff=0.4)
        values.shift(UP * (weights.squares.get_top()[1] - values.squares.get_top()[1]))
        self.place(VGroup(weights, times, values, equals, out))
        self.play(FadeIn(weights), FadeIn(times), FadeIn(values), run_time=1)
        self.play(FadeIn(equals), FadeIn(out, shift=LEFT * 0.3), run_time=1)
        self.hold(3.0)


class ScoresSecondHead(ScoresScene):
    """The same lesson, following the second head (a variant as a subclass)."""

    head = 1

