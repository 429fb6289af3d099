"""The dashboard's pages, made once per session.

`st.Page` resolves its file's path when it is made (about ten system calls a page, each a
release and a re-take of the one GIL a lab process has), and `st.page_link` given a path does
the same; made on every rerun for a dozen pages, that came to about a hundred system calls a
rerun. A session keeps its own Page objects (`st.navigation` marks the chosen one on the object,
so they are not shared between sessions), and links use them.
"""

import streamlit as st

_KEY = "navigation_pages"

# (file, title, url path, extra): the first page is the default; it also answers at its own name,
# as a teacher would write it on a slide.
PAGES = [
    ("app_pages/attention.py", "Scaled dot-product attention", "scaled-dot-product", {"default": True}),
    ("app_pages/multi_head.py", "Multi-head attention", "multi-head", {}),
    ("app_pages/masking.py", "Masking", "masking", {}),
    ("app_pages/why_scale.py", "Why divide by √d_k", "why-scale", {}),
    ("app_pages/positional.py", "Positional encoding", "positional", {}),
    ("app_pages/block.py", "Transformer block", "block", {}),
    ("app_pages/worked_example.py", "The article's worked example", "worked-example", {}),
    ("app_pages/trained_heads.py", "Trained heads", "trained-heads", {}),
    ("app_pages/lecture.py", "Lecture videos", "lecture", {}),
    ("app_pages/compare.py", "Compare two lessons", "compare", {}),
    ("app_pages/room.py", "Classroom room", "room", {}),
    ("app_pages/attention.py", "Scaled dot-product attention", "attention", {"visibility": "hidden"}),
]


def pages() -> list:
    """This session's Page objects, in PAGES' order."""
    if _KEY not in st.session_state:
        st.session_state[_KEY] = [st.Page(path, title=title, url_path=url_path, **extra)
                                  for path, title, url_path, extra in PAGES]
    return st.session_state[_KEY]


def page(path: str):
    """This session's Page of a file (its first entry), for st.page_link and st.switch_page."""
    return next(p for p, (file, *_) in zip(pages(), PAGES, strict=True) if file == path)
