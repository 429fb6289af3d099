"""Text that reaches Streamlit's Markdown (st.markdown, widget labels and options) as plain text.

Questions quote tokens, and a token can be any word a student typed: `*`, `_`, `[x](y)`,
`$x$` (LaTeX), `:red[x]` (a Streamlit colour directive), `<b>`, `&amp;`. CommonMark lets any
ASCII punctuation be escaped with a backslash and then shows it as itself, so every ASCII
punctuation mark is escaped: no list of the ones that Markdown, its extensions, Streamlit's
directives or KaTeX happen to read today, which a new one would outdate.
"""

import string

_ESCAPE = str.maketrans({c: "\\" + c for c in string.punctuation})


def plain(text: str) -> str:
    """`text` escaped so that Markdown shows exactly these characters; line breaks become spaces."""
    return " ".join(str(text).split()).translate(_ESCAPE)
