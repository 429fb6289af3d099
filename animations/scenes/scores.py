"""Scene 1: scores. Tokens become Q, K, V; a query meets each key; the score grid fills in,
is divided by √d_k, softmax turns each row into weights, and the weights mix the rows of V."""

from manim import DOWN, LEFT, RIGHT, UP, Create, FadeIn, LaggedStart, ReplacementTransform, SurroundingRectangle, VGroup

from animations import style
from animations.mobjects import AttentionGrid, cell_size, fmt, label, shown, shown_note
from animations.scenes.base import CONTENT_HEIGHT, LessonScene
from animations.scenes.words import citation, pct, tok, weights_note

MAX_DIMS = 4  # columns of Q, K, V shown
SOFT = 0.5  # a row whose largest weight is below this is called soft (random weights give such rows)


def _paren(value: float) -> str:
    """A factor in a written product: negative numbers in brackets."""
    return f"({fmt(value)})" if value < 0 else fmt(value)


def score_markup(cfg) -> str:
    """The scores as this lesson computes them: ÷√d_k and ÷ temperature only where it applies them."""
    parts = ["Q·K<sup>T</sup>"] + ([" / √d<sub>k</sub>"] if cfg.scale else [])
    return "".join(parts + ([f" / {cfg.temperature:g}"] if cfg.temperature != 1 else []))


def softmax_markup(cfg, masked: bool) -> str:
    """The softmax step's formula for this lesson, its mask said where one blocks a pair."""
    return f"weights = softmax({score_markup(cfg)}{', blocked pairs −∞' if masked else ''})"


class ScoresScene(LessonScene):
    # The title stands over every step, the raw q·k included: it names the scene, no one formula (the top right
    # says each step's).
    title = "Inside one head"
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

    def project_caption(self) -> str:
        roles = ("its query q (what it looks for), key k (what it offers) and value v (what it passes on): "
                 "token i's query is row q_i of Q, and likewise for K and V.")
        if self.cfg.source == "manual":
            lead = "Each token has three vectors, entered by hand: "
        else:
            lead = "Each token's vector x is multiplied by three weight matrices, W_Q, W_K and W_V, giving "
        return lead + roles + weights_note(self.cfg) + citation(self.cfg)

    def show_qkv(self, tr, h):
        markup = ("Q, K, V as entered" if self.cfg.source == "manual"
                  else "Q = x·W<sub>Q</sub>   K = x·W<sub>K</sub>   V = x·W<sub>V</sub>")
        self.step("project", self.project_caption(), markup, self.footnote())
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
        self.step("dot-product", f"The query of {tok(self.tokens[i])} meets every key: multiply the numbers pair "
                  f"by pair and add them up, one score per key. With its own key, the score is "
                  f"{fmt(tr.scores[h, i, i])}.",
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
        scores = VGroup(*[label(fmt(tr.scores[h, i, j]), 20, color=style.HIGHLIGHT)
                          .next_to(k_grid.row(j), RIGHT, buff=0.15) for j in range(self.n)])
        self.play(k_box.animate.move_to(k_grid.row(0)), run_time=0.3)
        for j in range(self.n):
            self.play(k_box.animate.move_to(k_grid.row(j)), FadeIn(scores[j]), run_time=0.3)
        self.play(k_box.animate.move_to(k_grid.row(i)), run_time=0.3)  # back on the key the formula line adds up
        self.hold(1.5)
        self.scores_of_query = scores

    def show_scores(self, tr, h):
        block = tr.scores[h, : self.n, : self.n]
        a, b = divmod(int(block.argmax()), self.n)
        self.step("scores", "Doing this for every query and every key fills the score grid, Q·Kᵀ: each row is "
                  "a query, each column a key; blue is negative, orange positive. The highest here, "
                  f"{fmt(block[a, b])}, is the query of {tok(self.tokens[a])} meeting the key of "
                  f"{tok(self.tokens[b])}.",
                  "scores = Q·K<sup>T</sup>")
        self.clear_stage()
        grid = self.show(AttentionGrid(tr.scores[h, : self.n, : self.n], self.tokens, self.tokens, kind="scores",
                                       cell=cell_size(self.n), tag=("main", "scores", h), fit_height=CONTENT_HEIGHT))
        self.place(grid)
        self.play(FadeIn(VGroup(grid.row_labels, grid.col_labels)), run_time=0.5)
        self.play(LaggedStart(*[FadeIn(grid.row(i)) for i in range(self.n)], lag_ratio=0.5), run_time=2)
        self.hold(2.0)
        return grid

    def show_scaling(self, tr, h, grid):
        masked = bool((~tr.mask).any())
        field = "masked" if masked else "scaled"
        self.step("scale", self.scale_caption(tr, masked), self.scale_markup(tr))
        new = self.show(AttentionGrid(getattr(tr, field)[h, : self.n, : self.n], self.tokens, self.tokens,
                                      kind="scores",
                                      cell=cell_size(self.n), tag=("main", field, h), fit_height=CONTENT_HEIGHT))
        self.place(new)
        self.play(ReplacementTransform(grid, new), run_time=1.5)
        self.hold(2.5)
        return new

    def scale_caption(self, tr, masked) -> str:
        cfg, hot = self.cfg, self.cfg.temperature != 1
        by_temperature = f"the temperature {cfg.temperature:g}"
        if cfg.scale:
            text = (f"Every score is divided by √d_k = √{tr.d_k}{f' and by {by_temperature}' if hot else ''}, so it "
                    f"is multiplied by {tr.scale:.2f}: for random vectors, scores spread further as d_k grows, and "
                    "the division undoes that (the scaling video shows why it matters).")
        elif hot:
            text = (f"This lesson does not divide by √d_k; every score is divided by {by_temperature}, so it is "
                    f"multiplied by {tr.scale:.2f}.")
        else:
            text = ("This lesson does not divide by √d_k: the scores go into the softmax as they are "
                    "(the scaling video shows what that does).")
        return text + (" Blocked pairs (the mask) become −∞." if masked else "")

    def scale_markup(self, tr) -> str:
        return score_markup(self.cfg) + f"   (× {tr.scale:.2f})"

    def show_softmax(self, tr, h, grid):
        i = self.query
        j = int(tr.weights[h, i].argmax())
        blocked = " A row whose keys are all blocked stays 0 (see the masking video)." if tr.blocked_rows.any() else ""
        seen = tr.weights[h, i][tr.mask[i]]
        soft = (f" The row is soft: its weights run from {pct(seen.min())} to {pct(seen.max())}, as random weights "
                "give; the trained video shows heads that put nearly all of a row's weight on one piece."
                if seen.max() < SOFT else "")
        self.step("softmax", "Softmax turns each row into weights between 0 and 1 that add up to 1. "
                  f"{tok(self.tokens[i])} gives {pct(tr.weights[h, i, j])} of its attention to "
                  f"{tok(tr.tokens[j])}, its largest weight.{soft}{blocked}",
                  softmax_markup(self.cfg, bool((~tr.mask).any())))
        new = self.show(AttentionGrid(tr.weights[h, : self.n, : self.n], self.tokens, self.tokens, kind="weights",
                                      cell=cell_size(self.n), tag=("main", "weights", h), mask=tr.mask,
                                      fit_height=CONTENT_HEIGHT))
        self.place(new)
        self.play(ReplacementTransform(grid, new), run_time=1.5)
        box = SurroundingRectangle(new.row(i), color=style.HIGHLIGHT, buff=0.04)
        total = label("sums to 1", 20, color=style.HIGHLIGHT).next_to(box, RIGHT, buff=0.15)
        self.play(Create(box), FadeIn(total), run_time=0.8)
        self.hold(2.5)
        return new

    def show_mixing(self, tr, h, grid):
        i = self.query
        T, d_k = len(tr.tokens), tr.d_k
        j = int(tr.weights[h, i].argmax())
        self.step("mix-values", f"The weights mix the values: the weights of {tok(self.tokens[i])}, a row of "
                  f"1 × {T}, times V, {T} × {d_k}, give its output, 1 × {d_k}: a weighted sum of the value rows, "
                  f"{pct(tr.weights[h, i, j])} of it from the value of {tok(tr.tokens[j])}.",
                  "output<sub>i</sub> = Σ<sub>j</sub> w<sub>ij</sub> v<sub>j</sub>", self.footnote())
        self.clear_stage()
        cell = cell_size(self.n, 4.4)
        weights = self.show(AttentionGrid(tr.weights[h, i, : self.n], [f"w({self.tokens[i]})"], self.tokens,
                                          kind="weights", cell=cell, tag=("main", "weights", h, i)))
        values = self.show(AttentionGrid(tr.v[h, : self.n, : self.dims], self.tokens, kind="vector",
                                         color=style.VALUE, cell=cell, tag=("main", "v", h)))
        values.add(label("V", 26, color=style.VALUE, bold=True).next_to(values.squares, UP, buff=0.15))
        out = self.show(AttentionGrid(tr.heads[h, i, : self.dims], kind="vector", cell=cell,
                                      color=style.OUTPUT, tag=("main", "heads", h, i)))
        out.add(label("output", 22, color=style.OUTPUT, bold=True).next_to(out.squares, UP, buff=0.15))
        times, equals = label("·", 40), label("=", 36)
        row = VGroup(weights, times, values, equals, out).arrange(RIGHT, buff=0.35)
        for part in (weights, times, equals, out):  # the row and the output level with the middle of V
            part.shift(UP * (values.squares.get_center()[1] - part.get_center()[1]))
        self.place(row)
        self.play(FadeIn(weights), FadeIn(times), FadeIn(values), run_time=1)
        self.play(FadeIn(equals), FadeIn(out, shift=LEFT * 0.3), run_time=1)
        self.hold(3.0)
