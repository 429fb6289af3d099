"""The trained model in the students' handout: what the Trained heads page shows of the sentence it reads, from
core's numbers. Its grid of every head (dashboard/charts/model_view.py on the page) as one picture, and the norm
view of one head (dashboard/app_pages/trained_norms.py): its weights beside the share of what each key passes on
(core.head_norms, the page's numbers), with the value lengths and, for the word piece the screen picks, its row.

A screen names what it shows as the page reads it from a link: the sentence (the view's `sentence`, else the
lesson's text, else the page's default sentence), the model (`model`, the built-in MiniLM by default), the layer
and the head (`layer`, `head`, from 1; 1 where a value is out of range, as the page's buttons take it) and the word
piece (`piece`, from 1: the page's picked piece, none by default).
"""

import html

import numpy as np

from classroom import handout_chart as chart
from classroom.handout_text import number
from classroom.trained_question import said
from core import head_norms, trained_trace, value_norms
from core.errors import ConfigError
from core.guided_heads import EXAMPLE
from core.minilm import MINILM
from core.trace import token_labels

e = html.escape
SENTENCE_SOURCES = ("text", "trained")  # a lesson whose text the page reads (others: its default sentence)
NORM_WORDS = ("Left: its weights α_ij. Right: each weight times ‖f(x_j)‖, divided by its row's sum, so that both maps "
              "read on one 0..1 scale: the share of what query i receives that comes from key j. A column brighter on "
              "the left than on the right gets weight but passes on little.")


class ModelView:
    """Every head of every layer on the sentence, a small map each, in one picture (a PNG: `chart.raster`)."""

    name = "model-view"

    @staticmethod
    def key(s) -> tuple:
        return model_of(s), sentence(s)

    @staticmethod
    def html(s, film_of) -> str:
        try:
            trace = trained_trace(sentence(s), model=model_of(s))
        except (ConfigError, OSError, RuntimeError, ValueError) as err:  # the model is not installed here
            return f'<p class="meta">The lab could not compute this screen here: {e(str(err))}</p>'
        L, H = trace.num_layers, trace.num_heads
        said = (f"Every head of {e(trace.model)} ({L} layers × {H} heads) reading “{e(trace.text)}”: each small map "
                f"is one head's weights, a row per word piece asking and a column per word piece it looks at, all on "
                f"one 0..1 colour scale.")
        spec = chart.grid_spec(trace.weights, f"Every head of {trace.model}: {L} layers × {H} heads")
        alt = f"{L} rows of {H} maps: the weights of every head of {e(trace.model)} on the sentence"
        return f'<p class="lesson">{said}</p>{_pieces(trace.tokens)}{chart.raster(spec, alt)}'


class NormView:
    """One head's weights beside what each key passes on (Kobayashi et al. 2020), with the numbers."""

    name = "norm-view"

    @staticmethod
    def key(s) -> tuple:
        return model_of(s), sentence(s), *dict(s.view).items()

    @staticmethod
    def html(s, film_of) -> str:
        if model_of(s):  # the page's rule: the norm view reads MiniLM's value and output projections
            return f'<p class="meta">The norm view is drawn for {e(MINILM.name)} only, as on the lab\'s page.</p>'
        try:
            trace = trained_trace(sentence(s))
        except (ConfigError, OSError, RuntimeError, ValueError) as err:
            return f'<p class="meta">The lab could not compute this screen here: {e(str(err))}</p>'
        layer, head = (_view_number(s, name, count) for name, count in (("layer", trace.num_layers),
                                                                         ("head", trace.num_heads)))
        view = head_norms(trace.weights, value_norms(trace.layers), layer, head)
        labels = token_labels(trace.tokens)
        every = np.ones(view.weights.shape, dtype=bool)  # no key is blocked
        maps = [chart.weights_spec(labels, values, every, title, 320, what) for values, title, what in
                ((view.weights, "weights α_ij", "weight"), (view.shares, "share of ‖α_ij f(x_j)‖ in row i", "share"))]
        alt = f"Layer {layer}, head {head}: its weights beside the share of what each key passes on"
        piece = _view_number(s, "piece", len(labels), default=0)
        return (f'<p class="lesson">Layer {layer}, head {head} of {e(trace.model)} reading {e(said(trace.text))} '
                f"{NORM_WORDS}</p>{_lengths(view.lengths)}"
                f"{chart.image(chart.side_by_side(*maps), alt)}{_row(s.number, view, trace.tokens, labels, piece)}")


def sentence(s) -> str:
    """The sentence the page reads on this screen."""
    view = dict(s.view)
    if "sentence" in view:
        return view["sentence"]
    return s.lesson.text if s.lesson.source in SENTENCE_SOURCES else EXAMPLE


def model_of(s) -> str:
    """The model the screen names ("": the built-in MiniLM)."""
    return dict(s.view).get("model", "")


def _view_number(s, name: str, count: int, default: int = 1) -> int:
    value = dict(s.view).get(name, "")
    return int(value) if value.isdigit() and 1 <= int(value) <= count else default


def _pieces(tokens: list) -> str:
    return f'<p>Word pieces: <span class="tokens">{", ".join(e(t) for t in tokens)}</span></p>'


def _lengths(lengths) -> str:
    """The page's caption: how long [CLS]'s and [SEP]'s transformed values are beside the word pieces'."""
    words = lengths[1:-1]
    return (f"<p>Here ‖f(x)‖ is {number(lengths[0])} for [CLS], {number(lengths[-1])} for [SEP] and "
            f"{number(words.min())} to {number(words.max())} for the word pieces (their mean is "
            f"{number(words.mean() / lengths[0])} times [CLS]'s).</p>")


def _row(screen: int, view, tokens: list, labels: list, piece: int) -> str:
    """Each key's ‖f(x_j)‖ and, for the word piece the screen picks (from 1, as the page's pills and the maps'
    labels number them; 0: none), its row of both maps."""
    columns = ["‖f(x_j)‖"]
    if piece:
        who = f"“{e(tokens[piece - 1])}”"
        columns += [f"weight α from {who}", f"share of what {who} receives"]
    head = "".join(f'<th scope="col">{c}</th>' for c in ["key", *columns])
    rows = ""
    for j, label in enumerate(labels):
        values = [view.lengths[j]]
        if piece:
            values += [view.weights[piece - 1, j], view.shares[piece - 1, j]]
        rows += f'<tr><th scope="row">{e(label)}</th>{"".join(f"<td>{number(v)}</td>" for v in values)}</tr>'
    caption = f"Word piece {piece}, “{e(tokens[piece - 1])}”: its row of both maps" if piece else "Each key's ‖f(x_j)‖"
    return (f'<table class="numbers" data-lab="norms" data-screen="{screen}"><caption>{caption}</caption>'
            f"<tr>{head}</tr>{rows}</table>")
