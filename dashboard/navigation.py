"""The dashboard's pages, made once per session.

`st.Page` resolves its file's path when it is made (about ten system calls a page, each a
release and a re-take of the one GIL a lab process has), and `st.page_link` given a path does
the same; made on every rerun for a dozen pages, that came to about a hundred system calls a
rerun. A session keeps its own Page objects (`st.navigation` marks the chosen one on the object,
so they are not shared between sessions), and links use them.
"""

import runpy
from pathlib import Path

import streamlit as st

from classroom.catalogue import PAGES, PRESENT, TRAINED, Page

_KEY = "navigation_pages"
TRAINED_PAGE = TRAINED.file  # the one page that reads a large model trained elsewhere
PRESENT_PAGE = PRESENT.file  # a deck's windows: each screen sets its own lesson
HERE = "navigation_here"  # the page file this session's last full run chose
APP = Path(__file__).resolve().parent  # page files are named relative to the app

# Streamlit's pages, one per url path: a page's own, then its aliases as hidden pages of the same file (the
# default page answers at the root only: Streamlit reserves its url path but serves nothing there, so the
# names a teacher would type are hidden pages). The sidebar lists the visible ones in the catalogue's order.
_ROUTES = ([(page, page.url, {"default": True} if page.default else {}) for page in PAGES]
           + [(page, alias, {"visibility": "hidden"}) for page in PAGES for alias in page.aliases])


def pages() -> list:
    """This session's Page objects, in _ROUTES' order."""
    if _KEY not in st.session_state:
        st.session_state[_KEY] = [st.Page(page.file, title=page.title, url_path=url, **extra)
                                  for page, url, extra in _ROUTES]
    return st.session_state[_KEY]


def choose():
    """`st.navigation` over this session's pages: the page to run; its file's name ("attention",
    "trained_heads"...) is kept under HERE for the page's controls and messages."""
    chosen = st.navigation(pages(), expanded=True)  # every page in view: past twelve, Streamlit folds some away
    st.session_state[HERE] = record(chosen).file.removeprefix("app_pages/").removesuffix(".py")
    return chosen


def record(chosen) -> Page:
    """The catalogue's record of one of this session's Page objects."""
    return next(page for p, (page, *_) in zip(pages(), _ROUTES, strict=True) if p is chosen)


def is_open(path: str) -> bool:
    """Whether the page of file `path` is the one this session's last full run chose."""
    return st.session_state.get(HERE) == path.removeprefix("app_pages/").removesuffix(".py")


def page(path: str):
    """This session's Page of a file (its first entry), for st.page_link and st.switch_page."""
    return next(p for p, (page, *_) in zip(pages(), _ROUTES, strict=True) if page.file == path)


def run_inside(path: str):
    """Run the page of file `path` inside the page now running (a deck's page screen on the projector), as if
    it were the one chosen: its controls keep their state under its own name (HERE), and its script runs as
    Streamlit runs a page's (`st.Page.run` serves only the page st.navigation chose, once a run)."""
    st.session_state[HERE] = path.removeprefix("app_pages/").removesuffix(".py")
    runpy.run_path(str(APP / path), run_name="__main__")
