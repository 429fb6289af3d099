"""What each page and each kind of deck screen can show that decides a room's open question: one table
(`DECIDES`), which the dashboard reads in one place (dashboard/lesson/rerun.py, `hidden`) around every page
it runs, every screen its projector shows and the presenter's view. docs/classroom.md, "What each page and
screen can show while a question is open", is this table in words, with what each shows instead and who may
open it; tests/dashboard/test_room_hiding.py proves it row by row, and fails for a page or a kind of screen
missing here, so a new one cannot forget to hide.

A door "decides" a kind of question when, for some question of that kind, it can show the numbers its
answer is read from, whatever lesson or settings the student chose. It does not matter whose lesson the
door shows: a student who stops following can choose the question's lesson (docs/classroom.md).

Plain Python: classroom draws nothing and imports no Streamlit.
"""

from classroom.kinds import KINDS

# Any lesson's weights: random or hand-entered ones (focus, change, blocked) or the trained model's (trained,
# a lesson of source "trained" on any page of a lesson).
LESSON = frozenset({"focus", "change", "blocked", "trained"})
FILM = frozenset({"film", "layers"})  # a training run's measured heads
EVERY = frozenset(KINDS)
NONE = frozenset()

# A page, by its url path (every entry of dashboard/navigation.py's PAGES).
PAGES = {
    # the lesson pages: the lesson's scores, weights, mask and output, for the lesson of the student's choice
    "default-page": LESSON, "scaled-dot-product": LESSON, "attention": LESSON,
    "multi-head": LESSON, "masking": LESSON, "why-scale": LESSON, "positional": LESSON, "block": LESSON,
    "compare": LESSON,  # lesson A and lesson B (A after one change, a mask among them) side by side
    "worked-example": frozenset({"focus"}),  # the article's 2×2 weights: the focus question of that lesson
    # The trained model reading a sentence, every layer and head: a trained question, or a focus question
    # asked about a trained lesson. (It applies no change and no mask of a lesson's.)
    "trained-heads": frozenset({"trained", "focus"}),
    "watch-it-learn": FILM,  # a run's heads and scores, its summary, the video of the default run
    "lecture": EVERY,  # every scene's video: lessons, the trained model, the induction film
    "room": NONE,  # a student's room: the question and their answer; the truth only once revealed
    "present": NONE,  # the deck's overview: its screens' titles and kinds (its two views are rows below)
}

# A kind of deck screen (classroom/decks.py's KINDS_OF_SCREEN), as the projector window shows it.
SCREENS = {
    "page": frozenset().union(*PAGES.values()),  # at most; a page screen hides as its page (`door_of`)
    "scene": EVERY,  # a step of any scene: a lesson's, the trained model's, the induction film's
    "video": EVERY,
    "film": FILM,  # a run's loss and heads' scores up to the step shown
    "question": NONE,  # its own question and choices; the truth only once its own round is revealed
}

# What is neither a page nor a screen.
VIEWS = {
    "presenter": EVERY,  # the Present page's presenter view: every screen's notes (may name an answer), the handout
    "sidebar-video": LESSON,  # the sidebar's "Render with my settings": a video of the lesson on screen
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
