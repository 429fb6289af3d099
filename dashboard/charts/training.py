"""Charts of a training run (the Watch it learn page): numbers a film recorded -> Altair.

Pure, like every chart module: the loss curve with chance and the moment the induction head
forms marked, and each head's measured scores over training; the step under the scrubber is a
vertical rule on both, so the curves and the heads' pictures say the same moment. Given that step,
a chart draws the run up to it and nothing later: a film shown at step 0 (the deck's screen before
its question) must not show where its curves go.
"""

import math

import altair as alt
import numpy as np
import pandas as pd

from animations import style
from core.film import ALPHABET, INDUCTION_THRESHOLD
from dashboard.charts import sizing
from dashboard.charts.lines import finish

CHANCE = math.log(len(ALPHABET))  # the loss of a uniform guess among the 32 symbols
SCORES = {"previous_token": "previous-token score", "induction": "induction score"}


def _one(chart: alt.Chart) -> alt.Chart:
    """A layer drawn once, not once per row of the chart's one table (draw.py ships one table)."""
    return chart.transform_aggregate(rows="count()")


def _rule(step: int, colour: str, label: str | list, total: int) -> list:
    """A vertical rule at `step`, its label on the rule's side with more room, its last line just above the x
    axis: a loss is high where a run starts and still well above 0 soon after the rule's step, so the chart's
    foot beside the rule is free (a label drawn higher up ran into the curve's drop: a fresh-eyes lecturer).
    Labels in the theme's text colour (the rules' are too light for text)."""
    base = _one(alt.Chart())
    left = step > total / 2
    px = sizing.scaled(14)["expr"]
    above = len(label) - 1 if isinstance(label, list) else 0  # Vega stacks a label's lines down from its first
    return [base.mark_rule(color=colour, strokeWidth=2).encode(x=alt.datum(step)),
            base.mark_text(align="right" if left else "left", baseline="bottom", dx=-4 if left else 4,
                           dy={"expr": f"-4 - {above} * 1.2 * ({px})"}, lineHeight={"expr": f"1.2 * ({px})"},
                           font=style.FONT, fontSize={"expr": px}, text=label).encode(
                x=alt.datum(step), y=alt.datum(0))]


def _shown(colour: str = style.KEY) -> alt.Chart:
    """The rule at the step under the scrubber, read from the table's `at` column: the spec stays the
    same while a film plays, so the browser swaps the data in place instead of rebuilding the chart."""
    return alt.Chart().transform_aggregate(at="max(at)").mark_rule(color=colour, strokeWidth=3).encode(x="at:Q")


def _level(y: float, colour: str, label: str = "", left: bool = False) -> list:
    """A dashed horizontal rule at `y`, labelled above it at the right (or below it at the `left`)."""
    base = _one(alt.Chart())
    layers = [base.mark_rule(color=colour, strokeDash=[6, 4]).encode(y=alt.datum(y))]
    if label:
        layers.append(base.mark_text(align="left" if left else "right", baseline="top" if left else "bottom",
                                     dy=3 if left else -3, dx=4 if left else 0, x=0 if left else "width",
                                     font=style.FONT, fontSize=sizing.scaled(14), text=label).encode(y=alt.datum(y)))
    return layers


def _until(at: int | None, steps, values) -> tuple[np.ndarray, np.ndarray]:
    """`steps` and `values` (one per step) cut to the steps at or before `at` (all of them when `at` is None)."""
    steps = np.asarray(steps, dtype=int)
    keep = np.ones(len(steps), dtype=bool) if at is None else steps <= at
    return steps[keep], np.asarray(values, dtype=float)[keep]


def accuracy_name(task: str) -> str:
    """What a film's accuracy is called: of the copy (induction: only the copy is scored), or of the next letter."""
    return "copy accuracy" if task == "induction" else "next-letter accuracy"


def loss_chart(steps, losses, total: int, at: int | None = None, formed: int | None = None,
               counting: float | None = None, height: int = 260) -> alt.Chart:
    """Training loss per step (steps 1..), chance (ln 32) dashed; `formed`: the step at which the
    first induction score reached the threshold, marked once `at` has reached it; `at`: the step under
    the scrubber (an orange rule), the last one drawn; `counting`: the loss of counting the letters seen
    so far (core.learn_tasks.counts_loss), dashed."""
    losses = np.asarray(losses, dtype=float)
    # the scale from the whole run's losses: the same spec at every step, so a playing film swaps data only
    top = max(CHANCE, float(np.nanmax(losses)) if losses.size else CHANCE) * 1.08
    steps, losses = _until(at, steps, losses)
    df = pd.DataFrame({"step": steps, "loss": losses, "at": -1 if at is None else at})
    x = alt.X("step:Q", title="training step", scale=alt.Scale(domain=[0, total], nice=False))
    y = alt.Y("loss:Q", title="loss (nats)", scale=alt.Scale(domain=[0, top], nice=False))
    line = alt.Chart().mark_line(color=style.QUERY, strokeWidth=2).encode(
        x=x, y=y, tooltip=["step:Q", alt.Tooltip("loss:Q", format=".3f")])
    layers = [line, *_level(CHANCE, style.MASKED, f"chance: ln 32 = {CHANCE:.2f}")]
    if counting is not None:
        # at the left, below: the one place a curve near counting's level leaves free (it starts at chance)
        layers += _level(counting, style.VALUE, f"counting: {counting:.2f}", left=True)
    if formed is not None and (at is None or formed <= at):
        # in short lines: one line ran past a phone's chart (390 px) on either side of the rule
        label = [f"step {formed}:", "first induction", f"score ≥ {INDUCTION_THRESHOLD:g}"]
        layers += _rule(formed, style.OUTPUT, label, total)
    if at is not None:
        layers.append(_shown())
    chart = alt.layer(*layers, data=df).properties(height=height)
    return finish(chart, "Loss while it learns", height=height, lab="learn-loss")


def scores_chart(snapshots, scores: np.ndarray, what: str, total: int, at: int | None = None,
                 height: int = 220) -> alt.Chart:
    """One line per head: its `what` score (previous_token | induction) at each snapshot up to `at`
    (the step under the scrubber); the threshold that names a head dashed."""
    snapshots = np.asarray(snapshots, dtype=int)
    keep = np.ones(len(snapshots), dtype=bool) if at is None else snapshots <= at
    snapshots, scores = snapshots[keep], np.asarray(scores)[keep]  # (K,), (K, L, H)
    K, L, H = scores.shape
    df = pd.DataFrame({"step": np.repeat(snapshots, L * H),
                       "head": [f"L{la + 1} H{h + 1}" for _ in range(K) for la in range(L) for h in range(H)],
                       "score": scores.reshape(-1).astype(float), "at": -1 if at is None else at})
    line = alt.Chart().mark_line(point=alt.OverlayMarkDef(size=18)).encode(
        x=alt.X("step:Q", title="training step", scale=alt.Scale(domain=[0, total], nice=False)),
        y=alt.Y("score:Q", title=SCORES[what], scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("head:N", title="layer, head", legend=alt.Legend(orient="bottom", columns=4)),
        tooltip=["head:N", "step:Q", alt.Tooltip("score:Q", format=".2f")])
    layers = [line, *_level(INDUCTION_THRESHOLD, style.MASKED)]
    if at is not None:
        layers.append(_shown())
    chart = alt.layer(*layers, data=df).properties(height=height)
    return finish(chart, SCORES[what].capitalize() + " per head", height=height, lab=f"learn-{what}")


def accuracy_chart(steps, accuracy, total: int, task: str, at: int | None = None) -> alt.Chart:
    """The share of the scored tokens predicted right, per step (0..1): `accuracy_name(task)`, up to `at`
    (the step under the scrubber)."""
    name = accuracy_name(task)
    steps, accuracy = _until(at, steps, accuracy)
    df = pd.DataFrame({"step": steps, "accuracy": accuracy, "at": -1 if at is None else at})
    line = alt.Chart().mark_line(color=style.QUERY, strokeWidth=2).encode(
        x=alt.X("step:Q", title="training step", scale=alt.Scale(domain=[0, total], nice=False)),
        y=alt.Y("accuracy:Q", title=name, scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%")),
        tooltip=["step:Q", alt.Tooltip("accuracy:Q", format=".1%")])
    layers = [line, _shown()] if at is not None else [line]
    chart = alt.layer(*layers, data=df).properties(height=260)
    return finish(chart, name.capitalize() + " while it learns", height=260, lab="learn-accuracy")
