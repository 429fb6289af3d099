"""Nothing the default deck shows before a question's reveal decides it (issue 48, item 5): a walk over the
deck, for every question screen Q, of everything the projector shows before Q's reveal, checked against the
answer the lab computes for Q (classroom/deck_questions.py's `screen_question`; the film questions' from the
real training runs, tests/films.py).

Two rules, each a precise test rather than a judgement:

(a) Words. The texts the projector shows before Q's reveal are the titles of screens 1..Q and the prompts of
    the question screens 1..Q (Q's choices list every answer alike). A text *states* Q's answer when it holds a
    phrase of a right choice and no phrase of a wrong one. A choice's phrases (`phrases`, matched whole and
    case-insensitively) are the ways a text names it: a word piece quoted on its own (“mat”, "mat"); "no row
    is fully blocked" as "no row"; a layer as "layer 1" or "first layer"; a run as "one-layer" or "both".
    In Q's own title and prompt only, where they are about Q's query, rows and lesson, also by its place or
    direction: the piece just before the asked query as "one piece back", "previous", "just before"...; the
    query itself as "itself"; a blocked row as the first or last row, query or token; a change's range as
    "goes up", "stays"... The rule is one-sided on purpose: a text that names every choice, as a prompt that
    quotes the whole sentence does, names none. Q's own prompt quotes some choices whole as its instructions
    (“no row is fully blocked”) or as the query it asks about (“8 because”): those quoted labels are removed
    before matching. It finds what the words say, not what they hint, so it is a floor, not a proof.

(b) Numbers. Q is decided by the numbers its reveal is read from (`needs`): the weights of Q's head in Q's
    lesson (focus, trained), in the lesson after the change (change), the mask of the lesson under the asked
    mask (blocked), the training runs' measured scores up to the step where the answer can be read (film,
    layers). `shows` says, for each screen of the deck, which of those the projector draws: a page's by its
    page and view, a scene's by its step, an earlier question's by its reveal, a film screen's by its run and
    step. A page or scene it does not know fails the test (describe it here), so a new screen is never passed
    unread.

The hiding table (classroom/hiding.py, tests/dashboard/test_room_hiding.py) covers what a student's own pages
show while a question is open; this walk covers the order of the deck itself.
"""

import re
from dataclasses import replace

import pytest

from classroom.catalogue import FILM_KINDS
from classroom.deck_questions import films_needed, screen_question
from classroom.decks import default_deck, parse_deck
from classroom.question import NO_ROW
from core.config import MASKS, POSITIONALS, AttentionConfig
from core.film import INDUCTION_THRESHOLD, Film, LearnSettings
from core.guided_heads import EXAMPLE, HEADS_WORTH_A_LOOK
from core.lesson import with_mask
from tests.films import trained

TRAINED_LAYERS, TRAINED_HEADS = 6, 12  # all-MiniLM-L6-v2: a grid of every head shows all of them


# -- (a) words ---------------------------------------------------------------------------------------------
def _word(label: str) -> str:
    """A token choice's piece without its number: "7 mat" -> "mat"."""
    return label.split(" ", 1)[1] if re.fullmatch(r"\d+ .+", label) else label


def phrases(question, i: int, own: bool) -> tuple[str, ...]:
    """The phrases that name choice `i` of `question` in a text (module docstring, rule a). `own`: the text is
    the question's own title or prompt, where a choice may also be named by its place (the piece before the
    query, the first row) or its direction (a change's "goes up"): those phrases say nothing elsewhere."""
    label = question.choices[i]
    if question.kind in ("focus", "trained", "blocked") and label != NO_ROW:
        piece = _word(label)
        said = [f"“{piece}”", f'"{piece}"', f"‘{piece}’", f"'{piece}'"]
        if not own:
            return tuple(said)
        if question.kind == "blocked":
            rows = len(question.choices) - 1
            place = ["first"] if i == 0 else ["last"] if i == rows - 1 else []
            said += [f"{p} {what}" for p in place for what in ("row", "query", "token")]
        elif i == question.query - 1:
            said += ["one piece back", "one word back", "one back", "previous", "just before", "the piece before",
                     "the word before"]
        elif i == question.query:
            said += ["itself", "its own"]
        return tuple(said)
    if label == NO_ROW:
        return ("no row",)
    if question.kind == "film":
        return {0: ("layer 1", "first layer"), 1: ("layer 2", "second layer")}.get(i, ("no head",))
    if question.kind == "layers":
        return (("only the one-layer", "one layer is enough"), ("only the two-layer", "needs two layers"),
                ("both",), ("neither",))[i]
    if question.kind == "change" and own:
        return ((("goes down", "falls", "drops"),) * 3 + (("stays", "unchanged"),)
                + (("goes up", "rises", "grows"),) * 3)[i]
    return ()


def _names(text: str, phrase: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text, re.IGNORECASE) is not None


def states_answer(text: str, question, own: bool) -> bool:
    """Whether `text` (`own`: the question's own title or prompt) names a right choice of `question` and no
    wrong one."""
    named = {i for i in range(len(question.choices)) if any(_names(text, p) for p in phrases(question, i, own))}
    return bool(named) and named <= set(question.answer)


def own_prompt(question) -> str:
    """Q's prompt without the choices it quotes whole (its instructions, the query it asks about)."""
    text = question.prompt
    for label in question.choices:
        text = text.replace(f"“{label}”", "“”")
    return text


def stated(screens, n: int, question) -> list[str]:
    """Where the words of screens 1..n state the answer of question screen n."""
    found = []
    for screen, asked in screens[:n]:
        texts = [("title", screen.title)]
        if asked is not None:
            texts.append(("prompt", own_prompt(asked) if screen.number == n else asked.prompt))
        found += [f"screen {screen.number}'s {what} {text!r} states the answer of screen {n} ({question.right_choices})"
                  for what, text in texts if states_answer(text, question, screen.number == n)]
    return found


# -- (b) numbers ---------------------------------------------------------------------------------------------
def lesson_id(cfg: AttentionConfig):
    """A lesson as the facts name it: the trained model's by its sentence and layer (the rest is the model's)."""
    return ("trained", cfg.text, cfg.layer) if cfg.source == "trained" else cfg.key()


def weights(cfg: AttentionConfig, heads) -> set:
    drawn = {("weights", lesson_id(cfg), h) for h in heads} | {("mask", lesson_id(cfg))}
    return drawn | ({("head", cfg.layer, h) for h in heads} if cfg.source == "trained" else set())


# The trained heads (layer, 0-based head) whose rule holds on any sentence: the previous-piece note's claim is
# made of every sentence (not "on most"), so its weights on one sentence show where a query looks in another.
RULE_HEADS = {(n.layer, n.head - 1) for n in HEADS_WORTH_A_LOOK
              if any(c.measure == "previous" and not c.on_most for c in n.claims)}


def every_head(cfg: AttentionConfig) -> set:
    return weights(cfg, range(cfg.num_heads))


def _trained(text: str, layers, heads) -> set:
    return {(what, *((("trained", text, layer),) if what == "weights" else (layer,)), h)
            for what in ("weights", "head") for layer in layers for h in heads}


def needs(question, films: dict) -> list[tuple]:
    """What decides `question`: facts every one of which must be shown (module docstring, rule b)."""
    if question.kind == "trained" and (question.reveal_config.layer, question.head) in RULE_HEADS \
            and question.right_choices == (question.choices[question.query - 1],):  # the piece before, as the rule
        return [("head", question.reveal_config.layer, question.head)]
    if question.kind in ("focus", "trained", "change"):
        return [("weights", lesson_id(question.reveal_config), question.head)]
    if question.kind == "blocked":
        return [("mask", lesson_id(question.reveal_config))]
    return [("film", settings) for settings in films]


def readable_at(film: Film, question) -> int:
    """The step from which a film screen's curves (every snapshot up to its step) show what `question` needs of
    this run: the first snapshot where a head of the answer's layer reaches the induction threshold, or the
    run's end where no head of it does (no head's final score is known before then)."""
    scores = film.induction.max(axis=2)  # (snapshots, layers): each layer's best head
    layer = None
    if question.kind == "film" and question.answer[0] < film.settings.layers:
        layer = question.answer[0]
    elif question.kind == "layers" and film.induction_head() is not None:
        layer = int(scores[-1].argmax())
    if layer is None:
        return int(film.snapshots[-1])
    return int(film.snapshots[(scores[:, layer] >= INDUCTION_THRESHOLD).argmax()])


def page_shows(screen) -> set:
    """What a page screen draws of the numbers that decide questions, by its page and view."""
    cfg, view = screen.lesson, dict(screen.view)
    head = int(view.get("head", 1)) - 1
    page = screen.page
    if page in ("default-page", "scaled-dot-product", "attention"):  # one head, one step (steps.py; step 3 default)
        return weights(cfg, [head]) if view.get("step", "3") == "3" else set()
    if page in ("multi-head", "worked-example"):  # every head's weights
        return every_head(cfg)
    if page == "masking":  # the lesson under the mask kind shown (its own, causal when it has none)
        shown = view.get("show", cfg.mask if cfg.mask != "none" else "causal")
        return every_head(with_mask(cfg, shown))
    if page == "why-scale":  # random rows of its own (core.analysis), never the lesson's
        return set()
    if page == "positional":  # the lesson's weights under each encoding, for one head
        return set().union(*(weights(cfg.replace(positional=p), [head]) for p in POSITIONALS))
    if page == "block":  # its formulas and its layouts' vector lengths show no weights; its stages might
        return set() if view.get("part") in ("formulas", "layouts") else every_head(cfg)
    if page == "trained-heads":  # the sidebar's sentence, else the guided sentence (app_pages/trained.py, offered)
        text = cfg.text if cfg.source == "text" else EXAMPLE
        if view.get("part") == "norms":  # the open head, from the view's layer and head
            return _trained(text, [int(view.get("layer", 1))], [head])
        return _trained(text, range(1, TRAINED_LAYERS + 1), range(TRAINED_HEADS))  # the grid, or the whole page
    pytest.fail(f"Screen {screen.number}: the walk does not know what the page {page!r} shows; describe it here.")


def scene_shows(screen, step: str | None) -> set:
    """What a scene's step (`None`: the whole video) draws of the numbers that decide questions."""
    cfg, scene = screen.lesson, screen.scene
    if scene == "scaling":  # random rows (core.analysis), never the lesson's
        return set()
    if scene == "scores" and step in ("project", "dot-product", "scores", "scale"):
        return set()  # vectors and scores, before the softmax
    if scene == "masking" and step in ("scores", "mask", "minus-infinity"):
        shown = with_mask(cfg, cfg.mask if cfg.mask != "none" else "causal")
        return {("mask", lesson_id(shown))}
    if scene == "masking":  # the weights, and the demos of every other mask
        return set().union(*(every_head(with_mask(cfg, m)) for m in MASKS))
    if scene == "scores":
        return every_head(cfg)
    if scene == "trained" and step is not None and (m := re.fullmatch(r"layer-(\d+)-head-(\d+)", step)):
        return _trained(cfg.text, [int(m[1])], [int(m[2]) - 1])
    if scene == "trained" and step in ("trained-model", "word-pieces"):
        return set()
    if scene == "trained":
        return _trained(cfg.text if cfg.source == "trained" else EXAMPLE, range(1, TRAINED_LAYERS + 1),
                        range(TRAINED_HEADS))
    if scene == "induction":  # the default run, whole
        return {("film", LearnSettings(), LearnSettings().steps)}
    pytest.fail(f"Screen {screen.number}: the walk does not know what the scene {scene!r} step {step!r} shows.")


def shows(screen, asked) -> set:
    """What `screen` draws (a question screen: once revealed) of the numbers that decide questions."""
    if screen.kind == "page":
        return page_shows(screen)
    if screen.kind in ("scene", "video"):
        return scene_shows(screen, screen.step if screen.kind == "scene" else None)
    if screen.kind == "film":
        return {("film", screen.film, screen.at)}
    if asked is None:  # a question about training runs, not computed: its reveal shows runs only
        return {("film", settings, settings.steps) for settings in _runs(screen)}
    if asked.kind in ("film", "layers"):  # the reveal: the runs' final measurements
        return {("film", settings, settings.steps) for settings in _runs(screen)}
    return set().union(*(weights(cfg, [asked.head]) for cfg in asked.kind_class.reveal_lessons(asked)))


def _runs(screen):
    return films_needed(screen)


def decided(screens, n: int, question) -> list[str]:
    """Which earlier screens together show everything that decides question screen n (before its reveal)."""
    runs = _runs(screens[n - 1][0])
    found = []
    for fact in needs(question, runs):
        where = []
        for screen, asked in screens[:n - 1]:
            shown = shows(screen, asked)
            if fact[0] == "film":
                film = trained(fact[1])
                if any(s[0] == "film" and s[1] == fact[1] and s[2] >= readable_at(film, question) for s in shown):
                    where.append(screen.number)
            elif fact in shown:
                where.append(screen.number)
        if not where:
            return []  # a fact no earlier screen shows: the question is still open
        found.append(f"{fact[:2]} on screen(s) {where}")
    return [f"screen {n} ({screens[n - 1][0].title!r}, answer {question.right_choices}) is decided before its "
            f"reveal: {'; '.join(found)}"]


# -- the walk -------------------------------------------------------------------------------------------------
def asked_screens(deck, films: bool):
    """Each screen with its question as the lab computes it (None for a screen that asks none). `films`: the
    questions about training runs too (trained here: tests/films.py); without, those are None, since a run's
    numbers decide no lesson's question, and nothing is trained."""
    def asked(s):
        if s.kind != "question" or (not films and s.question in FILM_KINDS):
            return None
        return screen_question(s, trained)

    return [(s, asked(s)) for s in deck.screens]


def giveaways(deck, films: bool = False) -> list[str]:
    """What gives away each question of `deck` (`films`: its questions about training runs, else the others)."""
    screens = asked_screens(deck, films)
    found = []
    for screen, question in screens:
        if question is not None and (question.kind in FILM_KINDS) == films:
            found += stated(screens, screen.number, question) + decided(screens, screen.number, question)
    return found


def test_nothing_the_default_deck_shows_before_a_reveal_decides_a_lesson_question(deck_names):
    """Every question screen of the default deck about a lesson (focus, change, blocked, trained), against
    every screen before its reveal (both rules)."""
    assert giveaways(default_deck(deck_names)) == []


@pytest.mark.slow  # it trains the default film and its one-layer twin (tests/films.py), as test_learn's slow tests do
def test_nothing_the_default_deck_shows_before_a_reveal_decides_a_question_about_training_runs(deck_names):
    """Every question screen of the default deck about training runs (film, layers), against every screen
    before its reveal (both rules), with the runs trained (the default film and its one-layer twin)."""
    deck = default_deck(deck_names)
    assert any(s.question in FILM_KINDS for s in deck.screens), "the check below could find one"
    assert giveaways(deck, films=True) == []


DECK = """title = "t"
[[screen]]
kind = "page"
title = "{title}"
minutes = 1
page = "{page}"
preset = "eight-heads"
{view}
[[screen]]
kind = "question"
title = "{question_title}"
minutes = 1
question = "focus"
preset = "eight-heads"
head = {head}
"""


@pytest.mark.parametrize(("page", "view", "head", "found"), [
    ("multi-head", "", 3, True),  # every head's weights: head 3's row among them
    ("scaled-dot-product", "view = { step = 3, head = 3 }", 3, True),  # head 3's weights
    ("scaled-dot-product", "view = { step = 3, head = 2 }", 3, False),  # another head's
    ("scaled-dot-product", "view = { step = 2, head = 3 }", 3, False),  # its scores: the student reasons from them
])
def test_the_walk_finds_a_page_that_shows_the_asked_head_before_the_question(deck_names, page, view, head, found):
    """Rule b: a page that draws the question's head's weights before the question decides it; one that draws
    another head, or the scores the student predicts from, does not."""
    deck = parse_deck(DECK.format(title="Heads", page=page, view=view, head=head, question_title="Predict"), "t.toml",
                      deck_names)
    assert bool(giveaways(deck)) is found


@pytest.mark.parametrize(("where", "title", "found"), [
    ("question", "Predict: does it look at itself?", True),  # the right piece is the query itself
    ("question", "Predict: at “Attention”?", False),  # a wrong piece: it names no answer
    ("question", "Predict: “every”?", False),  # the right piece's word, which is a wrong piece's too ("3 every")
    ("question", "Predict: one head of eight", False),
    ("page", "Does a query look at itself?", False),  # a place says nothing outside the question's own words
])
def test_the_walk_finds_a_title_that_names_the_answer(deck_names, where, title, found):
    """Rule a, on a question whose answer is the query itself, “7 every” (head 3 of the eight-heads preset, row
    drawn by seed 0, as the lab computes it)."""
    titles = {"title": title, "question_title": "Predict"} if where == "page" else {"title": "Why",
                                                                                     "question_title": title}
    deck = parse_deck(DECK.format(page="why-scale", view="", head=3, **titles), "t.toml", deck_names)
    question = screen_question(deck.screens[1], trained)
    assert question.right_choices == ("7 every",) and question.query == 6
    assert bool(giveaways(deck)) is found


FILM_DECK = """title = "t"
[[screen]]
kind = "film"
title = "Watch it learn"
minutes = 1
at = {at}
[[screen]]
kind = "question"
title = "Predict: which layer?"
minutes = 1
question = "film"
"""


@pytest.mark.slow  # it trains the default film (tests/films.py)
@pytest.mark.parametrize("shift", [-1, 0])
def test_the_walk_finds_a_film_screen_at_the_step_its_answer_can_be_read(deck_names, shift):
    """Rule b for a question about a run: a film screen before it decides it from the first snapshot at which a
    head of the answer's layer reaches the induction threshold (the default run), not a step before."""
    film = trained(LearnSettings())
    question = screen_question(parse_deck(FILM_DECK.format(at=0), "t.toml", deck_names).screens[1], trained)
    step = readable_at(film, question)
    assert 0 < step < film.settings.steps  # the default run forms its induction head midway
    deck = parse_deck(FILM_DECK.format(at=step + shift), "t.toml", deck_names)
    assert bool(giveaways(deck, films=True)) is (shift == 0)



def test_the_trained_heads_grid_before_the_previous_piece_question_decides_it(deck_names):
    """Rule b's rule heads: the grid draws layer 1, head 3 on its own sentence, and that head's rule (the piece
    before, on any sentence) answers where "because" looks in it on another sentence. The default deck once
    showed the grid first (a fresh reader found it); shown first, the walk finds it."""
    deck = default_deck(deck_names)
    grid = next(s for s in deck.screens if s.kind == "page" and dict(s.view).get("part") == "grid")
    question = next(s for s in deck.screens if s.title == "Predict: a trained head of layer 1")
    assert question.number < grid.number
    asked = screen_question(question, trained)
    grid_first = [(replace(grid, number=1), None), (replace(question, number=2), asked)]
    assert decided(grid_first, 2, asked), "the grid before the question decides it"
    other = replace(question, lesson=question.lesson.replace(text="Is it raining in the city today?"))
    assert decided([(replace(grid, number=1), None), (replace(other, number=2), screen_question(other, trained))],
                   2, screen_question(other, trained)), "on any sentence"
