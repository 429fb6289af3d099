"""Helpers the pages share: wide matrices shown in part, the article's citation, the untrained note.
(How a chart reaches the page is dashboard/charts/draw.py.)"""

import numpy as np
import streamlit as st

from dashboard import controls, navigation

MAX_DRAWN_DIMS = 64  # wider matrices are shown in part (the first columns), and the page says so


def dim_labels(n: int, prefix: str = "d") -> list[str]:
    return [f"{prefix}{i + 1}" for i in range(n)]


def first_dims(values: np.ndarray, what: str, labels: list[str]) -> tuple[np.ndarray, list[str]]:
    """At most MAX_DRAWN_DIMS columns of a wide matrix (and their labels), with a caption when cut."""
    values = np.asarray(values)
    if values.shape[-1] > MAX_DRAWN_DIMS:
        st.caption(f"{what} has {values.shape[-1]} columns; the chart shows the first {MAX_DRAWN_DIMS} "
                   "(the CSV export has them all).")
    return values[..., :MAX_DRAWN_DIMS], list(labels)[:MAX_DRAWN_DIMS]


ARTICLE = ('"Transformer Architecture and the Self-Attention Mechanism" (Ashok Kumar Yadav, in *Module 10: '
           'Generative AI, LLMs & Prompt Engineering*)')


def by_hand() -> bool:
    """Whether the lesson's q, k and v are entered by hand (the article's example, or a link's): then no
    W matrices make them, random or not."""
    from dashboard.lesson import state

    return state.lesson().source == "manual"


def untrained_note(lesson_page: bool = False):
    """Said once on every page built on the lesson's random weights, with the way to learned ones;
    `lesson_page`: a page whose q, k and v are the lesson's own (then hand-entered ones are said so)."""
    if lesson_page and by_hand():
        st.caption("This lesson's q, k and v are numbers **entered by hand**, used as they are: no W matrices "
                   "make them, and nothing was learned from language.")
    else:
        st.caption("The W matrices on this page are **random, not trained**: the arithmetic is exactly a "
                   "Transformer's, but the patterns it produces mean nothing about language.")
    st.page_link(navigation.page(navigation.TRAINED_PAGE),
                 label="For patterns a trained model learned, see Trained heads",
                 icon=":material/school:")


def introduction(title: str, text: str, untrained: bool = True, more=None):
    """The page's title and introduction (`more`: a function drawing what follows it, such as its
    formulas). In projector mode the introduction folds away (one click opens it) so that a step of
    the lesson fills the screen; its label keeps the note that the weights are random in view."""
    if not controls.projector():
        st.title(title, anchor=False)
        st.markdown(text)
        if more is not None:
            more()
        if untrained:
            untrained_note(lesson_page=True)
        return
    row = st.container(horizontal=True, vertical_alignment="center", gap="large")
    row.title(title, width="content", anchor=False)
    about = ("About this page" if not untrained else "About this page: its q, k and v are **entered by hand**"
             if by_hand() else "About this page: its W matrices are **random, not trained**")
    with row.expander(about):
        st.markdown(text)
        if more is not None:
            more()
        if untrained:
            untrained_note(lesson_page=True)
