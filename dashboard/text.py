"""Text that reaches Streamlit's Markdown (st.markdown, widget labels and options) as plain text.

Questions quote tokens, and a token can be any word a student typed: `*`, `_`, `[x](y)`,
`$x$` (LaTeX), `:red[x]` (a Streamlit colour directive), `<b>`. CommonMark lets any ASCII
punctuation be escaped with a backslash, and shows it literally: every character that any of
them reads is escaped (commas, quotes and question marks are left as they are).
"""

_SPECIAL = "\\`*_{}[]()#+-.!|<>~$:&=^"  # what Markdown, Streamlit's directives (:red[x]) or KaTeX ($) read
_ESCAPE = str.maketrans({c: "\\" + c for c in _SPECIAL})


def plain(text: str) -> str:
    """`text` escaped so that Markdown shows exactly these characters; line breaks become spaces."""
    return " ".join(str(text).split()).translate(_ESCAPE)
