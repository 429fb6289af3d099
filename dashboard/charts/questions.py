"""Pure functions: a `Question` and core's traces -> the Altair charts of predict-then-reveal.

- `pick_row`: the row a "focus" question asks about, as clickable cells (its scaled scores:
  what the student predicts from), for a Vega-Lite point selection;
- the reveal charts, one per kind of question (`REVEALS`, by classroom/kinds.py's class), each
  drawing the numbers that decide the answer from the traces of the lessons its kind's
  `reveal_lessons` names: `focus_bars` (the row's weights), `change_bars` (the row before and
  after the change), `blocked_bars` (how many keys each query row may attend to), `film_bars` (each
  layer's highest induction score, for the Watch it learn question: no lesson), `layers_bars` (the
  same for a one-layer and a two-layer run);
- `answers_histogram`: a room's answers per choice, the right ones marked only once revealed.

Each chart carries `usermeta={"lab": name}` (tests read them back) and its table as data. Its type and
height grow with the look (sizing.scaled: the projector's window, in projector mode), whose values the
page sets per session (draw.set_look); a count's axis has whole numbers only.
"""

import textwrap

import altair as alt
import pandas as pd

from animations import style
from classroom import kinds
from classroom.layers_question import FORMED
from core.film import INDUCTION_THRESHOLD
from core.trace import token_labels
from dashboard.charts import sizing
from dashboard.charts.heatmaps import FONT

PICK = "pick"  # the selection parameter of `pick_row`
RIGHT, OTHER = style.VALUE, "#B8B8B8"  # the right choice(s) once revealed; every other bar


TITLE_CHARS = 34  # a title's line: about 300 px at 15 px, in a phone's chart (358 px); Vega never wraps one
LABEL_CHARS = 20  # a choice's label line: about 160 px at 13 px; a longer label is wrapped, never cut ("…")
# A reveal's bars (px, ordinary look): on a projector, beside the class's split, under the truth's sentences, within a
# 1280x720 window (measured with the default deck's longest truth, question 16's)
REVEAL_PX = 170
LINE_PX = 16  # a label line's height at 13 px (ordinary look)
LINES = "split(datum.label, '\\n')"  # a label made of lines (`_wrapped`) drawn as lines: an array is one per line


def _finish(chart, title: str, lab: str, height: int):
    """As wide as the column it is drawn in (a phone, or a projected half screen): st.altair_chart(width="stretch").
    Its height, as its type, grows with the look: a top-level `height` param replaces Vega-Lite's own signal."""
    lines = textwrap.wrap(title, TITLE_CHARS, break_long_words=False) or [title]
    # centred on the whole chart (its axis labels too), not on the plot: a phone has no width to spare
    # limit 0: Vega cuts a title wider than the plot short ("…") by default, and the plot is narrower
    title = alt.TitleParams(lines if len(lines) > 1 else title, font=FONT, fontSize=sizing.scaled(15),
                            frame="bounds", limit=0)
    look = [alt.param(**p) for p in sizing.look_params()]
    return chart.properties(title=title, usermeta={"lab": lab}, width="container", height=height,
                            autosize=alt.AutoSizeParams(type="fit-x", contains="padding")
                            ).add_params(*look, alt.param(name="height", expr=f"{height} * lab_type * lab_fit"))


def _axis(title: str, n: int, angle: int = 0, **kwargs) -> alt.Axis:
    """An axis whose type grows with the look; `kwargs` add to or replace its properties."""
    return alt.Axis(**{"title": title, "labelFontSize": sizing.scaled(13 if n <= 16 else 10),
                       "labelLimit": sizing.scaled(160), "labelAngle": angle, "labelFont": FONT, "titleFont": FONT,
                       "titleFontSize": sizing.scaled(13), **kwargs})


def _count_axis(title: str, most: int) -> alt.Axis:
    """An axis of counts from 0 to `most` (keys, students): whole numbers only, never 0.2 of one. Vega-Lite
    leaves tickMinStep out of the Vega it makes; asking for at most `most` ticks gives a step of 1 or more,
    always a whole number (Vega's steps are 1, 2 or 5 times a power of ten, here never below 1)."""
    return _axis(title, 1, tickCount=alt.ExprRef(f"min(ceil(width / 40), {int(most)})"), format="d")


def _wrapped(text: str) -> str:
    """`text` in lines of at most LABEL_CHARS characters, joined by newlines (drawn as lines by LINES)."""
    return "\n".join(textwrap.wrap(text, LABEL_CHARS) or [text])


def pick_row(question, trace) -> alt.Chart:
    """Row `question.query` of head `question.head`'s scaled scores, one cell per key; a click picks a key."""
    labels = token_labels(trace.tokens)
    h, q = question.head, question.query
    df = pd.DataFrame({"key": labels, "col": range(len(labels)), "scaled": trace.scaled[h, q].astype(float),
                       "blocked": ~trace.mask[q]})
    picked = alt.selection_point(name=PICK, fields=["col"], on="click", clear=False)
    angle = -45 if len(labels) > 8 else 0
    base = alt.Chart(df).encode(x=alt.X("key:N", sort=labels, axis=_axis("key (click one)", len(labels), angle)))
    cells = base.mark_rect(stroke=style.TEXT_DARK).encode(
        color=alt.Color("scaled:Q", scale=alt.Scale(scheme=style.SCORE_SCHEME, domainMid=0),
                        legend=alt.Legend(title="scaled score"),
                        condition={"test": "datum.blocked", "value": style.MASKED}),
        strokeWidth=alt.condition(picked, alt.value(4), alt.value(0)),
        tooltip=[alt.Tooltip("key:N"), alt.Tooltip("scaled:Q", format=".3f")],
    ).add_params(picked)
    layers = [cells]
    if len(labels) <= 12:
        layers.append(base.mark_text(fontSize=sizing.scaled(13), font=FONT, color=style.TEXT_DARK).encode(
            text=alt.Text("scaled:Q", format=".2f")))
    return _finish(alt.layer(*layers), f"row “{labels[q]}”: scaled scores (grey: blocked)", "pick", 56)


def focus_bars(question, trace) -> alt.LayerChart:
    """The row's weights after the softmax; the right key(s) in colour."""
    labels = token_labels(trace.tokens)
    row = trace.weights[question.head, question.query].astype(float)  # (T,)
    df = pd.DataFrame({"key": labels, "col": range(len(labels)), "weight": row,
                       "right": [i in question.answer for i in range(len(labels))]})
    bars = alt.Chart().mark_bar().encode(
        x=alt.X("key:N", sort=labels, axis=_axis("key", len(labels), -45 if len(labels) > 8 else 0)),
        y=alt.Y("weight:Q", scale=alt.Scale(domain=[0, 1]), axis=_axis("weight", 1)),
        color=alt.condition("datum.right", alt.value(RIGHT), alt.value(OTHER)),
        tooltip=["key:N", alt.Tooltip("weight:Q", format=".3f")],
    )
    text = bars.mark_text(dy=-8, font=FONT, fontSize=sizing.scaled(12)).encode(
        text=alt.Text("weight:Q", format=".3f"), color=alt.value(style.TEXT_DARK))
    layers = [bars, text] if len(labels) <= 16 else [bars]
    return _finish(alt.layer(*layers, data=df), f"head {question.head + 1}, row “{labels[question.query]}”: weights",
                   "reveal-focus", REVEAL_PX)


def change_bars(question, before, after) -> alt.Chart:
    """The row's weights before and after the change, side by side per key."""
    h, q = question.head, question.query
    frames = []
    for name, trace in (("before", before), ("after", after)):
        labels = token_labels(trace.tokens)
        frames.append(pd.DataFrame({"lesson": name, "key": labels, "col": range(len(labels)),
                                    "weight": trace.weights[h, q].astype(float)}))
    df = pd.concat(frames, ignore_index=True)
    keys = token_labels(after.tokens if len(after.tokens) > len(before.tokens) else before.tokens)
    chart = alt.Chart(df).mark_bar().encode(
        x=alt.X("key:N", sort=keys, axis=_axis("key", len(keys), -45 if len(keys) > 8 else 0)),
        xOffset=alt.XOffset("lesson:N", sort=["before", "after"]),
        y=alt.Y("weight:Q", scale=alt.Scale(domain=[0, 1]), axis=_axis("weight", 1)),
        color=alt.Color("lesson:N", sort=["before", "after"],
                        scale=alt.Scale(domain=["before", "after"], range=[style.QUERY, style.KEY]),
                        legend=alt.Legend(title=None, orient="top", labelFontSize=sizing.scaled(13))),
        tooltip=["lesson:N", "key:N", alt.Tooltip("weight:Q", format=".3f")],
    )
    return _finish(chart, f"head {h + 1}, row “{token_labels(before.tokens)[q]}”: before and after", "reveal-change",
                   REVEAL_PX)


def blocked_bars(question, view) -> alt.Chart:
    """How many keys each query row may attend to under the mask; a row at 0 is fully blocked."""
    labels = token_labels(view.tokens)
    keys = view.mask.sum(-1).astype(int)  # (T,)
    df = pd.DataFrame({"query": labels, "row": range(len(labels)), "keys": keys, "blocked": keys == 0})
    chart = alt.Chart().mark_bar().encode(
        y=alt.Y("query:N", sort=labels, axis=_axis("query row", len(labels))),
        x=alt.X("keys:Q", scale=alt.Scale(domain=[0, len(labels)]),
                axis=_count_axis("keys it may attend to", len(labels))),
        color=alt.condition("datum.blocked", alt.value(style.MASKED), alt.value(style.QUERY)),
        tooltip=["query:N", "keys:Q"],
    )
    text = chart.mark_text(align="left", dx=4, font=FONT, fontSize=sizing.scaled(13)).encode(
        text="keys:Q", color=alt.value(style.TEXT_DARK))
    return _finish(alt.layer(chart, text, data=df), "keys each query row may attend to (0 = fully blocked)",
                   "reveal-blocked", max(60, 22 * len(labels)))


def film_bars(question) -> alt.Chart:
    """A "film" question's numbers: the highest final induction score in each layer, the threshold
    that names an induction head marked."""
    layers = [f"layer {i + 1}" for i in range(len(question.numbers) - 1)]  # the last number is "no head"'s
    return _induction_bars(layers, question.numbers[:-1], [i in question.answer for i in range(len(layers))],
                           "reveal-film")


def layers_bars(question) -> alt.Chart:
    """A "layers" question's numbers: each run's highest final induction score (one layer, two layers),
    the threshold marked; a run is coloured where the answer says it formed an induction head."""
    return _induction_bars(["one layer", "two layers"], question.numbers[:2], FORMED[question.answer[0]],
                           "reveal-layers")


def _induction_bars(rows: list, scores, right, lab: str) -> alt.Chart:
    df = pd.DataFrame({"layer": rows, "score": [float(x) for x in scores], "right": list(right)})
    bars = alt.Chart().mark_bar().encode(
        y=alt.Y("layer:N", sort=rows, axis=_axis(None, len(rows))),
        x=alt.X("score:Q", scale=alt.Scale(domain=[0, 1]), axis=_axis("highest induction score at the end", 1)),
        color=alt.condition("datum.right", alt.value(RIGHT), alt.value(OTHER)), tooltip=["layer:N", "score:Q"])
    text = bars.mark_text(align="left", dx=4, font=FONT, fontSize=sizing.scaled(13)).encode(
        text=alt.Text("score:Q", format=".2f"), color=alt.value(style.TEXT_DARK))
    rule = alt.Chart().transform_aggregate(rows="count()").mark_rule(color=style.MASKED, strokeDash=[6, 4]).encode(
        x=alt.datum(INDUCTION_THRESHOLD))
    title = f"an induction head: a score of {INDUCTION_THRESHOLD:g} or more"
    return _finish(alt.layer(bars, text, rule, data=df), title, lab, 70)


REVEALS = {kinds.Focus: focus_bars, kinds.Change: change_bars, kinds.Blocked: blocked_bars, kinds.Film: film_bars,
           kinds.Trained: focus_bars, kinds.Layers: layers_bars}


def reveal(question, traces):
    """The chart that decides `question`, from the traces of the lessons its kind's `reveal_lessons` names."""
    return REVEALS[question.kind_class](question, *traces)


def letter(i: int) -> str:
    """The letter of choice `i` (0 = A), as the projector and the phones label a room question's choices."""
    return chr(65 + i) if i < 26 else letter(i // 26 - 1) + chr(65 + i % 26)


ROW_PX, COMPACT_ROW_PX = 26, 18  # an answers chart's row of one line; the presenter view's (13 px labels fit)


def answers_histogram(tally, title: str, top: int = 1, lettered: bool = False, row_px: int = ROW_PX,
                      shares: bool = False) -> alt.LayerChart:
    """Answers per choice (a student who ticks two rows counts in both); right choices marked once revealed.
    The axis runs to `top` (the students present) or further, the same from poll to poll. A long choice's
    label is wrapped into lines (Vega never wraps a label: it cuts it short with "…"). `lettered`: each row
    begins with its choice's letter, as the projector and the phones show it; `shares`: each count's label says
    its share of `top` too."""
    q = tally.question
    right = set(q.answer) if tally.revealed else set()
    rows = [_wrapped(f"{letter(i)}. {c}" if lettered else c) for i, c in enumerate(q.choices)]
    most = max(1, top, *tally.counts)
    df = pd.DataFrame({"choice": list(q.choices), "row": rows, "count": list(tally.counts),
                       "right": [i in right for i in range(len(q.choices))]})
    counted = [f"{n} ({round(100 * n / top)}%)" if shares and top else str(n) for n in tally.counts]
    df["label"] = [f"{n}  ✓ right" if ok else n for n, ok in zip(counted, df["right"], strict=True)]
    bars = alt.Chart().mark_bar().encode(
        y=alt.Y("row:N", sort=rows, axis=_axis(None, len(q.choices), labelExpr=LINES, labelLimit=0)),
        x=alt.X("count:Q", scale=alt.Scale(domain=[0, most]), axis=_count_axis("students", most)),
        color=alt.condition("datum.right", alt.value(RIGHT), alt.value(style.QUERY)),
        tooltip=["choice:N", "count:Q"],
    )
    text = bars.mark_text(align="left", dx=4, font=FONT, fontSize=sizing.scaled(14)).encode(
        text="label:N", color=alt.value(style.TEXT_DARK))
    # every row as tall as the label with the most lines: a band scale gives each row the same height
    row_px += LINE_PX * max(row.count("\n") for row in rows)
    return _finish(alt.layer(bars, text, data=df), title, "answers", max(80, row_px * len(rows)))
