"""A deck's texts (titles, about, notes, handout texts) as a small, declared part of Markdown, read into
parts that each front end renders its own way: the dashboard as Markdown with everything else escaped
(dashboard/text.py's `deck_markdown`), the handout as HTML (`html` here).

The declared subset, and nothing more (a whitelist: what it does not name is shown as the characters typed):
- blocks: a heading `# `, `## ` or `### ` at the start of a line; a list item `- ` or `* `, or a numbered
  one `1. `, a line wrapped under it continues it; a blank line ends a paragraph, and a single line break
  inside one is a space (a TOML string wrapped in the file);
- inline: `**strong**`, `*emphasis*` or `_emphasis_`, `` `code` ``, `$maths$` (TeX, only the commands of
  MATH_COMMANDS: no \\href, \\url, \\includegraphics, \\color or sizes), and a link `[words](page)` to one of
  the lab's own pages, written as its address (`masking`, `masking?mask=causal`).
A link anywhere else (`//host`, `https://`, `data:`, `javascript:`, `/\\host`), an image `![..](..)`, raw
HTML, an entity, a Streamlit directive (`:red[..]`, `:material/..:`) or a table is none of these, so it is
text. Titles take the inline part only. What loading refuses outright is in classroom/deck_file.py.
"""

import html
import re

# A link's target: a page of the lab by its address, and perhaps a query of plain settings. No ":", "/", "\",
# "%", "#", "&"-entity or space can be in one, so no scheme, host, path or obfuscation of either.
PAGE_LINK = re.compile(r"[a-z0-9][a-z0-9-]*(\?[A-Za-z0-9_.,=&-]*)?")
MATH_COMMANDS = frozenset("""
    frac dfrac tfrac sqrt cdot times top sum prod max min arg argmax exp log ln sin cos tanh softmax operatorname
    mathrm mathbf mathit mathbb mathcal text textrm boldsymbol infty le leq ge geq ne neq approx sim propto to
    rightarrow leftarrow Rightarrow mapsto in notin subset forall exists left right big Big ldots cdots dots
    vdots lbrack rbrack quad qquad partial nabla hat bar tilde vec odot otimes oplus langle rangle lVert rVert
    Vert mid pm
    alpha beta gamma delta epsilon varepsilon zeta eta theta lambda mu nu xi pi rho sigma tau phi varphi chi
    psi omega Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi Omega
""".split())
# Maths holds letters, digits, spaces, these marks, characters beyond ASCII, and escapes: a whitelisted
# command, or one of \, \; \! \{ \} \| (spaces and braces). No "%" (a TeX comment), "&", "#", "~", "$", and
# none of ":[]" (\lbrack \rbrack): were it ever read as text, no link could be written in it.
_MATH = re.compile(r"(?:[A-Za-z0-9 +\-*/=^_{}(),.|'!<>;]|[^\x00-\x7f]|\\[,;!{}| ]|\\([A-Za-z]+))*")
_INLINE = re.compile(r"""
    `(?P<code>[^`\n]+)`
  | \$(?P<math>[^$\s](?:[^$\n]*[^$\s])?)\$
  | \*\*(?P<strong>[^*\s](?:[^*\n]*[^*\s])?)\*\*
  | \*(?P<em>[^*\s](?:[^*\n]*[^*\s])?)\*
  | (?<![A-Za-z0-9_])_(?P<em_>[^_\s](?:[^_\n]*[^_\s])?)_(?![A-Za-z0-9_])
  | (?<!!)\[(?P<label>[^\[\]\n]+)\]\((?P<target>[^()\s]*)\)
""", re.X)
_HEADING = re.compile(r"(#{1,3})[ \t]+(.*)")
_ITEM = re.compile(r"(?:([-*])|1[.])[ \t]+(.*)")  # "-" or "*", or "1." (the Markdown that numbers them)


def math_ok(tex: str) -> bool:
    """`tex` uses the declared maths only."""
    match = _MATH.fullmatch(tex)
    if match is None:
        return False
    return all(command in MATH_COMMANDS for command in re.findall(r"\\([A-Za-z]+)", tex))


def inline(text: str) -> list[tuple]:
    """`text`'s inline parts: ("text", s), ("strong", s), ("em", s), ("code", s), ("math", tex) and
    ("link", words, page); a construct that is not declared (a link elsewhere, maths with another command)
    stays text."""
    parts, at = [], 0
    for m in _INLINE.finditer(text):
        kind = m.lastgroup
        if kind == "math" and not math_ok(m["math"]) or kind == "target" and not PAGE_LINK.fullmatch(m["target"]):
            continue
        if m.start() > at:
            parts.append(("text", text[at:m.start()]))
        if kind == "target":
            parts.append(("link", m["label"], m["target"]))
        else:
            parts.append(("em" if kind == "em_" else kind, m[kind]))
        at = m.end()
    if at < len(text):
        parts.append(("text", text[at:]))
    return parts


def blocks(text: str) -> list[tuple]:
    """`text`'s blocks: ("heading", level, parts), ("paragraph", parts), ("list", numbered, [parts, ...])."""
    out, lines, items, numbered = [], [], [], False

    def end_paragraph():
        if lines:
            out.append(("paragraph", inline(" ".join(lines))))
            lines.clear()

    def end_list():
        if items:
            out.append(("list", numbered, [inline(" ".join(item)) for item in items]))
            items.clear()

    for raw in text.replace("\r\n", "\n").split("\n"):
        line = " ".join(raw.split())
        heading, item = _HEADING.fullmatch(line), _ITEM.fullmatch(line)
        if not line or heading:
            end_paragraph(), end_list()
            if heading:
                out.append(("heading", len(heading[1]), inline(heading[2])))
        elif item:
            end_paragraph()
            if items and numbered != (item[1] is None):
                end_list()
            numbered = item[1] is None
            items.append([item[2]])
        elif items:
            items[-1].append(line)  # a wrapped item
        else:
            lines.append(line)
    end_paragraph(), end_list()
    return out


def words(text: str) -> str:
    """`text` without its markup, for a place that shows no formatting (a window's title)."""
    return "".join(p[1] for p in inline(" ".join(text.split())))


# -- the handout's HTML ---------------------------------------------------------------------------
_TAGS = {"strong": "strong", "em": "em", "code": "code"}


def inline_html(text: str) -> str:
    """A text's inline parts as HTML, every character of the deck escaped. A link to a page of the lab is its
    words alone: the handout opens offline, where the lab's address means nothing."""
    return _parts_html(inline(" ".join(text.split())))

def html_blocks(text: str, top: int) -> str:
    """A text's blocks as HTML; a `#` heading is <h`top`>, `##` one level below."""
    out = []
    for block in blocks(text):
        if block[0] == "heading":
            level = min(top + block[1] - 1, 6)
            out.append(f"<h{level}>{_parts_html(block[2])}</h{level}>")
        elif block[0] == "paragraph":
            out.append(f"<p>{_parts_html(block[1])}</p>")
        else:
            tag = "ol" if block[1] else "ul"
            out.append(f"<{tag}>" + "".join(f"<li>{_parts_html(p)}</li>" for p in block[2]) + f"</{tag}>")
    return "".join(out)


def _parts_html(parts: list[tuple]) -> str:
    out = []
    for kind, value, *_ in parts:
        e = html.escape(value)
        out.append(f"<{_TAGS[kind]}>{e}</{_TAGS[kind]}>" if kind in _TAGS else
                   f'<code class="math">{e}</code>' if kind == "math" else e)
    return "".join(out)
