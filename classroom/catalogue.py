"""The lab's pages as data: every fact about a page, in one record, that the app, the deck, the handout and
`make lecture` read. Plain Python (no Streamlit): the command-line tools read it as the app does.

A new page is its file in dashboard/app_pages/ plus one `Page` here (docs/recipes.md, "Adding a page").
"""

from dataclasses import dataclass

# What the handout prints for a screen of a page: (its formulas, the tables of its lesson). A formula is a
# name of classroom/handout_text.py's FORMULAS; a table a field of the trace for the screen's head ("scaled",
# "masked", "weights"), "mixed" (weights · V, the head's output), or a view of classroom/handout.py's VIEWS:
# "saturation" (core.analysis's answer to why √d_k), "model-view" (the trained model's every head on the screen's
# sentence), "norm-view" (one trained head's weights beside what each key passes on), "film" (a training run up
# to the step shown). A page that does not draw the sidebar's lesson prints no lesson numbers. A formula is
# printed where it is what the screen shows, not on every screen of a page that has one somewhere.
NO_TOPIC = ((), ())
# The kinds of room question (classroom/kinds.py) a page can decide, that is, show the numbers its answer is
# read from while it is open (classroom/hiding.py): a lesson's weights, random or hand-entered ones (focus,
# change, blocked) or the trained model's (trained: a lesson of source "trained"), or a training run's heads.
LESSON_KINDS = frozenset({"focus", "change", "blocked", "trained"})
FILM_KINDS = frozenset({"film", "layers"})
EVERY_KIND = LESSON_KINDS | FILM_KINDS  # every kind there is (a test holds it to classroom/kinds.py's)
LESSON_STEPS = (("scores", "scale", "softmax"), ("scaled", "weights"))


@dataclass(frozen=True)
class Steer:
    """A view of a page that the presenter view steers on the projector (issue 48 item 7): its name in the
    address, its label, and its values: 1 to `count`, or to a count read where it is ("heads": the screen's
    lesson's heads; "model layers", "model heads": the trained model's), or off and on ("switch": 0 and 1)."""

    name: str
    label: str
    count: int | str


STEPS_AND_HEAD = (Steer("step", "Step", 4), Steer("head", "Head", "heads"))


@dataclass(frozen=True)
class Page:
    file: str  # its script, relative to dashboard/ ("app_pages/attention.py")
    title: str  # the sidebar's and the page's title
    url: str  # its url path: links and decks name the page by it
    decides: frozenset  # the question kinds it can decide: a room's student sees a note instead while one is open
    aliases: tuple = ()  # more url paths that open it, as a teacher would write them on a slide
    default: bool = False  # the page at the lab's root (Streamlit then serves nothing at `url` itself)
    lesson_controls: bool = True  # the sidebar draws the lesson's controls (not where a deck sets the lesson)
    video: str = "lesson"  # the sidebar's video block: "lesson" (the sidebar's lesson) | "page" (its own) | ""
    video_label: str = ""  # the block's heading, for video "page"
    runs_whole: bool = False  # shows a video or an image: it runs outside a fragment (dashboard/lesson/rerun.py)
    needs_model: bool = False  # reads the trained model: `make lecture` checks that it is installed
    handout: tuple = NO_TOPIC  # (formulas, tables) a handout screen of this page prints
    handout_parts: tuple = ()  # (view part, (formulas, tables)): what a screen showing one part of it prints instead
    steers: tuple = ()  # the views (Steer) the presenter view steers on a projector showing the page

    @property
    def urls(self) -> tuple:
        """Every url path that opens the page, its own first."""
        return (self.url, *self.aliases)

    def topic(self, view: dict) -> tuple:
        """(formulas, tables) a handout screen of the page at `view` prints: its part's, or the whole page's."""
        return dict(self.handout_parts).get(view.get("part"), self.handout)


NONE = frozenset()

PAGES = (
    # The lesson pages show the lesson's scores, weights, mask and output, for the lesson of the student's choice.
    Page("app_pages/attention.py", "Scaled dot-product attention", "default-page", LESSON_KINDS, default=True,
         aliases=("scaled-dot-product", "attention"), handout=LESSON_STEPS, steers=STEPS_AND_HEAD),
    Page("app_pages/multi_head.py", "Multi-head attention", "multi-head", LESSON_KINDS,
         handout=(("heads",), ("weights",))),
    Page("app_pages/masking.py", "Masking", "masking", LESSON_KINDS,
         handout=(("mask", "causal", "softmax"), ("masked", "weights")),
         steers=(Steer("mask_stage", "Stage", 3), Steer("head", "Head", "heads"))),
    Page("app_pages/why_scale.py", "Why divide by √d_k", "why-scale", LESSON_KINDS,
         handout=(("scale",), ("saturation",)), steers=(Steer("why_part", "Part", 2),)),
    Page("app_pages/positional.py", "Positional encoding", "positional", LESSON_KINDS,
         handout=(("positions",), ("weights",)), steers=(Steer("head", "Head", "heads"),)),
    Page("app_pages/block.py", "Transformer block", "block", LESSON_KINDS, handout=(("block",), ("weights",))),
    # The article's 2×2 weights: the focus question of that one lesson.
    Page("app_pages/worked_example.py", "The article's worked example", "worked-example", frozenset({"focus"}),
         handout=(("attention",), ("weights", "mixed"))),
    # The trained model reading a sentence, every layer and head: a trained question, or a focus question asked
    # about a trained lesson (it applies no change and no mask of a lesson's).
    Page("app_pages/trained_heads.py", "Trained heads", "trained-heads", frozenset({"trained", "focus"}),
         video="page", video_label="A video of these heads", runs_whole=True, needs_model=True,
         handout=(("attention", "norm"), ("model-view", "norm-view")),
         handout_parts=(("grid", ((), ("model-view",))), ("norms", (("norm",), ("norm-view",)))),
         steers=(Steer("layer", "Layer", "model layers"), Steer("head", "Head", "model heads"),
                 Steer("alone", "The open head alone", "switch"))),
    # A run's heads and scores, its summary, the video of the default run.
    Page("app_pages/watch_learn.py", "Watch it learn", "watch-it-learn", FILM_KINDS, video="page",
         video_label="A video of this film", runs_whole=True),
    # Every scene's video: lessons, the trained model, the induction film.
    Page("app_pages/lecture.py", "Lecture videos", "lecture", EVERY_KIND, runs_whole=True),
    # Lesson A and lesson B (A after one change, a mask among them) side by side.
    Page("app_pages/compare.py", "Compare two lessons", "compare", LESSON_KINDS,
         handout=(("attention",), ("weights",))),
    # A student's room: the question and their answer; the truth only once revealed.
    Page("app_pages/room.py", "Classroom room", "room", NONE, runs_whole=True),
    # The deck's overview: its screens' titles and kinds (the presenter's and the projector's views are
    # classroom/hiding.py's and its screen kinds' rows).
    Page("app_pages/present.py", "Present a lecture", "present", NONE, lesson_controls=False, video="",
         runs_whole=True),
)
BY_URL = {url: page for page in PAGES for url in page.urls}  # every url path, aliases included
ROOM, TRAINED, PRESENT = BY_URL["room"], BY_URL["trained-heads"], BY_URL["present"]  # the pages the app names


# Every page's own view parameter (dashboard/lesson/state.py's view_param refuses a name missing here, so a test
# of the page finds it): a link's key that is neither a setting nor one of these is said to be ignored, and a
# deck's page screen may set only these.
VIEW_NAMES = frozenset({
    "head", "step", "keys", "dk", "shuffle", "show", "layout", "stage", "change", "piece", "pattern", "at",
    "layer", "sentence", "predict", "code", "seat", "projector", "weights", "film_task", "film_layers",
    "film_width", "film_heads", "film_positions", "film_causal", "film_steps", "film_seed", "film_at",
    "film_layer", "film_head", "model", "alone", "mask_stage", "why_part", "part", "deck", "screen", "presenter",
    "captions", "preview"})


def page_at(url: str) -> Page:
    """The page a url path (or an alias) opens; KeyError for none."""
    return BY_URL[url]
