"""The students' handout of a deck: one self-contained HTML file that opens offline.

It holds each screen of the deck with its title, what the deck's `handout` field says of it (never the
teacher's `notes`), the formulas of its topic (MathML, classroom/handout_text.py), the numbers of its lesson
as `core.run_trace` gives them (tables rounded to 3 decimals, and a heatmap as an SVG image drawn offline by
vl-convert, classroom/handout_chart.py), what the projector shows of the trained model and of a training film
(classroom/handout_trained.py, classroom/handout_film.py), and a reading list.

A deck is a file a teacher may share, so every string it holds is HTML-escaped here (its texts' declared
Markdown, classroom/deck_text.py, becomes a few tags around escaped text; a link its words), and the page loads
nothing: no script, no font, no image but data: URIs, with a Content-Security-Policy that says so.
"""

import html
from pathlib import Path

from classroom import handout_chart as chart
from classroom.changes import apply_change, describe_change
from classroom.deck_text import html_blocks, inline_html, words
from classroom.decks import Deck, Screen
from classroom.films.store import FilmStore
from classroom.handout_film import FilmRun
from classroom.handout_question import question_html
from classroom.handout_slides import slide_html
from classroom.handout_text import CSP, DECIMALS, FORMULAS, READING, STYLE, number
from classroom.handout_trained import ModelView, NormView
from classroom.handout_transcript import Transcripts, counted, transcript_html
from classroom.screens import screen_kind
from core.analysis import saturation
from core.config import AttentionConfig
from core.errors import ConfigError
from core.lesson import run_trace, with_mask
from core.trace import token_labels
from jobs import media_dir

__all__ = ["build_handout", "write_handout"]

CAPTIONS = {"scaled": "Scores ÷ √d_k (÷ temperature)", "masked": "Scores after the mask (−∞ = blocked)",
            "weights": "Weights (each row sums to 1)", "mixed": "Output of the head: weights · V"}
UNMASKED = "Scores (this lesson's mask blocks no key)"
SATURATION_DK = (4, 16, 64, 256, 1024)  # the key sizes the handout's √d_k table compares
# The most lessons and views (VIEWS) one handout computes and draws: the default deck has 13; a hostile deck of 200
# screens, each a different 64-token lesson or sentence, would otherwise take minutes and tens of MB.
MAX_LESSONS = 24
e = html.escape  # every deck string goes through it, quotes included


def build_handout(deck: Deck, film_of=None, transcripts: Transcripts | None = None) -> str:
    """The handout of `deck` as one HTML document. `film_of(settings)`: the training film of those settings or
    None (by default the films on disk, under ATTENTION_LAB_MEDIA: a handout never trains one); `transcripts`:
    the videos' captions (classroom/handout_transcript.py; without it, the handout says it has none)."""
    film_of = film_of if film_of is not None else FilmStore(media_dir()).load
    said = counted(deck.screens, transcripts)
    seen: dict = {}  # (lesson key, head, tables) -> the first screen that showed those numbers
    screens = "".join(_screen(s, seen, film_of, said) for s in deck.screens)
    contents = "".join(f'<li><a href="#screen-{s.number}">{inline_html(s.title)}</a></li>' for s in deck.screens)
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{e(words(deck.title))}: handout</title><style>{STYLE}</style></head><body>"
            f"<header><h1>{inline_html(deck.title)}</h1>{_paragraphs(deck.about, 'about')}"
            f'<p class="meta">{len(deck.screens)} screens, {deck.minutes:g} minutes planned. Every number in a '
            f"table here was computed by the lab (attention-lab's core) for the lesson a screen names, and is "
            f"rounded to {DECIMALS} decimals; a transcript quotes its video's narration as spoken.</p></header>"
            f"<nav><h2>Contents</h2><ol>{contents}<li><a href=\"#reading\">Reading list</a></li></ol></nav>"
            f"<main>{screens}</main>{_reading()}</body></html>\n")


def write_handout(deck: Deck, path, transcripts: Transcripts | None = None) -> Path:
    """Write the handout to `path` (beside it first, then renamed: a reader never sees half a file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    aside = path.with_name(f".{path.name}.partial")
    aside.write_text(build_handout(deck, transcripts=transcripts), encoding="utf-8")
    aside.replace(path)
    return path


def _screen(s: Screen, seen: dict, film_of, said) -> str:
    formulas, tables = _topic(s)
    body = slide_html(s) + _paragraphs(s.handout, "note")
    if s.kind == "question":  # what the projector asked, then the answer and its reason
        body += question_html(s, film_of)
    if s.kind in ("scene", "video"):  # what the narrator says, as the captions show it
        body += transcript_html(s, said)
    body += "".join(FORMULAS[f] for f in formulas)
    body += "".join(_drawn(VIEWS[t], s, film_of, seen) for t in tables if t in VIEWS)
    lesson_tables = tuple(t for t in tables if t not in VIEWS)
    if s.unready:  # its lesson is a stand-in (decks.Screen): the words of a lesson the lab cannot compute here
        body += f'<p class="meta">The lab could not compute this lesson here: {e(s.unready)}</p>'
    elif lesson_tables:
        shown, why = _shown(s)
        body += (f'<p class="lesson">{e(why)}</p>' if why else "") + _lesson(s, shown, lesson_tables, seen)
    if s.kind == "question" and s.change:  # the reveal: the same row after the change (drawn changes: the lab's)
        after = apply_change(s.lesson, s.change)  # checked when the deck was read
        body += f'<p class="lesson">After the change: {e(describe_change(s.lesson, s.change))}.</p>'
        body += _lesson(s, after, lesson_tables, seen)
    return (f'<section class="screen" id="screen-{s.number}"><h2><span class="number">{s.number}</span>'
            f'{inline_html(s.title)}</h2><p class="meta">{_where(s)} · {s.minutes:g} min</p>{body}</section>')


def _shown(s: Screen) -> tuple[AttentionConfig, str]:
    """The lesson whose numbers a screen shows, and why when it is not the screen's own: a blocked question's
    lesson under the mask it asks about (what its reveal draws); the masking video's lesson under a causal mask
    when it has none (the video's rule, animations/scenes/masking.py, by core.lesson.with_mask as there)."""
    if s.kind == "question" and s.question == "blocked" and s.mask and s.mask != s.lesson.mask:
        return (apply_change(s.lesson, f"mask:{s.mask}"),
                f"The question asks about another mask: {describe_change(s.lesson, f'mask:{s.mask}')}.")
    if s.kind in ("scene", "video") and s.scene == "masking" and s.lesson.mask == "none":
        return with_mask(s.lesson, "causal"), "This lesson has no mask, so the video applies a causal one."
    return s.lesson, ""


def _topic(s: Screen) -> tuple:
    return screen_kind(s.kind).topic(s)


def _where(s: Screen) -> str:
    """What the screen is in the lab, in words (escaped)."""
    return e(screen_kind(s.kind).where(s))


def _head(s: Screen) -> int:
    """The head the screen shows (0-based): a question's own, or the page's view 'head' (1-based there)."""
    if s.kind == "question":
        return s.head
    view = dict(s.view).get("head", "1")
    return int(view) - 1 if view.isdigit() and 1 <= int(view) <= s.lesson.num_heads else 0


def _held(seen: dict, key: tuple, number: int, what: str) -> str:
    """"" where screen `number` prints what `key` names; else where it is instead: on the first screen that
    printed it, or in the lab once the handout holds MAX_LESSONS of them."""
    if len(seen) >= MAX_LESSONS and key not in seen:
        return f'<p class="meta">The lab shows {what} (a handout prints {MAX_LESSONS} lessons).</p>'
    first = seen.setdefault(key, number)
    if first != number:
        return f'<p class="meta">{what[0].upper()}{what[1:]} are on <a href="#screen-{first}">screen {first}</a>.</p>'
    return ""


def _drawn(view, s: Screen, film_of, seen: dict) -> str:
    """What a view of VIEWS draws of the screen, or where it is drawn instead (`_held`)."""
    return _held(seen, (view.name, *view.key(s)), s.number, "this screen's charts and numbers") or view.html(s, film_of)


def _lesson(s: Screen, cfg: AttentionConfig, tables: tuple, seen: dict) -> str:
    head = min(_head(s), cfg.num_heads - 1)  # "heads/2" may leave fewer heads than the question's
    held = _held(seen, (cfg.key(), head, tables), s.number, "this lesson's numbers")
    if held:
        return held
    try:
        trace = run_trace(cfg)
    except (ConfigError, OSError, RuntimeError, ValueError) as err:  # a trained model that is not installed
        return f'<p class="meta">The lab could not compute this lesson here: {e(str(err))}</p>'
    labels = token_labels(trace.tokens)
    out = _describe(cfg, trace, head, labels)
    if len(labels) > chart.NUMBERS_UP_TO:
        out += f'<p class="meta">{len(labels)} tokens: too many to print; the chart shows them all.</p>'
    else:
        out += "".join(_table(s.number, head, t, labels, trace) for t in tables)
    title = f"Weights, head {head + 1} of {trace.num_heads}"
    spec = chart.weights_spec(labels, trace.weights[head], trace.mask, title)
    return out + chart.image(spec, f"{e(title)}: a heatmap of the lesson's weights")


def _describe(cfg: AttentionConfig, trace, head: int, labels: list) -> str:
    source = {"manual": "Q, K and V entered by hand", "trained": "a trained model's weights"}.get(
        cfg.source, f"random weights (seed {cfg.seed}), not trained")
    heads = f"{trace.num_heads} head{'s' if trace.num_heads > 1 else ''}"
    settings = [f"d_model {cfg.d_model}", f"{heads} (d_k {trace.d_k})", f"mask {e(cfg.mask)}",
                f"positions {e(cfg.positional)}", "scores ÷ √d_k" if cfg.scale else "no ÷ √d_k",
                f"temperature {cfg.temperature:g}", source]
    tokens = ", ".join(e(label) for label in labels)
    return (f'<p class="lesson">Lesson: {" · ".join(settings)}. Shown: head {head + 1}.</p>'
            f'<p>Tokens: <span class="tokens">{tokens}</span></p>')


def _table(screen: int, head: int, name: str, labels: list, trace) -> str:
    values = trace.heads[head] if name == "mixed" else getattr(trace, name)[head]  # (T, d_k) or (T, T)
    columns = [e(label) for label in labels] if name != "mixed" else [f"dim {j + 1}" for j in range(values.shape[1])]
    head_row = "<tr><th>query \\ key</th>" if name != "mixed" else "<tr><th>query</th>"
    head_row += "".join(f'<th scope="col">{c}</th>' for c in columns) + "</tr>"
    rows = "".join(f'<tr><th scope="row">{e(label)}</th>{"".join(f"<td>{number(x)}</td>" for x in row)}</tr>'
                   for label, row in zip(labels, values, strict=True))
    caption = CAPTIONS[name] if name != "masked" or not trace.mask.all() else UNMASKED
    return (f'<table class="numbers" data-lab="{name}" data-screen="{screen}" data-head="{head}">'
            f"<caption>{caption}, head {head + 1}</caption>{head_row}{rows}</table>")


class Saturation:
    """Why √d_k, in core's numbers (the why-scale page's chart)."""

    name = "saturation"

    @staticmethod
    def key(s) -> tuple:
        return ()  # the same measurement on every screen

    @staticmethod
    def html(s, film_of) -> str:
        return _saturation()


# The views a topic's table may name (classroom/catalogue.py), drawn beside or instead of a lesson's numbers: each
# a class with its `name`, a `key(screen)` that names what it draws (drawn once per handout) and `html(screen,
# film_of)`.
VIEWS = {view.name: view for view in (Saturation, ModelView, NormView, FilmRun)}


def _saturation() -> str:
    """Why √d_k, in core's numbers: a query's largest weight over 16 random keys, with and without the scale."""
    runs = {label: saturation(SATURATION_DK, scaled=scaled)["max_weight"]
            for label, scaled in (("÷ √d_k", True), ("no ÷ √d_k", False))}
    rows = "".join(f"<tr><th scope=\"row\">{d}</th>{''.join(f'<td>{number(runs[k][i])}</td>' for k in runs)}</tr>"
                   for i, d in enumerate(SATURATION_DK))
    title = "Largest weight of a row, 16 random keys, 20 seeds"
    spec = chart.lines_spec(list(SATURATION_DK), runs, "d_k", "largest weight", title)
    return (f'<table class="numbers" data-lab="saturation"><caption>{title}</caption><tr><th>d_k</th>'
            f"{''.join(f'<th scope=col>{k}</th>' for k in runs)}</tr>{rows}</table>"
            + chart.image(spec, f"{title}, with and without the scale"))


def _paragraphs(text: str, css: str) -> str:
    """A deck's text as HTML (classroom/deck_text.py's declared Markdown, every character escaped): a blank
    line starts a paragraph, a single line break (a TOML string wrapped in the file) is a space; a heading
    of the text sits below the screen's <h2>."""
    inner = html_blocks(text, top=3)
    return f'<div class="{css}">{inner}</div>' if inner else ""


def _reading() -> str:
    items = []
    for authors, year, title, where, link in READING:
        when = f" ({year})" if year else ""
        address = f' <a href="{e(link)}">{e(link)}</a>' if link else ""
        stop = "" if title.endswith(("?", "!")) else "."  # "Better than One?", never "One?."
        items.append(f"<li>{e(authors)}{when}. <cite>{e(title)}</cite>{stop} {e(where)}{address}</li>")
    return f'<section class="reading" id="reading"><h2>Reading list</h2><ol>{"".join(items)}</ol></section>'
