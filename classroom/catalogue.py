"""The lab's pages as data: every fact about a page, in one record, that the app, the deck, the handout and
`make lecture` read. Plain Python (no Streamlit): the command-line tools read it as the app does.

A new page is its file in dashboard/app_pages/ plus one `Page` here (docs/recipes.md, "Adding a page").
"""

from dataclasses import dataclass

# What the handout prints for a screen of a page: (its formulas, the tables of its lesson). A formula is a
# name of classroom/handout_text.py's FORMULAS; a table a field of the trace for the screen's head ("scaled",
# "masked", "weights"), "mixed" (weights · V, the head's output) or "saturation" (core.analysis's answer to
# why √d_k). A page that does not draw the sidebar's lesson prints no lesson numbers.
NO_TOPIC = ((), ())
LESSON_STEPS = (("scores", "scale", "softmax"), ("scaled", "weights"))


@dataclass(frozen=True)
class Page:
    file: str  # its script, relative to dashboard/ ("app_pages/attention.py")
    title: str  # the sidebar's and the page's title
    url: str  # its url path: links and decks name the page by it
    aliases: tuple = ()  # more url paths that open it, as a teacher would write them on a slide
    default: bool = False  # the page at the lab's root (Streamlit then serves nothing at `url` itself)
    lesson_controls: bool = True  # the sidebar draws the lesson's controls (not where a deck sets the lesson)
    video: str = "lesson"  # the sidebar's video block: "lesson" (the sidebar's lesson) | "page" (its own) | ""
    video_label: str = ""  # the block's heading, for video "page"
    runs_whole: bool = False  # shows a video or an image: it runs outside a fragment (dashboard/lesson/rerun.py)
    needs_model: bool = False  # reads the trained model: `make lecture` checks that it is installed
    handout: tuple = NO_TOPIC  # (formulas, tables) a handout screen of this page prints

    @property
    def urls(self) -> tuple:
        """Every url path that opens the page, its own first."""
        return (self.url, *self.aliases)


PAGES = (
    Page("app_pages/attention.py", "Scaled dot-product attention", "default-page", default=True,
         aliases=("scaled-dot-product", "attention"), handout=LESSON_STEPS),
    Page("app_pages/multi_head.py", "Multi-head attention", "multi-head", handout=(("heads",), ("weights",))),
    Page("app_pages/masking.py", "Masking", "masking", handout=(("mask", "softmax"), ("masked", "weights"))),
    Page("app_pages/why_scale.py", "Why divide by √d_k", "why-scale", handout=(("scale",), ("saturation",))),
    Page("app_pages/positional.py", "Positional encoding", "positional", handout=(("positions",), ("weights",))),
    Page("app_pages/block.py", "Transformer block", "block", handout=(("block",), ("weights",))),
    Page("app_pages/worked_example.py", "The article's worked example", "worked-example",
         handout=(("attention",), ("weights", "mixed"))),
    Page("app_pages/trained_heads.py", "Trained heads", "trained-heads", video="page",
         video_label="A video of these heads", runs_whole=True, needs_model=True,
         handout=(("attention", "norm"), ())),
    Page("app_pages/watch_learn.py", "Watch it learn", "watch-it-learn", video="page",
         video_label="A video of this film", runs_whole=True),
    Page("app_pages/lecture.py", "Lecture videos", "lecture", runs_whole=True),
    Page("app_pages/compare.py", "Compare two lessons", "compare", handout=(("attention",), ("weights",))),
    Page("app_pages/room.py", "Classroom room", "room", runs_whole=True),
    Page("app_pages/present.py", "Present a lecture", "present", lesson_controls=False, video="", runs_whole=True),
)
BY_URL = {url: page for page in PAGES for url in page.urls}  # every url path, aliases included
ROOM, TRAINED, PRESENT = BY_URL["room"], BY_URL["trained-heads"], BY_URL["present"]  # the pages the app names


def page_at(url: str) -> Page:
    """The page a url path (or an alias) opens; KeyError for none."""
    return BY_URL[url]
