"""Scene 5: trained heads. all-MiniLM-L6-v2, a trained BERT encoder, reads a sentence as word
pieces; two of its heads, picked from core's guided tour (`core.guided_heads.HEADS_WORTH_A_LOOK`):
one that looks one piece back, one that parks its weight on [CLS] but passes little of [CLS]'s value on
(`core.value_norms`). Every weight comes from
`run_trace` of that head's layer, every pattern value from `core.head_patterns`. The lesson's
sentence is what changes the video; its `layer` does not (the heads are the tour's)."""

from manim import DOWN, LEFT, RIGHT, Create, FadeIn, FadeOut, LaggedStart, Rectangle, SurroundingRectangle, VGroup

from animations import style
from animations.catalog import check_scene
from animations.mobjects import TEXT_FONT, AttentionGrid, cell_size, label
from animations.scenes.base import LessonScene
from animations.scenes.words import tok
from core import HEADS_WORTH_A_LOOK, MINILM, AttentionConfig, norm_patterns, trained_trace, value_norms
from core.guided_heads import held_on_corpus, note_value

SENTENCE = "The cat sat on the mat because it was tired."  # the lesson when run by hand
SPECIAL = ("[CLS]", "[SEP]")
# A sentence's point is often at its end ("… because it was tired"): this video shows up to 16 pieces,
# more than the other scenes' 8, in colour only where numbers would not fit (the footnote says so).
PIECES_SHOWN = 16
PIECES_A_LINE = 8  # the word-piece boxes, in lines of this many
BOUND = 1e-4  # a value within this of 0 or 1 is said as a bound: four decimals would round it to 0 or 1
SENTENCE_CHARS = 60  # characters of the sentence written on screen; a longer one ends in "…"
MEASURED = {"previous": "mean weight on the previous piece", "cls": "mean weight on [CLS]"}
AVERAGED = "the rows of the sentence's own pieces ([CLS] and [SEP] left out)"
CITED = "Jain and Wallace 2019; Wiegreffe and Pinter 2019"  # "attention is not (not) explanation"
# said instead of the note's caveat where the share of [CLS] is large: Kobayashi et al. found short values, not that
KOBAYASHI_HERE = ("The value of [CLS] is still short, as Kobayashi et al. (2020, “Attention is Not Only a Weight”) "
                  "found for [CLS], [SEP] and punctuation in BERT; here the weight on it is large enough to outweigh "
                  "that.")
FORMULA = {"previous": "mean<sub>i</sub> w<sub>i, i−1</sub>", "cls": "mean<sub>i</sub> w<sub>i, 0</sub>"}


def note_for(pattern: str):
    """The guided tour's head for a pattern ("previous", "cls"): core's list says which head it is."""
    return next(n for n in HEADS_WORTH_A_LOOK if n.pattern == pattern)


def measure_text(value: float) -> str:
    """A pattern value or weight in two decimals, or more where two would round it to 0 or 1
    (0.9996, not 1.00); past four decimals, a bound ("over 0.9999")."""
    for digits in (2, 3, 4):
        text = f"{value:.{digits}f}"
        if 0 < float(text) < 1:
            return text
    if 0 < value < 1:
        return f"over {1 - BOUND:.4f}" if value > 0.5 else f"under {BOUND:.4f}"
    return f"{value:g}"


def piece(token: str) -> str:
    """A word piece as a caption writes it: [CLS] and [SEP] plain, any other quoted."""
    return token if token in SPECIAL else tok(token)


def plain(token: str) -> bool:
    """A piece the narrator says as a word (no ## or marks)."""
    return token.isalnum() and token.isascii()


class TrainedScene(LessonScene):
    title = "Trained heads: all-MiniLM-L6-v2"

    def __init__(self, cfg: AttentionConfig | None = None, **kwargs):
        cfg = cfg if cfg is not None else AttentionConfig.trained(SENTENCE)
        check_scene("trained", cfg)
        super().__init__(cfg, **kwargs)
        self.model = trained_trace(self.cfg.text, self.cfg.device)  # every layer: the pattern values
        self.notes = {p: note_for(p) for p in MEASURED}
        self.measured = {p: note_value(n, self.model.weights) for p, n in self.notes.items()}
        n = self.notes["cls"]  # what the [CLS] head passes on (Kobayashi et al. 2020): core.value_norms
        norms = norm_patterns(self.model.weights, value_norms(self.model.layers))
        self.passed_on = {k: float(norms[k][n.layer - 1, n.head - 1])
                          for k in ("cls_share", "sep_share", "cls_shorter")}
        self.measure_labels = []  # (pattern, Label) for every pattern value drawn (tests read them)
        self.footnotes = []  # each step's footnote (None: unchanged), for the tests
        for p, n in self.notes.items():  # each head's layer, as the other scenes' traces are made
            self.variant(p, self.cfg.replace(layer=n.layer))

    def construct(self):
        T = len(self.model.tokens)
        self.n = min(T, PIECES_SHOWN)
        self.tokens = self.model.tokens[: self.n]
        self.introduce()
        self.word_pieces()
        self.mark_previous(*self.head_grid("previous", self.previous_caption()))
        grid, value = self.head_grid("cls", self.cls_caption())
        self.mark_cls(grid, value)
        self.caveat(value)

    def step(self, name, caption, markup=None, note=None):
        self.footnotes.append(note)
        super().step(name, caption, markup, note)

    def footnote(self, extra=""):
        """Never empty: an empty footnote would leave the frame's footnote without outlines."""
        T = len(self.model.tokens)
        parts = [f"first {PIECES_SHOWN} of {T} word pieces shown" if T > PIECES_SHOWN else f"all {T} word pieces shown",
                 extra]
        return " · ".join(p for p in parts if p)

    # -- the model and its word pieces -----------------------------------------------------
    def introduce(self):
        m = MINILM
        self.step("trained-model", f"Unlike the lecture videos on random weights, this one shows a model "
                  f"trained on real text: {m.name}, a BERT encoder of {m.layers} layers with {m.heads} heads each, "
                  f"d_model {m.d_model}. It was distilled: MiniLM (Wang et al. 2020) trained a 12-layer student to "
                  "match only a larger teacher's last-layer self-attention, its attention weights and value "
                  "relations; this one keeps every second layer. Then it was fine-tuned "
                  "so that sentences of similar meaning get nearby vectors. The lab's own attention code computes "
                  "every number shown from its weights.",
                  "softmax(Q·K<sup>T</sup> / √d<sub>k</sub>), trained W",
                  f"{m.name}: {m.layers} layers × {m.heads} heads, trained weights (not random)")
        text = " ".join(self.cfg.text.split())
        text = text if len(text) <= SENTENCE_CHARS else text[: SENTENCE_CHARS - 1] + "…"
        sentence = label(f"“{text}”", 26)
        heads = self.head_map()
        self.place(VGroup(sentence, heads).arrange(DOWN, buff=0.6))
        self.play(FadeIn(sentence), run_time=0.8)
        self.play(LaggedStart(*[FadeIn(r) for r in heads.rows], lag_ratio=0.2), FadeIn(heads.names), run_time=1.5)
        self.hold(2.0)

    def head_map(self) -> VGroup:
        """The model's layers × heads as squares; the two heads of this video lit and named."""
        m, size = MINILM, 0.42
        rows = VGroup()
        for layer in range(1, m.layers + 1):
            row = VGroup(*[Rectangle(width=size, height=size, stroke_width=1, stroke_color=style.TEXT_DARK)
                           .set_fill(self._map_colour(layer, head), opacity=1) for head in range(1, m.heads + 1)])
            row.arrange(RIGHT, buff=0.06)
            row.add(label(f"layer {layer}", TEXT_FONT).next_to(row, LEFT, buff=0.2))
            rows.add(row)
        rows.arrange(DOWN, buff=0.06, aligned_edge=RIGHT)
        names = VGroup(*[label(f"layer {n.layer}, head {n.head}: {n.name}", TEXT_FONT, color=style.HIGHLIGHT)
                         for n in self.notes.values()]).arrange(DOWN, aligned_edge=LEFT, buff=0.15)
        names.next_to(rows, RIGHT, buff=0.4)
        group = VGroup(rows, names)
        group.rows, group.names = rows, names
        return group

    def _map_colour(self, layer, head):
        picked = any((n.layer, n.head) == (layer, head) for n in self.notes.values())
        return style.HIGHLIGHT if picked else style.MASKED

    def word_pieces(self):
        T = len(self.model.tokens)
        self.step("word-pieces", "The model reads word pieces, not words: its tokenizer lower-cases the text, "
                  "splits a word it does not know whole into smaller pieces, and adds [CLS] at the start and [SEP] "
                  f"at the end. This sentence becomes {T} pieces: the rows and columns of every head.",
                  "text → [CLS] pieces … [SEP]", self.footnote())
        self.clear_stage()
        boxes = VGroup()
        for t in self.tokens:
            colour = style.HIGHLIGHT if t in SPECIAL else style.TEXT_LIGHT
            text = label(t, 24, color=colour)
            box = SurroundingRectangle(text, color=colour, buff=0.15, corner_radius=0.1)
            boxes.add(VGroup(box, text))
        if T > self.n:
            boxes.add(label("…", 28))
        lines = VGroup(*[VGroup(*boxes[i:i + PIECES_A_LINE]).arrange(RIGHT, buff=0.2)
                         for i in range(0, len(boxes), PIECES_A_LINE)]).arrange(DOWN, buff=0.35)
        self.place(lines)
        self.pieces = boxes
        self.play(LaggedStart(*[FadeIn(b) for b in boxes], lag_ratio=0.15), run_time=1.5)
        self.hold(2.0)

    # -- the two heads ---------------------------------------------------------------------
    def value_label(self, pattern: str, size: int = 40):
        """The measured pattern value as drawn, remembered for the tests."""
        value = label(measure_text(self.measured[pattern]), size, color=style.HIGHLIGHT, bold=True)
        self.measure_labels.append((pattern, value))
        return value

    def head_grid(self, pattern: str, caption: str) -> tuple[AttentionGrid, VGroup]:
        """One head's weights (the shown pieces), its name beside it; returns the grid and its measured
        value (not shown yet)."""
        n = self.notes[pattern]
        tr = self.traces[pattern]
        self.step(f"layer-{n.layer}-head-{n.head}", caption,
                  FORMULA[pattern],
                  self.footnote(f"{MEASURED[pattern]}: all {len(self.model.tokens) - 2} word pieces' rows"))
        self.clear_stage()
        h = n.head - 1
        room = 5.4 if self.n <= 8 else 4.6  # a long sentence's grid leaves the panel beside it its size
        grid = self.show(AttentionGrid(tr.weights[h, : self.n, : self.n], self.tokens, self.tokens, kind="weights",
                                       cell=cell_size(self.n, room), tag=(pattern, "weights", h)))
        value = self.value_label(pattern)
        info = VGroup(label(f"layer {n.layer}, head {n.head}", 24, bold=True), label(n.name, 22),
                      label(MEASURED[pattern], 20), value,
                      label("measured on this sentence", TEXT_FONT, color=style.MASKED))
        info.arrange(DOWN, aligned_edge=LEFT, buff=0.2)
        self.place(VGroup(grid, info).arrange(RIGHT, buff=0.8))
        self.play(FadeIn(VGroup(grid.row_labels, grid.col_labels)), FadeIn(info[:3]), run_time=0.6)
        self.play(LaggedStart(*[FadeIn(grid.row(i)) for i in range(self.n)], lag_ratio=0.3), run_time=1.5)
        self.info = info
        return grid, VGroup(value, info[4])

    def previous_caption(self) -> str:
        n, tr = self.notes["previous"], self.traces["previous"]
        i = self.example_row()
        w = measure_text(tr.weights[n.head - 1, i, i - 1])
        value = measure_text(self.measured["previous"])
        first = ", its previous piece" if self.tokens[i - 1] in SPECIAL else ""  # one word: before it is [CLS]
        return (f"{self.named(n)} Averaged over {AVERAGED}, the weight a row puts on the piece just before it is "
                f"{value} (at least {n.threshold:g} {held_on_corpus(n.layer, n.head, 0)}): the piece "
                f"{piece(self.tokens[i])} puts {w} on {piece(self.tokens[i - 1])}{first}. "
                "This pattern was learned, not built in.")

    @staticmethod
    def named(n) -> str:
        return f"The lab's guided tour calls layer {n.layer}, head {n.head} “{n.name}”."

    def example_row(self) -> int:
        """A shown word piece whose previous piece is shown too, said as words where there is one."""
        rows = [i for i in range(1, self.n) if self.tokens[i] not in SPECIAL]
        return next((i for i in rows if i > 1 and plain(self.tokens[i]) and plain(self.tokens[i - 1])), rows[0])

    def mark_previous(self, grid, value):
        rows = [i for i in range(1, self.n) if self.tokens[i] not in SPECIAL]
        boxes = VGroup(*[SurroundingRectangle(grid.cell_at(i, i - 1), color=style.HIGHLIGHT, buff=0.02)
                         for i in rows])
        self.play(LaggedStart(*[Create(b) for b in boxes], lag_ratio=0.2), run_time=1.2)
        self.play(FadeIn(value), run_time=0.6)
        self.hold(2.5)

    def cls_caption(self) -> str:
        n, tr = self.notes["cls"], self.traces["cls"]
        rows = [i for i in range(1, self.n) if self.tokens[i] not in SPECIAL]
        rows = [i for i in rows if plain(self.tokens[i])] or rows  # a piece the narrator says as a word
        i = max(rows, key=lambda r: tr.weights[n.head - 1, r, 0])
        value = measure_text(self.measured["cls"])
        return (f"{self.named(n)} Averaged over {AVERAGED}, {value} of a row's weight goes to [CLS], the "
                f"first column (at least {n.threshold:g} {held_on_corpus(n.layer, n.head, 0)}); "
                f"the piece {piece(self.tokens[i])} gives it {measure_text(tr.weights[n.head - 1, i, 0])}.")

    def mark_cls(self, grid, value):
        column = VGroup(*[grid.cell_at(i, 0) for i in range(self.n)])
        box = SurroundingRectangle(column, color=style.HIGHLIGHT, buff=0.03)
        self.play(Create(box), run_time=0.8)
        self.play(FadeIn(value), run_time=0.6)
        self.hold(2.5)

    def passed_on_caption(self) -> str:
        """What the [CLS] head passes on, as measured on this sentence: whether the note's bound on
        [CLS]'s share holds here, and the kind of sentence it fails on where it does not."""
        n = self.notes["cls"]
        claim = next(c for c in n.claims if c.measure == "cls_share")
        share, sep, shorter = (self.passed_on[k] for k in ("cls_share", "sep_share", "cls_shorter"))
        words = 1 - share - sep  # the shares of a row add up to 1: [CLS], the word pieces, [SEP]
        said = ("But weight is not what a head passes on. Each key passes on its value, through W_V and this "
                f"head's part of W_O, and here the value of [CLS] is {shorter:.0f} times shorter than a word piece's "
                "on average. Add up the weighted values' lengths: ")
        said += (f"the share of [CLS] is {'only ' * claim.holds(share)}{measure_text(share)}, that of the word "
                 f"pieces {measure_text(words)} and that of [SEP] {measure_text(sep)}. ")
        if claim.holds(share):
            said += "The weight is parked on [CLS]; the other pieces supply the rest."
        else:
            short = len(self.model.tokens) - 2 <= claim.fails_within[1]
            said += (f"On most sentences, the share of [CLS] is {claim.says()} "
                     f"({held_on_corpus(n.layer, n.head, n.claims.index(claim))}); not on this "
                     "one" + (f", nor on most {claim.fails_on()}" if short else "") + "."
                     + (" Here [CLS] supplies most of what the head passes on." if share > 0.5 else ""))
        caveat = n.caveat if claim.holds(share) else KOBAYASHI_HERE
        return (f"{said} {caveat} Even so, weights show where a head looks; whether they explain a decision has "
                f"to be tested, not assumed ({CITED}).")

    def caveat(self, value):
        """Weight is not what a head passes on: the [CLS] head's weight against its norm-weighted share."""
        share, shorter = self.passed_on["cls_share"], self.passed_on["cls_shorter"]
        self.step("passed-on", self.passed_on_caption(),
                  "‖w<sub>ij</sub> · f(x<sub>j</sub>)‖", "weight × value length, as Kobayashi et al. (2020) measure it")
        grey = style.MASKED
        share_label = label(measure_text(share), 32, color=style.HIGHLIGHT, bold=True)
        self.passed_on_labels = [("cls_share", share_label)]
        reading = VGroup(label("weight on [CLS]:", TEXT_FONT, color=grey), self.value_label("cls", 32),
                         label("[CLS]'s share of what it passes on:", TEXT_FONT, color=grey), share_label,
                         label(f"[CLS]'s value is {shorter:.0f}× shorter", 20),
                         label("than a word piece's", 20))
        reading.arrange(DOWN, aligned_edge=LEFT, buff=0.18).next_to(self.info[0], DOWN, buff=0.3, aligned_edge=LEFT)
        self.play(FadeOut(self.info[1:]), FadeOut(value), FadeIn(reading), run_time=1.0)
        self.hold(3.0)
