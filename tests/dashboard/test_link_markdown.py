"""A link's values and a student's tokens are quoted as plain text, never read as Markdown.

The lab's own notices quote what a link asked for ("Unknown mask '...'"): a crafted link must not
turn them into a link to another site, a remote image or a heading. Each rendered body is run
through a CommonMark renderer (Streamlit's Markdown is CommonMark with extensions) and must hold no
link, no image, no heading and no emphasis, and still show the value's characters; no address is
left whole for GitHub's autolinks (tests/dashboard/test_browser.py checks the page in Chromium).
"""

import pytest
from markdown_it import MarkdownIt

from .conftest import no_exception

EVIL = {
    "link": "[Log in again](http://evil.example)",  # short: some notices quote only 40 characters
    "image": "![x](http://evil.example/p.png)",
    "heading": "x\n# EXAM CANCELLED",
    "autolink": "<http://evil.example/login>",
}
KEYS = [("mask", None), ("device", None), ("d_model", None), ("head", "attention"), ("change", "compare")]
FORMATTING = ("<a ", "<img", "<h1", "<h2", "<h3", "<em>", "<strong>")


def bodies(at) -> list[str]:
    """The Markdown bodies of every notice and text element on the page."""
    kinds = ("warning", "error", "info", "success", "markdown", "caption")
    return [str(e.value) for kind in kinds for e in at.get(kind)]


def html_of(body: str) -> str:
    return MarkdownIt("commonmark").render(body)


@pytest.mark.parametrize("what", EVIL)
@pytest.mark.parametrize("key,page", KEYS, ids=[k for k, _ in KEYS])
def test_a_crafted_link_value_is_quoted_as_plain_text(make_app, key, page, what):
    at = make_app(query={key: EVIL[what]}, page=page)
    no_exception(at)
    quoting = [b for b in bodies(at) if "evil" in b or "EXAM" in b]
    assert quoting, f"the page says nothing about the link's {key}"
    for body in quoting:
        html = html_of(body)
        assert "evil.example" in html or "EXAM" in html, "the value is quoted, not dropped"
        for tag in FORMATTING[:5]:
            assert tag not in html, f"{key}={what!r} became {tag} in {body!r}"
        assert "http://" not in html, "GitHub's autolinks (Streamlit reads them) would make the address a link"


@pytest.mark.parametrize("page", ["positional", "compare"])
def test_tokens_with_markdown_characters_are_shown_as_typed(make_app, page):
    at = make_app(query={"text": "__init__ __a__ __init__ __b__"}, page=page)  # every token is formatting
    no_exception(at)
    quoting = [b for b in bodies(at) if "init" in b or "\\_\\_" in b or "__" in b]
    assert quoting, "the page quotes the tokens somewhere"
    for body in quoting:
        html = html_of(body.removeprefix("**").removesuffix("**"))  # the page's own bold summary
        assert "__" in html, body
        for tag in FORMATTING:
            assert tag not in html, body
