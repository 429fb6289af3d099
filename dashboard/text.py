"""Text that reaches Streamlit's Markdown (st.markdown, notices, widget labels and options) as plain text.

Questions quote tokens and notices quote links, and either can be anything a student typed: `*`, `_`,
`[x](y)`, `# heading`, `$x$` (LaTeX), `:red[x]` (a Streamlit colour directive), `<b>`, `&amp;`.
CommonMark lets any ASCII punctuation be escaped with a backslash and then shows it as itself, so
every ASCII punctuation mark is escaped: no list of the ones that Markdown, its extensions, Streamlit's
directives or KaTeX happen to read today, which a new one would outdate.

One extension reads text after the escapes are undone: GitHub's autolinks turn `http://…`, `www.…`
and `name@host.tld` in plain text into links. An invisible word joiner (U+2060) after the scheme, the
`www` and before an `@` keeps those words as they read, and never a link.

Characters that draw nothing or reorder text (a U+202E right-to-left override, say) are shown as their
escapes, "\\u202e", by core's `visible`: the one rule for them, which core's messages quote values with.

A deck's texts are a teacher's, and may use a small declared part of Markdown (classroom/deck_text.py):
`deck_markdown` writes those parts as Markdown again, from their parsed pieces, and every other character
escaped as `plain` escapes it, so nothing undeclared (a link elsewhere, an image, a directive, HTML) takes effect.
"""

import re
import string

from classroom import deck_text
from core.errors import visible

_ESCAPE = str.maketrans({c: "\\" + c for c in string.punctuation})
_JOINER = "\u2060"
_AUTOLINK = re.compile(r"(?i)(https?|ftp|www|mailto|xmpp)(?=[:.])|(?=@)")


def plain(text: str) -> str:
    """`text` escaped so that Markdown shows exactly these characters; line breaks become spaces, hidden
    characters their escapes."""
    return _escaped(" ".join(str(text).split()))


def _escaped(flat: str) -> str:
    flat = visible(flat)
    return _AUTOLINK.sub(lambda m: (m.group(1) or "") + _JOINER, flat).translate(_ESCAPE)


def deck_markdown(text: str, inline: bool = False) -> str:
    """A deck's text as Markdown in which only the declared subset (classroom/deck_text.py) takes effect;
    `inline`: a title, whose headings and list marks are text."""
    if inline:
        return _parts(deck_text.inline(" ".join(str(text).split())))
    out = []
    for block in deck_text.blocks(str(text)):
        if block[0] == "heading":
            out.append("#" * block[1] + " " + _parts(block[2]))
        elif block[0] == "paragraph":
            out.append(_parts(block[1]))
        else:
            out.append("\n".join(f"{i + 1 if block[1] else '-'}{'.' if block[1] else ''} {_parts(p)}"
                                  for i, p in enumerate(block[2])))
    return "\n\n".join(out)


_MARKS = {"strong": "**", "em": "*", "code": "`", "math": "$"}


def _parts(parts: list[tuple]) -> str:
    """Inline parts as Markdown: the declared marks around their escaped text (code and checked maths as
    written: Markdown reads neither's inside), a link's words escaped and its target a page of the lab."""
    out = []
    for kind, value, *rest in parts:
        if kind == "link":
            out.append(f"[{_escaped(' '.join(value.split()))}]({rest[0]})")
        elif kind in ("code", "math"):
            out.append(_MARKS[kind] + visible(value) + _MARKS[kind])
        else:
            out.append(_MARKS.get(kind, "") + _escaped(value) + _MARKS.get(kind, ""))
    return "".join(out).strip()
