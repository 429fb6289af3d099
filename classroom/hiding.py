"""What each page and each kind of deck screen can show that decides a room's open question: one table
(`DECIDES`), made of the pages' records (classroom/catalogue.py, `decides`), the screen kinds' classes
(classroom/screens.py, `decides`) and the two views that are neither. The dashboard reads it in one place
(dashboard/lesson/rerun.py, `hidden`) around every page it runs, every screen its projector shows and the
presenter's view. docs/classroom.md, "What each page and screen can show while a question is open", is this
table in words, with what each shows instead and who may open it; tests/dashboard/test_room_hiding.py
proves it row by row. A page record cannot leave `decides` out, so a new page cannot forget to hide.

A door "decides" a kind of question when, for some question of that kind, it can show the numbers its
answer is read from, whatever lesson or settings the student chose. It does not matter whose lesson the
door shows: a student who stops following can choose the question's lesson (docs/classroom.md).

Plain Python: classroom draws nothing and imports no Streamlit.
"""

from classroom.catalogue import BY_URL, EVERY_KIND, LESSON_KINDS
from classroom.kinds import KINDS
from classroom.screens import SCREENS as SCREEN_KINDS

PAGES = {url: page.decides for url, page in BY_URL.items()}  # a page, by each of its url paths
SCREENS = {name: kind.decides for name, kind in SCREEN_KINDS.items()}  # a kind of screen, as the projector shows it

# What is neither a page nor a screen.
VIEWS = {
    "presenter": EVERY_KIND,  # the presenter view: every screen's notes (may name an answer), the handout
    "sidebar-video": LESSON_KINDS,  # the sidebar's "Render with my settings": a video of the lesson on screen
}

DECIDES = {**PAGES, **SCREENS, **VIEWS}  # no name is in two of them (a test checks)


def door_of(screen_kind: str, page: str = "") -> str:
    """The row of a deck screen: its page's, for a page screen (`page`: its url path), else its kind's."""
    return page if screen_kind == "page" else screen_kind


def hides(door: str, question_kind: str) -> bool:
    """Whether `door` (a page's url path, a kind of screen, a view) must hide while a question of
    `question_kind` is open. A kind this lab does not know (a room's record from another version) is
    hidden by every door that decides anything. KeyError for a door missing from the table."""
    decides = DECIDES[door]
    return question_kind in decides if question_kind in KINDS else bool(decides)
