"""The induction scene's pictures: the probe as a strip of letters, the loss curve, the
two-head circuit, and what removing heads does (its caption and table). Every value is handed in
from the film and its measured ablations (animations/scenes/induction.py); nothing here measures
or trains. Axes are drawn from lines and labels, not manim's `Axes`,
whose numbers would call LaTeX.
"""

import math

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, CurvedArrow, DashedLine, Line, Text, VGroup, VMobject

from animations import style
from animations.mobjects import TEXT_FONT, Label, label
from core.film import ALPHABET, INDUCTION_THRESHOLD, PREVIOUS_THRESHOLD
from core.learn import ABLATION_SEQUENCES

AXIS = style.TEXT_LIGHT


def letters(tokens: list[str], size: int, slot: float | None = None) -> VGroup:
    """One Label per token, set as one line of monospaced text, so that every letter keeps its
    place on the baseline (a 'g' hangs below it, as in print); `slot`: their centres this far apart."""
    line = Text("".join(tokens), font=style.MONO_FONT, font_size=size)
    if len(line.submobjects) != len(tokens):  # a token of no glyph or of several: not one letter each
        raise ValueError(f"the probe's {len(tokens)} tokens are not one glyph each")
    out = VGroup()
    for token, glyph in zip(tokens, line.submobjects, strict=True):
        mob = Label(token, size)
        mob.append_points(glyph.points)
        mob.built_extent = max(mob.width, mob.height)
        out.add(mob.set_stroke(width=0).set_fill(style.TEXT_LIGHT, opacity=1))
    if slot is not None:
        for i, mob in enumerate(out):
            mob.set_x(i * slot)
    return out


def column_letters(grid, tokens: list[str], size: int = 20) -> VGroup:
    """The grid's column labels as letters on one baseline, each centred over its column (a letter
    too wide for its cell would otherwise stand on its side)."""
    squares = grid.square_rows[0]
    row = letters(tokens, size, slot=squares[1].get_x() - squares[0].get_x())
    row.next_to(grid.squares, UP, buff=0.12)
    row.shift((squares[0].get_x() - row[0].get_x()) * RIGHT)
    grid.remove(grid.col_labels)
    grid.col_labels = row
    grid.add(row)
    return row


def strip(tokens: list[str], copies: list[tuple[int, int, str]], size: int = 30, slot: float = 0.28) -> VGroup:
    """The probe in one row of letters; under each (start, length, name) copy a line in its own
    colour, its name beneath. `.letters[i]` is token i; `.lines`, `.names`, `.colours` the copies'."""
    row = letters(tokens, size, slot)
    lines, names, colours = VGroup(), VGroup(), [style.KEY, style.text_color(style.QUERY)][: len(copies)]
    for (start, length, name), colour in zip(copies, colours, strict=True):
        under = row[start: start + length]
        line = Line(under[0].get_left(), under[-1].get_right(), color=colour, stroke_width=5)
        lines.add(line.set_y(row.get_bottom()[1] - 0.15))
        names.add(label(name, TEXT_FONT, color=colour).next_to(line, DOWN, buff=0.15))
    group = VGroup(row, lines, names)
    group.letters, group.lines, group.names, group.colours = row, lines, names, colours
    return group


def _ticks(top: float, count: int = 4) -> list[float]:
    """Round tick values from 0 to `top` (about `count` of them)."""
    raw = top / count
    step = 10 ** math.floor(math.log10(raw))
    step *= next(m for m in (1, 2, 2.5, 5, 10) if m * step >= raw)
    return [float(v) for v in np.arange(0, top + step / 2, step)]


class LossChart(VGroup):
    """Training loss against step, with a dashed line at chance, a dashed mark at step `mark`, and two
    stretches (first step, last step) named: the plateau (under its curve) and the drop (left of its end).
    `.axes`, `.curve`, `.chance`, `.regions`, `.marker` are its pieces, for the animations."""

    def __init__(self, loss, chance: float, chance_text: str, mark: int | None, mark_text: str,
                 plateau: tuple[int, int], drop: tuple[int, int], width: float = 11.0, height: float = 4.4):
        super().__init__()
        steps = len(loss)
        top = float(math.ceil(max(float(np.max(loss)), chance)))
        x = lambda s: width * s / steps  # noqa: E731 (two small maps, read where they are used)
        y = lambda v: height * v / top  # noqa: E731
        axes = VGroup(Line([0, 0, 0], [width, 0, 0], color=AXIS), Line([0, 0, 0], [0, height, 0], color=AXIS))
        ticks = VGroup()
        for v in _ticks(top):
            ticks.add(label(f"{v:g}", TEXT_FONT).next_to([0, y(v), 0], LEFT, buff=0.15))
        for s in _ticks(steps):
            ticks.add(label(f"{int(s)}", TEXT_FONT).next_to([x(s), 0, 0], DOWN, buff=0.15))
        names = VGroup(label("training step", TEXT_FONT).next_to(axes, DOWN, buff=0.55),
                       label("loss", TEXT_FONT).rotate(math.pi / 2).next_to(axes, LEFT, buff=0.6))
        self.curve = VMobject(color=style.KEY, stroke_width=3)
        self.curve.set_points_as_corners([[x(s + 1), y(float(v)), 0] for s, v in enumerate(loss)])
        line = DashedLine([0, y(chance), 0], [width, y(chance), 0], color=style.NOTE_TEXT, dash_length=0.12)
        self.chance = VGroup(line, label(chance_text, TEXT_FONT, color=style.NOTE_TEXT)
                             .next_to(line.get_end(), UP, buff=0.1).align_to(line.get_end(), RIGHT))
        self.marker = VGroup()
        if mark is not None:
            line = DashedLine([x(mark), 0, 0], [x(mark), height, 0], color=style.HIGHLIGHT, dash_length=0.12)
            self.marker = VGroup(line, label(mark_text, TEXT_FONT, color=style.HIGHLIGHT)
                                 .next_to(line.get_end(), UP, buff=0.1))
            if self.marker[1].get_left()[0] < 0:  # near the start: the text begins at the axis
                self.marker[1].align_to(axes, LEFT)
        low = float(np.min(loss[plateau[0] - 1: max(plateau)]))  # the plateau's name: under its lowest point
        end = [x(drop[1]), y(float(loss[drop[1] - 1])), 0]  # the drop's: left of its end, the curve above it
        self.regions = VGroup(
            label("plateau", TEXT_FONT, color=style.KEY).next_to([x(sum(plateau) / 2), y(low), 0], DOWN, buff=0.25),
            label("phase change", TEXT_FONT, color=style.KEY).next_to(end, LEFT, buff=0.3))
        self.axes = VGroup(axes, ticks, names)
        self.add(self.axes, self.chance, self.curve, self.regions, self.marker)


def circuit(a: str, b: str, heads: tuple[str, str], predicted: str) -> VGroup:
    """The circuit in one picture, on real letters of the probe: '… a b … a ?'. Layer 1's arrow from
    `b` back to `a` (what came before me), layer 2's from the second `a` to `b` (the token after
    my earlier copy), and `.guess`, the prediction `b` to put in place of the '?'."""
    row = VGroup(label("…", 34), *letters([a, b], 40), label("…", 34), *letters([a, "?"], 40))
    row.arrange(RIGHT, buff=0.9, aligned_edge=DOWN)
    row[5].set_fill(style.HIGHLIGHT)
    one = CurvedArrow(row[2].get_top() + UP * 0.15, row[1].get_top() + UP * 0.15, angle=math.pi / 2,
                      color=style.KEY)
    two = CurvedArrow(row[4].get_bottom() + DOWN * 0.15, row[2].get_bottom() + DOWN * 0.15, angle=-math.pi / 3,
                      color=style.text_color(style.QUERY))
    said_one = VGroup(label(heads[0], TEXT_FONT, color=style.KEY),
                      label(f"copies into ‘{b}’: ‘{a}’ came before me", TEXT_FONT)).arrange(DOWN, buff=0.12)
    said_one.next_to(one, UP, buff=0.15)
    said_two = VGroup(label(heads[1], TEXT_FONT, color=style.QUERY),
                      label(f"at ‘{a}’: the token after my earlier copy is ‘{b}’", TEXT_FONT))
    said_two.arrange(DOWN, buff=0.12).next_to(two, DOWN, buff=0.15)
    guess = letters([b], 40)[0].set_fill(style.HIGHLIGHT).move_to(row[5], aligned_edge=DOWN)
    guess_name = label(predicted, TEXT_FONT, color=style.HIGHLIGHT).next_to(row[5], UP, buff=0.3)
    group = VGroup(row, one, said_one, two, said_two, guess, guess_name)
    group.row, group.arrows, group.says, group.guess = row, (one, two), (said_one, said_two), VGroup(guess, guess_name)
    return group


def circuit_at(film, heads: dict, repeat_at: tuple[int, int, int], probs) -> int:
    """The place i of the copy where the circuit is told, from `probs` (T, V), the trained model's
    next-token probabilities on the probe; `repeat_at`: (first, second, length) of the probe's repeat.
    The first i where the top previous-token head's row of the first copy's token i + 1 peaks on
    token i, the top induction head's row of the second copy's token i peaks on the first copy's
    token i + 1, and the model's likeliest next token is that one (what the narration says), both
    tokens letters where such a place has them (a narrator says a letter, not a mark); without such
    a place, the one where the model gives that token most. At the copy's first token a model that
    needs more than one matching token before it copies gives the copied one little."""
    (l1, h1), (l2, h2) = heads["previous"], heads["induction"]
    first, second, length = repeat_at
    w, ids, labels = film.weights[-1], film.probe, film.probe_labels

    def told(i: int) -> tuple[bool, float]:
        a, b, query = first + i, first + i + 1, second + i
        ok = w[l1 - 1, h1 - 1, b].argmax() == a and w[l2 - 1, h2 - 1, query].argmax() == b
        return bool(ok and probs[query].argmax() == ids[b]), float(probs[query, ids[b]])

    scored = [told(i) for i in range(length - 1)]
    right = [i for i, (ok, _) in enumerate(scored) if ok]
    letters = [i for i in right if labels[first + i].isalpha() and labels[first + i + 1].isalpha()]
    return (letters or right or [max(range(len(scored)), key=lambda i: scored[i][1])])[0]


def circuit_caption(film, heads: dict, copies: tuple[int, int], i: int, probs) -> tuple[str, str]:
    """The circuit step's caption told at place i of the copy (`circuit_at`), and the model's
    probability of the copied token there as said ("over 99%", never 100% for less than all)."""
    (l1, h1), (l2, h2) = heads["previous"], heads["induction"]
    (first, second), labels = copies, film.probe_labels
    a, b = labels[first + i], labels[first + i + 1]
    query, copied = second + i, int(film.probe[first + i + 1])
    found = labels[int(film.weights[-1, l2 - 1, h2 - 1, query].argmax())]
    p = float(probs[query, copied])
    chance, likeliest = pct(p) if p < 0.995 else "over 99%", int(probs[query].argmax()) == copied
    finds = (f"It finds the character ‘{b}’, and passes it on" if found == b else
             f"Its largest weight falls on the character ‘{found}’")
    gives = (f"the trained model gives the character ‘{b}’ {chance} there" if likeliest else
             f"yet the trained model gives the character ‘{b}’ only {chance} there")
    return (f"Together, the top previous-token head and the top induction head make a circuit. Layer {l1}, head "
            f"{h1} copies into a token what came before it: the character ‘{b}’ now also carries the character "
            f"‘{a}’. At the second copy's character ‘{a}’, layer {l2}, head {h2} looks for the token that came after "
            f"the earlier one. {finds}: {gives}. Elhage and colleagues described this circuit in 2021, in “A "
            "Mathematical Framework for Transformer Circuits”; Olsson and colleagues studied how it forms, in 2022, "
            "in “In-context Learning and Induction Heads”.", chance)


def repeat(probe) -> tuple[int, int, int]:
    """(first, second, length) of the probe's repeat: the longest stretch of tokens that occurs
    twice without overlapping itself, at its earliest places."""
    ids, best = [int(t) for t in probe], (0, 0, 0)
    for first in range(len(ids)):
        for second in range(first + 1, len(ids)):
            n = 0
            while second + n < len(ids) and first + n < second and ids[first + n] == ids[second + n]:
                n += 1
            if n > best[2]:
                best = (first, second, n)
    return best


def pct(value: float) -> str:
    """A share as a caption says it: a whole percentage."""
    return f"{round(100 * float(value))}%"


def shared_caption(top: tuple[int, int], named: dict, ablation: dict) -> str:
    """What removing heads does: `named` the run's heads of each kind, `ablation` (loss, accuracy) of
    the trained model whole ("none"), without `top` ("top"), without every induction head ("all"), without every
    previous-token head ("previous")."""
    (l2, h2), prev, ind = top, named["previous"], named["induction"]
    whole, alone, every = (pct(ablation[k][1]) for k in ("none", "top", "all"))
    chance = pct(1 / len(ALPHABET))
    scoring = (f"each scoring {pct(PREVIOUS_THRESHOLD)} or more" if PREVIOUS_THRESHOLD == INDUCTION_THRESHOLD
               else f"scoring {pct(PREVIOUS_THRESHOLD)} and {pct(INDUCTION_THRESHOLD)} or more")
    said = (f"This run names {len(prev)} previous-token {'head' if len(prev) == 1 else 'heads'} and {len(ind)} "
            f"induction {'head' if len(ind) == 1 else 'heads'}, {scoring}. On "
            f"{ABLATION_SEQUENCES} fresh sequences, the trained model predicts {whole} of a second copy's "
            "characters, all but its first. ")
    without_prev = (f"Remove its one previous-token head, layer {prev[0][0]}, head {prev[0][1]}, and it predicts "
                    f"{pct(ablation['previous'][1])}: that head has no backup." if len(prev) == 1 else
                    f"Remove all {len(prev)} previous-token heads, and it predicts {pct(ablation['previous'][1])}.")
    if len(ind) == 1:
        return said + (f"Remove its one induction head, layer {l2}, head {h2}, and it predicts {every} (a uniform "
                       f"guess: {chance}): this head does the copying. {without_prev}")
    said += (f"Remove layer {l2}, head {h2} alone, and it still predicts {alone}; remove all {len(ind)} induction "
             f"heads, and {every} (a uniform guess: {chance}). ")
    lost_alone = ablation["none"][1] - ablation["top"][1]
    lost_all = ablation["none"][1] - ablation["all"][1]
    if lost_alone < lost_all / 2:  # one head alone does less than half of what all of them do
        return said + f"The {len(ind)} induction heads share the copying. {without_prev}"
    return said + f"Layer {l2}, head {h2} does most of the copying; the others add the rest. {without_prev}"


def ablation_table(top: tuple[int, int], induction: list, ablation: dict) -> tuple[VGroup, list]:
    """(the table and the induction heads' names below it, [(row key, text drawn)])."""
    rows = [("the whole model", "none"), (f"without layer {top[0]}, head {top[1]}", "top")]
    if len(induction) > 1:
        rows.append((f"without all {len(induction)} induction heads", "all"))
    cells, drawn = [label("", 24), label("copied characters predicted", 24, bold=True)], []
    for name, key in rows:
        drawn.append((key, pct(ablation[key][1])))
        cells += [label(name, 24), label(drawn[-1][1], 28, color=style.HIGHLIGHT, bold=True)]
    table = VGroup(*cells).arrange_in_grid(cols=2, buff=(0.8, 0.4), col_alignments="lr")
    layers = sorted({la for la, _ in induction})
    names = label("induction heads: " + "; ".join(
        f"layer {la}, head{'s' * (sum(x == la for x, _ in induction) > 1)} "
        + ", ".join(str(h) for x, h in induction if x == la) for la in layers), TEXT_FONT, color=style.NOTE_TEXT)
    return VGroup(table, names).arrange(DOWN, buff=0.5), drawn
