"""Issue 48, item 11: a teacher's own slides. A text slide's text is the decks' declared Markdown, escaped; an
image slide's picture is a file beside the deck, read once with it and checked: where it lies (no folder, no
"..", no link), what it is (PNG, JPEG or SVG by its bytes), how large, and an SVG that does more than draw is
refused. Each refusal names the file, the screen and the field."""

import os
import re

import pytest

from classroom.deck_folder import new_deck
from classroom.deck_text import html_blocks
from classroom.decks import DeckError, load_deck, parse_deck
from classroom.handout import build_handout
from tests.classroom.slide_files import BODY, IMAGE, PAGE, TEXT, deck, png

SVG_OK = ('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" '
          'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" width="40" height="20">'
          "<metadata><rdf:RDF/></metadata><defs><linearGradient id=\"g\"><stop offset=\"0\"/></linearGradient></defs>"
          '<rect width="40" height="20" fill="url(#g)"/><use href="#g"/><text x="1" y="15">QK</text></svg>')


def svg(inside: str, attrs: str = "") -> str:
    return f'<svg xmlns="http://www.w3.org/2000/svg" {attrs}>{inside}</svg>'


def image_deck(folder, name="dot.png", alt="A red dot on white") -> str:
    return deck(PAGE, IMAGE.replace('"dot.png"', f'"{name}"').replace('"A red dot on white"', f'"{alt}"'))


def refused(folder, text) -> DeckError:
    path = folder / "week-3.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DeckError) as caught:
        load_deck(path, _names())
    return caught.value


def _names():
    from dashboard.present.deck import names

    return names()


def test_a_text_and_an_image_slide_are_read_with_their_text_and_the_pictures_bytes(tmp_path):
    (tmp_path / "dot.png").write_bytes(png())
    path = tmp_path / "week-3.toml"
    path.write_text(deck(TEXT, IMAGE), encoding="utf-8")
    text, image = load_deck(path, _names()).screens
    assert text.kind == "text" and text.body.startswith("# Why attention\n- every token **looks**")
    assert image.kind == "image" and image.picture.data == png() and image.picture.mime == "image/png"
    assert image.picture.alt == "A red dot on white"


@pytest.mark.parametrize("name, words", [
    ("../x.png", "named without a folder"),
    ("/etc/x.png", "named without a folder"),
    ("sub/dot.png", "named without a folder"),
    (".hidden.png", "letters, digits"),
    ("dot.gif", ".png, .jpg, .jpeg or .svg"),
    ("missing.png", "there is no picture 'missing.png'"),
])
def test_an_image_named_outside_its_folder_or_not_a_picture_file_is_refused_naming_screen_and_field(tmp_path, name,
                                                                                                    words):
    folder = tmp_path / "decks"
    folder.mkdir()
    (tmp_path / "x.png").write_bytes(png())  # what "../x.png" would reach
    err = refused(folder, image_deck(folder, name))
    assert (err.screen, err.field) == (2, "image") and words in str(err), str(err)
    assert str(err).startswith("Screen 2 ('The block'), field image:")


@pytest.mark.parametrize("target", ["outside", "inside"])
def test_a_link_beside_the_deck_is_refused_wherever_it_points(tmp_path, target):
    """O_NOFOLLOW: a link is no picture of the deck's, even to a file beside it (the folder is the teacher's)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.png").write_bytes(png())
    folder = tmp_path / "decks"
    folder.mkdir()
    (folder / "real.png").write_bytes(png())
    os.symlink(elsewhere / "secret.png" if target == "outside" else folder / "real.png", folder / "dot.png")
    err = refused(folder, image_deck(folder))
    assert (err.screen, err.field) == (2, "image") and "is a link" in str(err), str(err)


def test_a_picture_over_5_mb_is_refused_before_it_is_read(tmp_path):
    (tmp_path / "dot.png").write_bytes(png(pad=6 * 1024 * 1024))
    err = refused(tmp_path, image_deck(tmp_path))
    assert (err.screen, err.field) == (2, "image") and "6.0 MB" in str(err) and "at most 5 MB" in str(err), str(err)


def test_a_deck_s_pictures_over_20_mb_in_all_are_refused_at_the_screen_that_crosses_it(tmp_path):
    for i in range(5):
        (tmp_path / f"p{i}.png").write_bytes(png(pad=4_500_000))
    screens = [IMAGE.replace('"dot.png"', f'"p{i}.png"').replace('"The block"', f'"Picture {i + 1}"')
               for i in range(5)]
    err = refused(tmp_path, deck(*screens))
    assert (err.screen, err.field) == (5, "image") and "20 MB in all" in str(err), str(err)


def test_a_picture_whose_bytes_are_not_what_its_name_says_is_refused(tmp_path):
    (tmp_path / "dot.png").write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 100)  # a JPEG's start
    err = refused(tmp_path, image_deck(tmp_path))
    assert err.field == "image" and "named .png but its bytes are JPEG" in str(err), str(err)


def test_a_png_declaring_gigapixels_is_refused_from_its_header(tmp_path):
    """Streamlit decodes a picture wider than its page to shrink it: a small file may declare a huge one."""
    data = bytearray(png())
    data[16:24] = (50_000).to_bytes(4, "big") + (50_000).to_bytes(4, "big")
    (tmp_path / "dot.png").write_bytes(bytes(data))
    err = refused(tmp_path, image_deck(tmp_path))
    assert err.field == "image" and "50,000 × 50,000 pixels" in str(err), str(err)


@pytest.mark.parametrize("text, words", [
    (svg("<script>alert(1)</script>"), "<script> element"),
    (svg('<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>'), "<foreignObject>"),
    (svg('<rect width="1" height="1"/>', 'onload="alert(1)"'), "event handler (onload)"),
    (svg('<image href="https://example.org/x.png"/>'), "<image> element"),
    (svg('<use href="https://example.org/s.svg#a"/>'), "refers outside itself (href="),
    (svg('<rect fill="url(https://example.org/p)"/>'), "refers outside itself (fill="),
    (svg("<style>@import url(https://example.org/s.css);</style>"), "style that refers outside"),
    (svg('<a href="#x"><rect/></a>'), "<a> element"),
    (svg('<set attributeName="fill" to="red"/>'), "<set> element"),
    ('<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa">]>' + svg("<text>&a;</text>"), "DOCTYPE"),
    ('<?xml-stylesheet href="https://example.org/s.css"?>' + svg(""), "loads a stylesheet"),
    ("<svg><rect/></svg>", "not <svg> in the SVG namespace"),
    ("<svg xmlns='http://www.w3.org/2000/svg'><rect>", "not well-formed"),
])
def test_an_svg_that_does_more_than_draw_is_refused(tmp_path, text, words):
    (tmp_path / "dot.svg").write_text(text, encoding="utf-8")
    err = refused(tmp_path, image_deck(tmp_path, "dot.svg"))
    assert (err.screen, err.field) == (2, "image") and "'dot.svg'" in str(err) and words in str(err), str(err)


def test_an_svg_that_only_draws_is_kept_as_it_is(tmp_path):
    (tmp_path / "dot.svg").write_text(SVG_OK, encoding="utf-8")
    path = tmp_path / "week-3.toml"
    path.write_text(image_deck(tmp_path, "dot.svg"), encoding="utf-8")
    picture = load_deck(path, _names()).screens[1].picture
    assert picture.mime == "image/svg+xml" and picture.data == SVG_OK.encode()


@pytest.mark.parametrize("alt, words", [("", "say in words what the picture shows"), (None, "missing")])
def test_an_image_slide_needs_words_for_its_picture(tmp_path, alt, words):
    (tmp_path / "dot.png").write_bytes(png())
    text = image_deck(tmp_path, alt=alt or "")
    if alt is None:
        text = text.replace('alt = ""\n', "")
    err = refused(tmp_path, text)
    assert (err.screen, err.field) == (2, "alt") and words in str(err), str(err)


def test_an_image_slide_read_from_a_text_alone_is_refused(deck_names):
    with pytest.raises(DeckError) as caught:
        parse_deck(deck(IMAGE), "week-3.toml", deck_names)
    assert caught.value.field == "image" and "no folder" in str(caught.value)


def test_a_picture_replaced_beside_an_unchanged_deck_is_read_again(tmp_path):
    """The deck keeps its pictures' stamps: the file is read again when one changes, a refusal too."""
    path = tmp_path / "week-3.toml"
    path.write_text(image_deck(tmp_path), encoding="utf-8")
    (tmp_path / "dot.png").write_bytes(png(pad=6 * 1024 * 1024))
    with pytest.raises(DeckError):
        load_deck(path, _names())
    (tmp_path / "dot.png").write_bytes(png(2, 2))
    assert load_deck(path, _names()).screens[1].picture.data == png(2, 2)
    (tmp_path / "dot.png").write_bytes(png(3, 3))
    assert load_deck(path, _names()).screens[1].picture.data == png(3, 3)


def test_a_text_slide_s_html_is_escaped_in_its_markdown_and_its_handout():
    from dashboard.text import deck_markdown

    body = '<img src=x onerror="alert(1)"> **bold** <script>x</script>'
    md = deck_markdown(body)
    assert re.findall(r"(?<!\\)[<>]", md) == [] and "\\<img" in md and "\\<script\\>" in md, md  # text
    assert "**bold**" in md
    out = html_blocks(body, top=3)
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in out and "<strong>bold</strong>" in out
    assert "<script" not in out


def test_a_text_slide_holding_a_link_out_or_a_markdown_image_is_refused(tmp_path, deck_names):
    for body, words in (("see https://example.org", "holds a link"), ("![x](dot.png)", "holds an image")):
        with pytest.raises(DeckError) as caught:
            parse_deck(deck(TEXT.replace(BODY, body)), "week-3.toml", deck_names)
        assert (caught.value.screen, caught.value.field) == (1, "body") and words in str(caught.value)


def test_the_handout_prints_a_text_slide_as_html_and_a_picture_as_a_data_uri_with_its_words(tmp_path):
    (tmp_path / "dot.png").write_bytes(png())
    path = tmp_path / "week-3.toml"
    path.write_text(deck(TEXT, IMAGE), encoding="utf-8")
    page = build_handout(load_deck(path, _names()))
    assert "<h3>Why attention</h3><ul><li>every token <strong>looks</strong> at the others</li>" in page
    import base64

    uri = "data:image/png;base64," + base64.b64encode(png()).decode()
    assert f'<img src="{uri}" alt="A red dot on white"' in page
    assert "Recap slowly" not in page and "Point at the dot" not in page  # the notes are the teacher's


@pytest.mark.parametrize("name", ["../evil", "Week 3", "default", "a" * 41, ""])
def test_make_deck_refuses_an_unsafe_name_or_the_lab_s_own(tmp_path, monkeypatch, name):
    monkeypatch.setenv("ATTENTION_LAB_DECKS", str(tmp_path))
    with pytest.raises(ValueError):
        new_deck(name)
    assert list(tmp_path.iterdir()) == []


def test_make_deck_copies_the_default_deck_and_never_over_a_teacher_s_file(tmp_path, monkeypatch):
    from classroom.decks import DEFAULT_DECK

    monkeypatch.setenv("ATTENTION_LAB_DECKS", str(tmp_path / "mine"))
    made = new_deck("week-3")
    assert made == tmp_path / "mine" / "week-3.toml" and made.read_bytes() == DEFAULT_DECK.read_bytes()
    made.write_text("my edits", encoding="utf-8")
    with pytest.raises(ValueError, match="is there already"):
        new_deck("week-3")
    assert made.read_text(encoding="utf-8") == "my edits"

