"""The dashboard's pages, made once per session.

`st.Page` resolves its file's path when it is made (about ten system calls a page, each a
release and a re-take of the one GIL a lab process has), and `st.page_link` given a path does
the same; made on every rerun for a dozen pages, that came to about a hundred system calls a
rerun. A session keeps its own Page objects (`st.navigation` marks the chosen one on the object,
so they are not shared between sessions), and links use them.
"""

import streamlit as st

_KEY = "navigation_pages"
TRAINED_PAGE = "app_pages/trained_heads.py"  # the one page that reads a large model trained elsewhere
HERE = "navigation_here"  # the page file this session's last full run chose

# (file, title, url path, extra): the first page is the default; it also answers at its own names,
# as a teacher would write them on a slide.
PAGES = [
    ("app_pages/attention.py", "Scaled dot-product attention", "default-page", {"default": True}),
    ("app_pages/multi_head.py", "Multi-head attention", "multi-head", {}),
    ("app_pages/masking.py", "Masking", "masking", {}),
    ("app_pages/why_scale.py", "Why divide by √d_k", "why-scale", {}),
    ("app_pages/positional.py", "Positional encoding", "positional", {}),
    ("app_pages/block.py", "Transformer block", "block", {}),
    ("app_pages/worked_example.py", "The article's worked example", "worked-example", {}),
    ("app_pages/trained_heads.py", "Trained heads", "trained-heads", {}),
    ("app_pages/watch_learn.py", "Watch it learn", "watch-it-learn", {}),
    ("app_pages/lecture.py", "Lecture videos", "lecture", {}),
    ("app_pages/compare.py", "Compare two lessons", "compare", {}),
    ("app_pages/room.py", "Classroom room", "room", {}),
    ("app_pages/present.py", "Present a lecture", "present", {}),
    # The default page answers at the root only: Streamlit reserves its url path but serves nothing
    # there. So the names a teacher would type are hidden pages of the same file.
    ("app_pages/attention.py", "Scaled dot-product attention", "scaled-dot-product", {"visibility": "hidden"}),
    ("app_pages/attention.py", "Scaled dot-product attention", "attention", {"visibility": "hidden"}),
]


def pages() -> list:
    """This session's Page objects, in PAGES' order."""
    if _KEY not in st.session_state:
        st.session_state[_KEY] = [st.Page(path, title=title, url_path=url_path, **extra)
                                  for path, title, url_path, extra in PAGES]
    return st.session_state[_KEY]


def choose():
    """`st.navigation` over this session's pages: the page to run; its file's name ("attention",
    "trained_heads"...) is kept under HERE for the page's controls and messages."""
    chosen = st.navigation(pages(), expanded=True)  # every page in view: past twelve, Streamlit folds some away
    file = next(f for p, (f, *_) in zip(pages(), PAGES, strict=True) if p is chosen)
    st.session_state[HERE] = file.removeprefix("app_pages/").removesuffix(".py")
    return chosen


def url_path(chosen) -> str:
    """The url path PAGES gives this session's Page `chosen` (Streamlit gives the default page "")."""
    return next(url for p, (_, _, url, _) in zip(pages(), PAGES, strict=True) if p is chosen)


def is_open(path: str) -> bool:
    """Whether the page of file `path` is the one this session's last full run chose."""
    return st.session_state.get(HERE) == path.removeprefix("app_pages/").removesuffix(".py")


def page(path: str):
    """This session's Page of a file (its first entry), for st.page_link and st.switch_page."""
    return next(p for p, (file, *_) in zip(pages(), PAGES, strict=True) if file == path)
