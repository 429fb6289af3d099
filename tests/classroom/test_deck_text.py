"""A deck's texts take a small declared part of Markdown (classroom/deck_text.py) and nothing else: a link
only to a page of the lab, no image, no raw HTML, no Streamlit directive, maths with whitelisted commands
only. The dashboard's Markdown (dashboard/text.py's deck_markdown) is rendered here by a CommonMark renderer
(Streamlit's Markdown is CommonMark with extensions); the handout's HTML (classroom/handout.py) is read as is.
A deck file that writes a link elsewhere or an image is refused on load (classroom/deck_file.py)."""

import json
import re

import pytest
from markdown_it import MarkdownIt

from classroom.deck_text import html_blocks, inline_html
from classroom.decks import DeckError, parse_deck
from dashboard.text import deck_markdown
from tests.conftest import shown

# Targets that must never become a link or an image: other hosts however written, and script or data URLs
# however obfuscated (case, whitespace, entities, backslashes, percent-encoding).
TARGETS = ["//evil.example/x", "/\\evil.example", "\\\\evil.example", "https://evil.example", "https:evil.example",
           "JaVaScRiPt:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)", "jav&#x61;script:alert(1)",
           "javascript&colon;alert(1)", "vbscript:msgbox(1)", "data:text/html;base64,PHNjcmlwdD4=",
           "DATA:image/png;base64,AAAA", "%2F%2Fevil.example", "<//evil.example>", "/masking", "../room"]
HOSTILE = [f"[Log in]({t})" for t in TARGETS] + [f"![x]({t})" for t in TARGETS + ["masking"]] + [
    "[Log in][r]\n\n[r]: //evil.example",
    "<a href=\"//evil.example\">Log in</a>", "<img src=\"//evil.example/p.png\">", "<script>alert(1)</script>",
    "&#x3C;img src=//evil.example/p.png&#x3E;", "<//evil.example>", "<https://evil.example>",
]
DIRECTIVES = [":red[EXAM CANCELLED]", ":material/warning: look", ":blue-background[x]", ":small[x]"]
BAD_MATHS = ["$\\href{//evil.example}{x}$", "$\\url{//evil.example}$", "$\\includegraphics{//evil.example/p.png}$",
             "$\\color{red}{x}$", "$\\rule{100em}{100em}$", "$x % a comment$", "$\\Huge x$", "$[a](//evil.example)$"]


def html_of(markdown: str) -> str:
    return MarkdownIt("commonmark").render(markdown)


@pytest.mark.parametrize("text", HOSTILE)
@pytest.mark.parametrize("inline", [False, True], ids=["notes", "title"])
def test_no_link_image_or_html_of_a_hostile_text_takes_effect(text, inline):
    md = deck_markdown(text, inline=inline)
    html = html_of(md)
    for tag in ("<a ", "<img", "<script"):
        assert tag not in html, f"{text!r} became {html!r}"
    assert " ".join(shown(md).split()) == " ".join(text.split()), "the text is shown as written, not dropped"


@pytest.mark.parametrize("text", DIRECTIVES)
def test_a_streamlit_directive_is_text(text):
    md = deck_markdown(text, inline=True)
    assert re.search(r"(?<!\\):", md) is None, md  # every ":" escaped: no directive, no icon
    assert shown(md) == text


@pytest.mark.parametrize("text", BAD_MATHS)
def test_maths_with_a_command_outside_the_whitelist_is_text(text):
    md = deck_markdown(text)
    assert re.search(r"(?<!\\)\$", md) is None, md  # no "$" left for the maths extension to read
    assert shown(md) == text


def test_the_declared_subset_is_formatted():
    md = deck_markdown("# Softmax\nRows **sum** to *one*, as `torch.softmax` gives, by\n$\\frac{e^{x_i}}{\\sum_j "
                       "e^{x_j}}$: see [the masking page](masking?mask=causal).\n\n- one\n- two\n  wrapped\n\n"
                       "1. first\n1. second")
    html = html_of(md)
    assert "<h1>Softmax</h1>" in html and "<strong>sum</strong>" in html and "<em>one</em>" in html
    assert "<code>torch.softmax</code>" in html and '<a href="masking?mask=causal">the masking page</a>' in html
    assert "$\\frac{e^{x_i}}{\\sum_j e^{x_j}}$" in md  # as written, for KaTeX
    assert "<ul>\n<li>one</li>\n<li>two wrapped</li>\n</ul>" in html
    assert "<ol>\n<li>first</li>\n<li>second</li>\n</ol>" in html


def test_a_title_is_inline_only():
    assert html_of(deck_markdown("# Not a heading", inline=True)) == "<p># Not a heading</p>\n"
    assert html_of(deck_markdown("- not a list", inline=True)) == "<p>- not a list</p>\n"
    assert html_of(deck_markdown("The **scale**", inline=True)) == "<p>The <strong>scale</strong></p>\n"


def test_snake_case_and_prices_are_not_formatting():
    md = deck_markdown("d_model and d_k cost $5 and $10 * 2 * 3")
    assert shown(md) == "d_model and d_k cost $5 and $10 * 2 * 3" and "<em>" not in html_of(md)


@pytest.mark.parametrize("text", HOSTILE + DIRECTIVES + BAD_MATHS)
def test_the_handouts_html_of_a_hostile_text_holds_no_link_image_or_markup(text):
    for out in (html_blocks(text, top=3), inline_html(text)):
        assert "<a" not in out and "<img" not in out and "<script" not in out, out
        assert not re.search(r"<(?!/?(p|h3|h4|h5|ul|ol|li|strong|em|code)[ >])", out), out


def test_the_handouts_html_formats_the_subset_and_shows_a_lab_link_as_its_words():
    out = html_blocks("## Rows\n**sum** to `1` <b>, see [the page](masking) and $\\sqrt{d_k}$\n\n- a & b", top=3)
    assert out == ('<h4>Rows</h4><p><strong>sum</strong> to <code>1</code> &lt;b&gt;, see the page and '
                   '<code class="math">\\sqrt{d_k}</code></p><ul><li>a &amp; b</li></ul>')


# -- on load -----------------------------------------------------------------------------------------
PAGE = 'kind = "page"\ntitle = "Masking"\nminutes = 2\npage = "masking"\n'


def deck(title: str, notes: str = "") -> str:
    return (f"title = {json.dumps(title)}\n[[screen]]\n{PAGE.replace('Masking', 'M')}"
            + (f"notes = {json.dumps(notes)}\n" if notes else ""))


@pytest.mark.parametrize("target", [t for t in TARGETS if "<" not in t])
def test_a_deck_linking_outside_the_lab_is_refused_naming_the_field(deck_names, target):
    with pytest.raises(DeckError) as caught:
        parse_deck(deck("A deck", notes=f"Read [this]({target}) first."), "bad.toml", deck_names)
    assert (caught.value.screen, caught.value.field) == (1, "notes") and "link" in str(caught.value)


@pytest.mark.parametrize("title", ["[Log in](//evil.example)", "![x](//evil.example/p.png)", "![x](masking)"])
def test_a_deck_title_linking_to_a_host_or_showing_an_image_is_refused(deck_names, title):
    with pytest.raises(DeckError) as caught:
        parse_deck(deck(title), "bad.toml", deck_names)
    assert caught.value.field == "title" and ("link" in str(caught.value) or "image" in str(caught.value))


def test_a_deck_using_the_declared_subset_loads(deck_names):
    notes = "# Rows\nSee **this**, `code`, $\\sqrt{d_k}$ and [the masking page](masking).\n\n- a\n- b"
    loaded = parse_deck(deck("The *scale*", notes), "good.toml", deck_names)
    assert loaded.title == "The *scale*" and loaded.screens[0].notes == notes
