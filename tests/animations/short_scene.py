"""A one-step lesson for the suite's one real class-quality (1080p30) render: the shortest video
that still goes through the whole pipeline (title, formula, footnote, a grid of numbers, a
caption, a section, the subtitle track), in a few seconds of film instead of a minute."""

from manim import FadeIn

from animations.mobjects import AttentionGrid, cell_size
from animations.scenes.base import CONTENT_HEIGHT, LessonScene


class ShortScene(LessonScene):
    title = "Softmax"
    reading_pause = 0.3

    def construct(self):
        tr = self.trace
        n = min(len(tr.tokens), 4)
        self.step("weights", "Each row of weights adds up to 1.", "softmax(Q·K<sup>T</sup> / √d<sub>k</sub>)",
                  f"head 1 of {tr.num_heads} · first {n} tokens")
        grid = AttentionGrid(tr.weights[0, :n, :n], tr.tokens[:n], tr.tokens[:n], cell=cell_size(n),
                             fit_height=CONTENT_HEIGHT, tag=("main", "weights", 0))
        self.play(FadeIn(self.show(self.place(grid))), run_time=0.5)
        self.hold(0.3)
