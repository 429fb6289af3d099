"""What the students' handout (classroom/handout.py) prints of a teacher's own slides: a text slide's text as HTML
(classroom/deck_text.py's declared Markdown, every character escaped) and an image slide's picture as a data: URI
(the handout's Content-Security-Policy allows images from data: only) with its words as alt text and caption.
"""

import base64
import html

from classroom.deck_text import html_blocks


def slide_html(s) -> str:
    """The slide's own content in HTML ("" for a screen of another kind)."""
    if s.kind == "text":
        return f'<div class="slide">{html_blocks(s.body, top=3)}</div>'
    if s.kind == "image" and s.picture is not None:
        alt = html.escape(s.picture.alt)
        uri = f"data:{s.picture.mime};base64,{base64.b64encode(s.picture.data).decode('ascii')}"
        return (f'<figure class="slide"><img src="{uri}" alt="{alt}" style="max-width: 100%; height: auto">'
                f"<figcaption>{alt}</figcaption></figure>")
    return ""
