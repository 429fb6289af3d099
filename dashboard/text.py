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
"""

import re
import string

from core.errors import visible

_ESCAPE = str.maketrans({c: "\\" + c for c in string.punctuation})
_JOINER = "\u2060"
_AUTOLINK = re.compile(r"(?i)(https?|ftp|www|mailto|xmpp)(?=[:.])|(?=@)")


def plain(text: str) -> str:
    """`text` escaped so that Markdown shows exactly these characters; line breaks become spaces, hidden
    characters their escapes."""
    flat = visible(" ".join(str(text).split()))
    return _AUTOLINK.sub(lambda m: (m.group(1) or "") + _JOINER, flat).translate(_ESCAPE)
