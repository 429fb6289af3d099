"""A deck's texts on the Present page (projector, presenter, overview): the declared Markdown subset is
formatted and nothing else takes effect. The title of a screen reached st.title as written: a Streamlit
directive in it was drawn (the deck file refuses links elsewhere; directives and HTML are text it allows)."""

import json
import re

import pytest
from markdown_it import MarkdownIt

from dashboard.present import deck as decks
from tests.conftest import shown

from .conftest import no_exception
from .test_present import present  # noqa: F401 (a fixture)
from .test_present_gate import open_room

TITLE = ":red[EXAM CANCELLED] go **home** <img src=x onerror=alert(1)> :material/warning:"
NOTES = "# Tell them\n**Softmax** rows sum to one: see [the masking page](masking). :blue[x] <b>y</b>"
DECK = f'''title = {json.dumps(TITLE)}
about = "The **about**, with :red[colour] and <script>x</script>."

[[screen]]
kind = "video"
title = {json.dumps(TITLE)}
minutes = 1
scene = "scores"
notes = {json.dumps(NOTES)}
'''


@pytest.fixture
def hostile_deck(tmp_path, monkeypatch):
    path = tmp_path / "hostile.toml"
    path.write_text(DECK, encoding="utf-8")
    monkeypatch.setitem(decks.DECKS, "hostile", path)
    assert decks.load("hostile").title == TITLE, "the deck loads: nothing in it is refused"
    return "hostile"


def html_of(markdown: str) -> str:
    return MarkdownIt("commonmark").render(markdown)


def directive_free(markdown: str) -> bool:
    """No ":" that Streamlit's directives (":red[", ":material/") could read: each one escaped."""
    return re.search(r"(?<!\\):(?=[a-z])", markdown) is None


@pytest.mark.parametrize("query", [{"projector": "1", "screen": "1"}])
def test_a_screens_title_on_the_projector_draws_no_directive_image_or_html(hostile_deck, query):
    at = present({"deck": hostile_deck, **query})  # noqa: F811
    title = at.title[0].value
    assert directive_free(title), title
    html = html_of(title)
    assert "<img" not in html and "<strong>home</strong>" in html
    assert shown(title) == TITLE.replace("**", "")  # the reader sees the rest as written


def test_the_presenter_formats_the_declared_subset_of_the_notes_and_nothing_else(hostile_deck):
    at = open_room(present({"deck": hostile_deck, "presenter": "1"}))  # noqa: F811 (the notes are the teacher's)
    no_exception(at)
    bodies = [str(m.value) for m in at.markdown]
    notes = next(b for b in bodies if "Softmax" in b)
    html = html_of(notes)
    assert "<h1>Tell them</h1>" in html and "<strong>Softmax</strong>" in html
    assert '<a href="masking">the masking page</a>' in html and "<b>" not in html and directive_free(notes)
    titled = [b for b in bodies if "EXAM" in b]
    assert len(titled) >= 2 and all(directive_free(b) and "<img" not in html_of(b) for b in titled)


def test_the_overview_shows_the_about_formatted_and_escaped(hostile_deck):
    at = present({"deck": hostile_deck})  # noqa: F811
    about = next(str(m.value) for m in at.markdown if "about" in str(m.value))
    html = html_of(about)
    assert "<strong>about</strong>" in html and "<script" not in html and directive_free(about)
