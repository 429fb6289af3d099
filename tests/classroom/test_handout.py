"""The students' handout (classroom/handout.py): its numbers against PyTorch and hand-computed softmaxes,
nothing loaded from outside the file, every deck string escaped, the teacher's notes left out."""

import base64
import html
import math
import re
from html.parser import HTMLParser
from xml.etree import ElementTree

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from animations import style
from classroom import handout, handout_chart
from classroom.catalogue import PAGES
from classroom.decks import parse_deck
from classroom.handout import build_handout
from classroom.handout_text import READING
from classroom.kinds import KINDS
from classroom.screens import QUESTION_TOPICS, SCENE_TOPICS
from core import run_trace
from core.presets import PRESETS

TOLERANCE = 0.5e-3 + 1e-9  # the handout prints 3 decimals


class Page(HTMLParser):
    """The handout as a test reads it: its tables' cells (by data-lab and data-screen), every tag with its
    attributes, and the text inside each kind of element."""

    def __init__(self, text: str):
        super().__init__()
        self.tags, self.tables, self._table, self._cell, self._row = [], {}, None, None, None
        self.stack, self.text_in = [], {}
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag not in ("meta", "img", "mspace", "br"):
            self.stack.append(tag)
        if tag == "table":
            self._table = []  # a screen may print a lab twice: before and after a question's change
            self.tables.setdefault((attrs.get("data-lab"), attrs.get("data-screen")), []).append(self._table)
        elif tag == "tr" and self._table is not None:
            self._row = []
            self._table.append(self._row)
        elif tag in ("td", "th") and self._row is not None:
            self._cell = ""

    def handle_endtag(self, tag):
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()
        if tag in ("td", "th") and self._cell is not None:
            self._row.append((tag, self._cell))
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data
        for tag in set(self.stack):
            self.text_in[tag] = self.text_in.get(tag, "") + data

    def numbers(self, lab: str, screen: int, which: int = 0) -> np.ndarray:
        """The `which`-th such table's <td> cells as numbers (−∞ as -inf)."""
        rows = [[cell for kind, cell in row if kind == "td"] for row in self.tables[(lab, str(screen))][which]]
        return np.array([[float(c.replace("−∞", "-inf").replace("−", "-")) for c in row] for row in rows if row])


@pytest.fixture(scope="module")
def deck(deck_names):
    from classroom.decks import default_deck

    return default_deck(deck_names)


@pytest.fixture(scope="module")
def written(deck) -> str:
    return build_handout(deck)


@pytest.fixture(scope="module")
def page(written) -> Page:
    return Page(written)


def screen_of(deck, title: str) -> int:
    return next(s.number for s in deck.screens if s.title == title)


def test_the_worked_example_prints_the_softmax_of_the_article_computed_by_hand(deck, page):
    """Q = K = I, V = diag(10, 20), d_k = 2: a token's own score is 1/√2, the other's 0."""
    n = screen_of(deck, "The article's worked example")
    own = 1 / (1 + math.exp(-1 / math.sqrt(2)))  # 0.6698...
    assert np.abs(page.numbers("weights", n) - [[own, 1 - own], [1 - own, own]]).max() <= TOLERANCE
    q = k = torch.eye(2)[None]  # (1, T, d)
    v = torch.tensor([[10.0, 0.0], [0.0, 20.0]])[None]
    assert np.abs(page.numbers("mixed", n) - F.scaled_dot_product_attention(q, k, v)[0].numpy()).max() <= TOLERANCE


def test_the_default_lessons_weights_are_pytorchs_sdpa_of_its_queries_and_keys(deck, page):
    """The first screen of the default lesson: its weights table against F.scaled_dot_product_attention
    given core's q and k (V = I makes its output the weights)."""
    s = next(s for s in deck.screens if s.lesson == PRESETS["default"] and ("weights", str(s.number)) in page.tables)
    trace = run_trace(s.lesson)
    q, k = (torch.from_numpy(a[:1]).double() for a in (trace.q, trace.k))  # head 1: (1, T, d_k)
    eye = torch.eye(q.shape[1], dtype=torch.float64)[None]
    expected = F.scaled_dot_product_attention(q, k, eye)[0].numpy()
    assert np.abs(page.numbers("weights", s.number) - expected).max() <= TOLERANCE


def test_a_change_questions_reveal_is_pytorchs_sdpa_without_the_scale(deck, page):
    """"Switch the scale off": after the change, the weights are softmax(q·kᵀ) with no ÷√d_k."""
    s = next(s for s in deck.screens if s.change == "scale:off")
    trace = run_trace(s.lesson)
    q, k = (torch.from_numpy(a[s.head:s.head + 1]).double() for a in (trace.q, trace.k))  # (1, T, d_k)
    eye = torch.eye(q.shape[1], dtype=torch.float64)[None]
    expected = F.scaled_dot_product_attention(q, k, eye, scale=1.0)[0].numpy()
    assert np.abs(page.numbers("weights", s.number, which=-1) - expected).max() <= TOLERANCE


def test_the_masking_screen_prints_minus_infinity_and_the_articles_causal_weights(deck, page):
    """The article's masking listing: all scores 0 under a causal mask, so row i shares its weight
    equally among the i keys it may see."""
    n = screen_of(deck, "Masking")
    masked = page.numbers("masked", n)
    assert np.isneginf(masked[np.triu_indices(4, 1)]).all() and (masked[np.tril_indices(4)] == 0).all()
    expected = np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None]
    assert np.abs(page.numbers("weights", n) - expected).max() <= TOLERANCE


def test_the_blocked_question_prints_the_padding_mask_it_asks_about(deck, page):
    """Screen 12 asks which rows are fully blocked under the padding lesson's own mask (three words, three PAD
    tokens): the handout prints that mask's scores, where every row sees the three words and no PAD key, so no
    row is all −∞, and says of no other mask."""
    s = next(s for s in deck.screens if s.question == "blocked")
    masked = page.numbers("masked", s.number)
    T = masked.shape[0]
    assert s.lesson.mask == s.mask == "padding" and T == len(s.lesson.tokens) == 6
    allowed = np.zeros((T, T), bool)
    allowed[:, :3] = True  # every query may attend to the three words, none to a PAD
    assert np.isneginf(masked[~allowed]).all() and np.isfinite(masked[allowed]).all()
    assert "The question asks about another mask" not in page.text_in["p"]


def test_the_masking_videos_screen_prints_the_causal_mask_the_video_applies(deck, page):
    """Screen 11 (the masking video's −∞ step) names the default lesson, which has no mask: the video applies a
    causal one, and so does the handout; no table is captioned with a mask that blocks nothing."""
    s = next(s for s in deck.screens if s.kind == "scene" and s.scene == "masking")
    assert s.lesson.mask == "none"
    masked = page.numbers("masked", s.number)
    T = masked.shape[0]
    assert np.isneginf(masked[np.triu_indices(T, 1)]).all() and np.isfinite(masked[np.tril_indices(T)]).all()
    weights = page.numbers("weights", s.number)
    assert (weights[np.triu_indices(T, 1)] == 0).all() and weights[0, 0] == 1.0
    assert "This lesson has no mask, so the video applies a causal one." in page.text_in["p"]
    for (lab, _), tables in page.tables.items():  # "−∞ = blocked" only above a table with a −∞ in it
        if lab == "masked":
            assert all("−∞" in str(t) or "blocks no key" in str(t) for t in tables)


def test_nothing_is_loaded_from_outside_the_file(page):
    """Images are data: URIs (an SVG drawn as an image runs and loads nothing; the grid of every head is a PNG);
    no script, stylesheet link, frame or CSS url(); the only addresses are the reading list's links, which load
    nothing; and the page's Content-Security-Policy forbids the rest."""
    tags = {tag for tag, _ in page.tags}
    assert not tags & {"script", "link", "iframe", "object", "embed", "audio", "video", "source", "base"}
    sources = [attrs.get("src", "") for tag, attrs in page.tags if "src" in attrs]
    assert sources and all(src.startswith(("data:image/svg+xml;base64,", "data:image/png;base64,")) for src in sources)
    hrefs = [attrs["href"] for tag, attrs in page.tags if "href" in attrs]
    outside = [h for h in hrefs if not h.startswith("#")]
    assert sorted(outside) == sorted(link for *_, link in READING if link)
    assert "url(" not in page.text_in.get("style", "")
    csp = next(a["content"] for t, a in page.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    assert "default-src 'none'" in csp and "img-src data:" in csp and "script-src" not in csp


def test_every_screen_and_every_formula_reaches_the_handout(deck, page):
    ids = {attrs.get("id") for _, attrs in page.tags}
    assert all(f"screen-{s.number}" in ids for s in deck.screens)
    assert sum(tag == "math" for tag, _ in page.tags) >= 10
    assert sum(tag == "img" for tag, _ in page.tags) >= 5


def test_the_reading_list_names_the_article_and_the_six_papers(page):
    text = page.text_in["section"]
    for title in ("Transformer Architecture and the Self-Attention Mechanism", "Attention Is All You Need",
                  "A Mathematical Framework for Transformer Circuits", "In-context Learning and Induction Heads",
                  "What Does BERT Look At? An Analysis of BERT's Attention",
                  "Attention is Not Only a Weight: Analyzing Transformers with Vector Norms",
                  "Attention is not Explanation"):
        assert title in text
    assert "Ashok Kumar Yadav" in text and "Vaswani" in text and "Jain, Byron C. Wallace (2019)" in text


HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>&amp;'
DECK = f'''
title = {HOSTILE!r}
about = {HOSTILE!r}

[[screen]]
kind = "page"
title = {HOSTILE!r}
minutes = 2
page = "masking"
lesson = {{ text = "<b>bold</b> <script>x</script> &lt;", mask = "causal" }}
notes = "TEACHER ONLY: the answer is 3"
handout = {HOSTILE!r}

[[screen]]
kind = "question"
title = "A question, no handout"
minutes = 1
question = "focus"
'''


@pytest.fixture(scope="module")
def hostile(deck_names) -> tuple[str, Page]:
    text = build_handout(parse_deck(DECK, "hostile.toml", deck_names))
    return text, Page(text)


def test_a_hostile_decks_strings_are_shown_as_text_never_as_markup(hostile):
    text, page = hostile
    assert not {"script", "b"} & {tag for tag, _ in page.tags}
    assert all(attrs.get("src", "").startswith("data:") for tag, attrs in page.tags if tag == "img")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;&amp;amp;" in text
    assert HOSTILE in page.text_in["title"] and HOSTILE in page.text_in["h1"]  # the reader sees it as written
    assert "1 ⟨&lt;⟩" in text and "⟨&amp;⟩" in text and "⟨<⟩" not in text  # the lesson's tokens too


def test_a_hostile_decks_tokens_leave_the_charts_well_formed_svg(hostile):
    _, page = hostile
    images = [a["src"].split(",", 1)[1] for tag, a in page.tags if tag == "img"]
    assert images and all(ElementTree.fromstring(base64.b64decode(i)).tag.endswith("svg") for i in images)


def test_a_deck_of_many_lessons_gets_the_numbers_of_the_first_ones_only(deck_names):
    screen = 'kind = "page"\ntitle = "P"\nminutes = 0.25\npage = "masking"\n'
    many = "title = \"Many\"\n" + "".join(f"[[screen]]\n{screen}lesson = {{ seed = {i} }}\n"
                                         for i in range(handout.MAX_LESSONS + 3))
    page = Page(build_handout(parse_deck(many, "many.toml", deck_names)))
    assert sum(lab == "weights" for lab, _ in page.tables) == handout.MAX_LESSONS
    assert page.text_in["main"].count(f"a handout prints {handout.MAX_LESSONS} lessons") == 3


def test_the_teachers_notes_never_reach_the_handout_and_a_screen_without_handout_text_has_no_note(hostile):
    text, page = hostile
    assert "TEACHER ONLY" not in text
    assert text.count('class="note"') == 1  # the first screen's handout text only


def test_every_page_scene_and_question_kind_has_its_topic(deck_names):
    """A page, scene or kind added to the lab must be given its formulas and tables here (or none); each formula
    is one the handout has, each table a trace's, "mixed" or a view the handout draws."""
    assert {url for page in PAGES for url in page.urls} == set(deck_names.pages)
    assert set(SCENE_TOPICS) == set(deck_names.scenes)
    assert set(QUESTION_TOPICS) == set(KINDS)
    from classroom.handout_text import FORMULAS
    from classroom.screens import FILM_TOPIC, STEP_TOPICS, VIDEO_TOPICS

    topics = [page.handout for page in PAGES] + [topic for page in PAGES for _, topic in page.handout_parts]
    topics += [*SCENE_TOPICS.values(), *STEP_TOPICS.values(), *VIDEO_TOPICS.values(), *QUESTION_TOPICS.values(),
               FILM_TOPIC]
    assert {f for fs, _ in topics for f in fs} <= set(FORMULAS)
    assert {t for _, ts in topics for t in ts} <= {"scaled", "masked", "weights", "mixed", *handout.VIEWS}


def test_the_charts_use_the_dashboards_colours():
    assert handout_chart.WEIGHT_SCHEME == style.WEIGHT_SCHEME and handout_chart.MASKED == style.MASKED
    assert (handout_chart.QUERY, handout_chart.KEY, handout_chart.OUTPUT) == (style.QUERY, style.KEY, style.OUTPUT)


@pytest.mark.parametrize("x, shown", [(0.66982, "0.670"), (-1.5, "−1.500"), (float("-inf"), "−∞"),
                                      (123456.0, "123456.000"), (0.0001234, "0.000"), (0.0, "0.000"),
                                      (5.06e-6, "0.000"), (-2e-7, "0.000"), (0.0005001, "0.001"),
                                      (-0.0015001, "−0.002")])
def test_numbers_are_rounded_to_three_decimals_as_the_handout_says(x, shown):
    assert handout.number(x) == shown


def test_no_number_in_the_handout_is_printed_as_a_power_of_ten(page):
    cells = [cell for tables in page.tables.values() for table in tables for row in table for kind, cell in row
             if kind == "td"]
    assert cells and all(re.fullmatch(r"−?\d+\.\d{3}|−∞", c) for c in cells), \
        [c for c in cells if not re.fullmatch(r"−?\d+\.\d{3}|−∞", c)][:5]


def test_the_command_refuses_a_bad_deck_with_its_message_and_writes_nothing(tmp_path, capsys):
    from animations.handout import main

    bad = tmp_path / "bad.toml"
    bad.write_text('title = "x"\n[[screen]]\nkind = "page"\ntitle = "A"\nminutes = "five"\npage = "masking"\n')
    assert main([str(bad), "--out", str(tmp_path / "h.html")]) == 2
    assert re.search(r"Screen 1 \('A'\), field minutes", capsys.readouterr().err)
    assert not (tmp_path / "h.html").exists()


def test_the_focus_questions_screen_prints_its_prompt_lettered_choices_and_sdpas_largest_key(deck, page):
    """The first question: the room is asked which key a query weighs most; the handout names the letter of
    the key that F.scaled_dot_product_attention weighs most in that row, with the reason."""
    from classroom.deck_questions import screen_question

    s = next(s for s in deck.screens if s.question == "focus")
    q = screen_question(s, lambda settings: None)
    block = re.search(rf'<div class="question" data-lab="question" data-screen="{s.number}">(.*?)</div>',
                      build_handout(deck), re.S).group(1)
    trace = run_trace(s.lesson)
    qs, ks = (torch.from_numpy(a[s.head:s.head + 1]).double() for a in (trace.q, trace.k))  # (1, T, d_k)
    row = F.scaled_dot_product_attention(qs, ks, torch.eye(ks.shape[1], dtype=torch.float64)[None])[0, q.query]
    best = int(row.argmax())
    assert f"<strong>{html.escape(q.prompt)}</strong>" in block
    assert re.findall(r'<span class="letter">([A-Z])\.</span>', block) == [chr(65 + i) for i in range(len(q.choices))]
    assert f"The right answer: {chr(65 + best)} ({html.escape(q.choices[best])})." in block
    assert html.escape(q.truth) in block and "How the class answered is not printed here" in block


def test_the_handouts_letters_are_the_projectors():
    from classroom.handout_question import letter
    from dashboard.charts.questions import letter as projector_letter

    assert [letter(i) for i in range(60)] == [projector_letter(i) for i in range(60)]
    assert (letter(0), letter(25), letter(26)) == ("A", "Z", "AA")


def test_a_question_about_a_training_run_not_trained_says_it_is_not_printed_without_setup_words(deck_names):
    deck = parse_deck('title = "t"\n[[screen]]\nkind = "question"\ntitle = "Which layer?"\nminutes = 1\n'
                      'question = "film"\nfilm = { layers = 2, steps = 100 }\n', "t.toml", deck_names)
    text = build_handout(deck, film_of=lambda settings: None)
    assert "The question is not printed here: it could not be made when this handout was." in text
    assert "make lecture" not in text  # the teacher's setup words are not the students'
    assert "Which layer?" in text


def _formulas_of(page_html: str, number: int) -> set[str]:
    """The plain-text readings (alttext) of the formulas screen `number`'s section prints."""
    section = re.search(rf'<section class="screen" id="screen-{number}">(.*?)</section>', page_html, re.S).group(1)
    return set(re.findall(r'<math display="block" alttext="([^"]*)"', section))


def test_a_trained_video_step_prints_the_formula_it_shows(deck, written, deck_names):
    """“That head, measured” (the trained video's layer 1, head 3 step) shows a head's weights: the handout prints
    the attention formula there, not the norm view's, which only the video's "passed-on" step and the whole video
    show."""
    from classroom.handout_text import FORMULAS

    alt = {name: re.search(r'alttext="([^"]*)"', f).group(1) for name, f in FORMULAS.items()}
    screen = next(s for s in deck.screens if s.title == "That head, measured")
    assert (screen.scene, screen.step) == ("trained", "layer-1-head-3")
    assert _formulas_of(written, screen.number) == {alt["attention"]}
    lesson = ('{ source = "trained", text = "The cat sat on the mat.", d_model = 384, num_heads = 12, mask = "none", '
              'positional = "none" }')
    for kind, step, shown in (("scene", 'step = "passed-on"\n', {"norm"}), ("video", "", {"attention", "norm"})):
        table = f'[[screen]]\nkind = "{kind}"\ntitle = "T"\nminutes = 1\nscene = "trained"\n{step}lesson = {lesson}\n'
        one = parse_deck(f'title = "D"\n{table}', "d.toml", deck_names)
        assert _formulas_of(build_handout(one), 1) == {alt[f] for f in shown}, kind
