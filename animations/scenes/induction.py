"""Scene 6: how an induction head forms. A tiny attention-only Transformer learns to continue
repeated characters; the scene draws what its training run recorded (a `core.film.Film` of the
default `LearnSettings`): the probe and its repeat, the loss curve with its sudden drop, the
highest-scoring previous-token and induction heads at a few snapshot steps, the circuit they make
(described by Elhage et al. 2021; how it forms, Olsson et al. 2022), and what removing heads does:
the run names several heads of each kind, and they share the work. Every number drawn or said is
the film's, or measured on the film's trained model (`core.learn.ablated`). It draws no lesson:
whatever `AttentionConfig` it is handed, it ignores (catalog.FILMS).
"""

import math
from functools import lru_cache

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    CurvedArrow,
    FadeIn,
    FadeOut,
    LaggedStart,
    ReplacementTransform,
    SurroundingRectangle,
    VGroup,
)

from animations import style
from animations.mobjects import TEXT_FONT, AttentionGrid, label
from animations.scenes import footnote
from animations.scenes import induction_parts as parts
from animations.scenes.base import LessonScene
from animations.scenes.induction_parts import pct, repeat
from animations.scenes.words import tok
from core.film import ALPHABET, FINAL_STEPS, INDUCTION_THRESHOLD, PREVIOUS_THRESHOLD, Film, LearnSettings
from core.learn import ABLATION_SEQUENCES, ablated
from core.learn_tasks import EVAL_SEQUENCES

SETTINGS = LearnSettings()  # the class's film: the Watch it learn page's default run
CHANCE = math.log(len(ALPHABET))  # the loss of a uniform guess among the symbols
CELL = 0.25  # frame units: 48 keys fit the width, and a letter label (0.21 high) fits each row
PLATEAU, HALF = 0.9, 0.5  # the plateau: the loss above 90 % of chance; the drop: down to half of it
CITATIONS = ("Elhage et al. (2021), “A Mathematical Framework for Transformer Circuits”: the circuit",
             "Olsson et al. (2022), “In-context Learning and Induction Heads”: how it forms")
NAMES = {"previous": "previous-token head", "induction": "induction head"}
ARTICLE = {"previous": "a", "induction": "an"}
ROWS = {"previous": "the first copy", "induction": "the second copy but its last token"}  # a head's grid
FORMULAS = {"previous": "score = mean<sub>i</sub> w<sub>i, i−1</sub>",
            "induction": "score = mean<sub>i</sub> w<sub>i, i−d+1</sub>"}


@lru_cache(maxsize=1)
def recorded(settings: LearnSettings = SETTINGS) -> Film:
    """The film of `settings`: the one saved under `<media>/films/<key>/` (the Watch it learn page's
    store) if it is usable, else a run trained now. Kept for the process's next scene: a render
    counts, then draws, with one film."""
    from jobs import media_dir

    try:
        film = Film.load(media_dir() / "films" / settings.key())
        if film.settings == settings:
            return film
    except ValueError:  # none saved, another version, or damaged: train it
        pass
    from core.learn import train

    return train(settings)


def loss_text(value: float) -> str:
    """A loss as a caption says it: one decimal, none when it is 0 ("2", not "2.0")."""
    return f"{float(value):.1f}".removesuffix(".0")


class InductionScene(LessonScene):
    title = "How an induction head forms"
    look = 2.5  # narrated: seconds the picture holds after each step's speech, for a class to read its numbers

    def __init__(self, cfg=None, film: Film | None = None, **kwargs):
        super().__init__(None, **kwargs)  # no lesson is drawn: any one handed in is ignored
        self.film = film if film is not None else recorded()
        f = self.film
        self.tokens = f.probe_labels
        self.first, self.second, self.length = repeat(f.probe)
        self.gap = self.second - self.first  # how far back the earlier copy lies
        # the rows a head's grid shows: the first copy, whose tokens the induction head looks back to;
        # the second copy's tokens whose next token repeats (the queries its score averages)
        self.rows = {"previous": (self.first, self.first + self.length),
                     "induction": (self.second, self.second + self.length - 1)}
        self.heads = {"previous": f.previous_token_head(), "induction": f.induction_head()}
        self.formed = f.formed_at()
        if None in self.heads.values() or self.formed is None:
            raise ValueError(f"The film of {f.settings} has no induction head: this scene needs one.")
        self.moments = sorted({0, f.snapshot_index(self.formed), len(f.snapshots) - 1})  # snapshot indices
        # the trained model on fresh sequences: whole, without its top induction head, without every one, and
        # without its previous-token heads
        self.named = {"previous": f.previous_token_heads(), "induction": f.induction_heads()}
        top, every = [self.heads["induction"]], self.named["induction"]
        self.ablation = {"none": ablated(f), "top": ablated(f, top), "all": ablated(f, every),
                         "previous": ablated(f, self.named["previous"])}
        self.scores_drawn: list[tuple[str, int, str]] = []  # (head kind, step, text) for the tests

    def _speak(self, caption: str) -> float:
        """As every scene speaks, and then the picture holds `look` seconds more (none when silent)."""
        seconds = super()._speak(caption)
        return seconds + self.look if seconds else 0.0

    def construct(self):
        self.task()
        self.loss_curve()
        self.head("previous")
        self.head("induction")
        self.whole_circuit()
        self.shared_work()

    # -- what the film says ------------------------------------------------------------------
    def model_note(self) -> str:
        s = self.film.settings
        return (f"{s.layers} layers × {s.heads} heads, d_model {s.d_model}, attention only · trained "
                f"{s.steps} steps, seed {s.seed}")

    def scores(self, kind: str):
        return self.film.previous_token if kind == "previous" else self.film.induction  # (K, L, H)

    def score(self, kind: str, k: int) -> float:
        layer, head = self.heads[kind]
        return float(self.scores(kind)[k, layer - 1, head - 1])

    def loss_steps(self) -> tuple[int, int]:
        """The first steps at which the loss falls below PLATEAU and below HALF of chance."""
        loss = self.film.loss
        return tuple(next(s + 1 for s, v in enumerate(loss) if v < share * CHANCE) for share in (PLATEAU, HALF))

    # -- 1. the task -------------------------------------------------------------------------
    def task(self):
        s, T, n = self.film.settings, len(self.tokens), self.length
        self.step("the-task", f"A tiny Transformer, {s.layers} layers of {s.heads} heads, learns one task. It "
                  f"reads {T} random characters, one token each, where a stretch repeats, and predicts each next "
                  f"one. Here, the {n} characters from position {self.first + 1} come back at position "
                  f"{self.second + 1}. From the second copy's second character on, each one can be read off the "
                  "first copy, but only by looking back.", "… a b … a → b", self.model_note())
        copies = [(self.first, n, "first copy"), (self.second, n, "second copy")]
        probe = self.probe = parts.strip(self.tokens, copies)
        a, b = probe.letters[self.second], probe.letters[self.first + 1]
        back = CurvedArrow(a.get_top() + UP * 0.15, b.get_top() + UP * 0.15, angle=math.pi / 4, color=style.HIGHLIGHT)
        ask = label(f"{tok(self.tokens[self.second])} again: what came after it last time?", TEXT_FONT,
                    color=style.HIGHLIGHT).next_to(back, UP, buff=0.15)
        self.place(VGroup(probe, back, ask))
        self.play(LaggedStart(*[FadeIn(t) for t in probe.letters], lag_ratio=0.04), run_time=1.5)
        for (start, _, _), line, name, colour in zip(copies, probe.lines, probe.names, probe.colours, strict=True):
            self.play(*[t.animate.set_fill(colour) for t in probe.letters[start: start + n]], Create(line),
                      FadeIn(name), run_time=0.8)
        self.play(Create(back), FadeIn(ask), run_time=1.0)
        self.hold(2.0)

    # -- 2. the loss -------------------------------------------------------------------------
    def loss_curve(self):
        f, F, V = self.film, self.formed, len(ALPHABET)
        S, (P, Q) = len(f.loss), self.loss_steps()
        self.step("the-loss", f"The loss over {S} training steps. Guessing among {V} characters at random "
                  f"scores the natural log of {V}, about {loss_text(CHANCE)}: chance. For the first {P - 1} steps, "
                  f"the loss stays above {loss_text(PLATEAU * CHANCE)}. A plateau. Then, in {Q - P + 1} steps, it "
                  f"falls to half of chance. A phase change. Over its last {FINAL_STEPS} steps it averages "
                  f"{f.final_loss():.2f}. The yellow line "
                  f"marks step {F}: there, a head's induction score is first recorded at {pct(INDUCTION_THRESHOLD)} "
                  "or more.", "loss = −ln p(next character)")
        self.clear_stage()
        self.chart = parts.LossChart(f.loss, CHANCE, f"chance: ln {V} ≈ {CHANCE:.2f}", F,
                                     f"step {F}: induction score ≥ {INDUCTION_THRESHOLD:g}",
                                     (1, P - 1), (P, Q))
        self.place(self.chart)
        self.play(FadeIn(self.chart.axes), FadeIn(self.chart.chance), run_time=0.8)
        self.play(Create(self.chart.curve), run_time=2.5)
        self.play(FadeIn(self.chart.regions), run_time=0.8)
        self.play(FadeIn(self.chart.marker), run_time=0.8)
        self.hold(2.5)

    # -- 3, 4. the two heads -----------------------------------------------------------------
    def head_caption(self, kind: str) -> str:
        layer, head = self.heads[kind]
        f, F = self.film, self.formed
        values = [self.score(kind, k) for k in (0, f.snapshot_index(F), -1)]
        start, now, end = (pct(v) for v in values)
        threshold = PREVIOUS_THRESHOLD if kind == "previous" else INDUCTION_THRESHOLD
        found = int((self.scores(kind)[-1] >= threshold).sum())
        what = ("a token puts on the token just before it" if kind == "previous" else
                "a token of a second copy puts on the token after the earlier copy of itself")
        where = ("the diagonal just below the main one" if kind == "previous" else
                 f"a stripe {self.gap - 1} places left of the diagonal")
        return (f"Of all heads, layer {layer}, head {head} scores highest as {ARTICLE[kind]} {NAMES[kind]}. Its "
                f"score is the mean weight {what}, on {EVAL_SEQUENCES} other sequences. Here, that is {where}. The "
                f"score {'rises' if values == sorted(values) else 'goes'} from {start} before training, to {now} at "
                f"step {F}, and {end} at the end. {found} of the {f.settings.layers * f.settings.heads} "
                f"heads end{'s' if found == 1 else ''} at {pct(threshold)} or more. Shown: {ROWS[kind]}, against "
                f"all {len(self.tokens)}.")

    def head(self, kind: str):
        (layer, head), (r0, r1) = self.heads[kind], self.rows[kind]
        self.step(f"{kind}-head", self.head_caption(kind), FORMULAS[kind],
                  footnote.join(f"rows: {ROWS[kind]} (positions {r0 + 1}–{r1})",
                                f"d = {self.gap} between the copies" if kind == "induction" else "",
                                f"score: mean over {EVAL_SEQUENCES} other sequences"))
        self.clear_stage()
        grids = [self.head_grid(k, layer, head, self.rows[kind]) for k in self.moments]
        items = [self.score_item(kind, k) for k in self.moments]
        header = VGroup(label(f"layer {layer}, head {head}: {NAMES[kind]}", 24, bold=True),
                        VGroup(label("score", 22), *items).arrange(RIGHT, buff=0.45))
        header.arrange(DOWN, aligned_edge=LEFT, buff=0.15)
        self.place(VGroup(header, grids[0]).arrange(DOWN, aligned_edge=LEFT, buff=0.3))
        for grid in grids[1:]:  # the same size and place as the first
            grid.match_width(grids[0]).move_to(grids[0])
        self.play(FadeIn(grids[0]), FadeIn(header[0]), FadeIn(header[1][:2]), run_time=1.0)
        self.hold(1.0)
        for old, new, item in zip(grids, grids[1:], items[1:], strict=False):
            self.play(ReplacementTransform(old, new), FadeIn(item), run_time=1.5)
            self.hold(1.0)
        boxes = VGroup(*[SurroundingRectangle(grids[-1].cell_at(i, j), color=style.HIGHLIGHT, buff=0.0,
                                              stroke_width=2) for i, j in self.cells(kind)])
        self.play(LaggedStart(*[Create(b) for b in boxes], lag_ratio=0.1), run_time=1.2)
        self.hold(2.0)

    def head_grid(self, k: int, layer: int, head: int, rows: tuple[int, int]) -> AttentionGrid:
        """The head's weights at snapshot k: one copy's letters (rows) against every key, the copies'
        letters in their colours."""
        r0, r1 = rows
        grid = AttentionGrid(self.film.weights[k, layer - 1, head - 1, r0:r1], self.tokens[r0:r1], (),
                             cell=CELL, tag=("film", k, layer, head, r0, r1))
        parts.column_letters(grid, self.tokens)
        for labels, offset in ((grid.col_labels, 0), (grid.row_labels, r0)):
            for j, mob in enumerate(labels, start=offset):
                mob.set_fill(self.copy_colour(j))
        return self.show(grid)

    def copy_colour(self, position: int) -> str:
        """Orange in the first copy, blue in the second, as the task's picture draws them."""
        if self.first <= position < self.first + self.length:
            return style.KEY
        if self.second <= position < self.second + self.length:
            return style.text_color(style.QUERY)
        return style.TEXT_LIGHT

    def score_item(self, kind: str, k: int):
        step, text = int(self.film.snapshots[k]), f"{self.score(kind, k):.2f}"
        self.scores_drawn.append((kind, step, text))
        return VGroup(label(f"step {step}:", 22), label(text, 22, color=style.HIGHLIGHT, bold=True)) \
            .arrange(RIGHT, buff=0.2)

    def cells(self, kind: str) -> list[tuple[int, int]]:
        """(row, column) in the grid of the cells the head's score averages over (on this sequence)."""
        r0, r1 = self.rows[kind]
        back = 1 if kind == "previous" else self.gap - 1
        return [(i - r0, i - back) for i in range(r0, r1)]

    # -- 5. the circuit ----------------------------------------------------------------------
    def whole_circuit(self):
        from core.learn import run

        (l1, h1), (l2, h2) = self.heads["previous"], self.heads["induction"]
        _, probs = run(self.film, self.film.probe)  # (T, V): the trained model's next-token probabilities
        i = self.at = parts.circuit_at(self.film, self.heads, (self.first, self.second, self.length), probs)
        a, b = self.tokens[self.first + i], self.tokens[self.first + i + 1]
        caption, chance = parts.circuit_caption(self.film, self.heads, (self.first, self.second), i, probs)
        self.step("the-circuit", caption, "… a b … a → b", self.model_note())
        self.clear_stage()
        picture = parts.circuit(a, b, (f"layer {l1}, head {h1}: {NAMES['previous']}",
                                       f"layer {l2}, head {h2}: {NAMES['induction']}"),
                                f"predicted: {tok(b)}, {chance}")
        self.prediction = picture.guess[1].text
        cite = VGroup(*[label(c, TEXT_FONT, color=style.NOTE_TEXT) for c in CITATIONS]).arrange(DOWN, buff=0.12)
        self.place(VGroup(picture, cite).arrange(DOWN, buff=0.5))
        self.play(FadeIn(picture.row), run_time=0.8)
        self.play(Create(picture.arrows[0]), FadeIn(picture.says[0]), run_time=1.2)
        self.hold(1.5)
        self.play(Create(picture.arrows[1]), FadeIn(picture.says[1]), run_time=1.2)
        self.play(FadeOut(picture.row[5]), FadeIn(picture.guess), FadeIn(cite), run_time=0.8)
        self.hold(3.0)

    # -- 6. the work is shared ---------------------------------------------------------------
    def shared_caption(self) -> str:
        return parts.shared_caption(self.heads["induction"], self.named, self.ablation)

    def shared_work(self):
        self.step("shared-work", self.shared_caption(), "a head removed: output → 0",
                  footnote.join(f"{ABLATION_SEQUENCES} fresh sequences of the task",
                                "a head removed: its output set to 0 before W_O"))
        self.clear_stage()
        table, self.ablation_drawn = parts.ablation_table(self.heads["induction"], self.named["induction"],
                                                          self.ablation)
        self.place(table)
        self.play(FadeIn(table[0]), run_time=1.0)
        self.play(FadeIn(table[1]), run_time=0.6)
        self.hold(3.0)
