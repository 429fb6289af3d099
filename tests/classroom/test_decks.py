"""The default deck, and decks read as the dashboard will read them: against the lab's real pages,
scenes, view names and scene rules (tests/classroom/test_deck_files.py: bad and hostile files)."""

import re
import tomllib

import numpy as np
import pytest

from classroom import kinds
from classroom.decks import DEFAULT_DECK, DeckError, default_deck, parse_deck
from core import PRESETS, run_trace
from core.film import LearnSettings


@pytest.fixture(scope="module")
def deck(deck_names):
    return default_deck(deck_names)


def test_the_default_deck_loads_and_plans_45_to_50_minutes(deck):
    assert deck.title and len(deck.screens) >= 12
    assert 45 <= deck.minutes <= 50
    assert [s.number for s in deck.screens] == list(range(1, len(deck.screens) + 1))


# The issue's topics, in its order, each as the first screen that covers it.
TOPICS = {
    "the worked example": lambda s: s.page == "worked-example" and s.lesson == PRESETS["article-2x2"],
    "Q·Kᵀ": lambda s: s.page == "scaled-dot-product" and dict(s.view).get("step") == "2",
    "√d_k": lambda s: s.page == "why-scale",
    "softmax": lambda s: s.page == "scaled-dot-product" and dict(s.view).get("step") == "3",
    "masks": lambda s: s.page == "masking",
    "heads": lambda s: s.page == "multi-head",
    "positions": lambda s: s.page == "positional",
    "the block": lambda s: s.page == "block",
    "trained heads": lambda s: s.page == "trained-heads",
    "weight against contribution": lambda s: s.page == "trained-heads" and "contribution" in s.title,
    "watching attention learn": lambda s: s.kind == "film",
    "the induction film": lambda s: s.kind == "video" and s.scene == "induction",
}


def test_the_default_deck_covers_the_issues_topics_in_order(deck):
    first = {topic: next((s.number for s in deck.screens if covers(s)), None) for topic, covers in TOPICS.items()}
    assert None not in first.values(), first
    assert list(first.values()) == sorted(first.values()) and len(set(first.values())) == len(first), first


def test_the_default_deck_interleaves_at_least_six_room_questions(deck):
    asked = [s.number for s in deck.screens if s.kind == "question"]
    assert len(asked) >= 6
    assert all(b - a > 1 for a, b in zip(asked, asked[1:], strict=False)), "two questions in a row"
    assert asked[0] < len(deck.screens) / 3 and asked[-1] > 2 * len(deck.screens) / 3


def test_every_page_scene_and_preset_the_default_deck_names_exists(deck, deck_names):
    raw = tomllib.loads(DEFAULT_DECK.read_text(encoding="utf-8"))["screen"]
    assert {s["preset"] for s in raw if "preset" in s} <= PRESETS.keys()
    assert {s.page for s in deck.screens if s.kind == "page"} <= deck_names.pages
    assert {s.scene for s in deck.screens if s.kind in ("scene", "video")} <= deck_names.scenes
    assert {s.question for s in deck.screens if s.kind == "question"} <= kinds.KINDS.keys()


def test_every_lesson_question_of_the_default_deck_can_be_asked(deck):
    """The room makes each with the registry's own call; none says the lesson offers nothing to ask."""
    for s in deck.screens:
        if s.kind == "question" and kinds.kind_of(s.question).from_lesson:
            question = kinds.suggest(s.lesson, s.question, s.head, s.seed, s.change, s.mask)
            assert question.kind == s.question and question.head == s.head
            assert question.change == (s.change or s.mask or question.change)


def test_the_film_screens_show_the_default_run_from_its_start_to_its_end(deck):
    films = [s for s in deck.screens if s.kind == "film" or s.question == "film"]
    assert films and all(s.film == LearnSettings() for s in films)
    assert [s.at for s in films if s.kind == "film"] == [0, LearnSettings().steps]


def test_the_worked_examples_numbers_are_cores(deck):
    """The one screen that quotes numbers: the weights it quotes are run_trace's, to the printed digit."""
    screen = next(s for s in deck.screens if s.page == "worked-example")
    quoted = {float(x) for x in re.findall(r"\d\.\d{3}", screen.notes + screen.handout)}
    weights = run_trace(screen.lesson).weights[0]  # (T, T)
    assert quoted == {round(float(w), 3) for w in np.unique(weights.round(3))} == {0.670, 0.330}


def test_no_other_screen_quotes_a_number(deck):
    """A note's number must be one a test computes; the others point at what their screen shows."""
    for s in deck.screens:
        if s.page != "worked-example":
            assert not re.search(r"\d\.\d", s.notes + s.handout), s.title


GOOD = '''
title = "A small deck"
[[screen]]
kind = "page"
title = "Masking, causal"
minutes = 2
page = "masking"
preset = "article-causal"
view = { mask_stage = 2 }
notes = "Blocked cells become −∞."
handout = "A mask blocks keys."

[[screen]]
kind = "page"
title = "My own lesson"
minutes = 1.5
page = "scaled-dot-product"
lesson = { text = "Dogs chase cats.", d_model = 8, num_heads = 2, scale = false, temperature = 0.5 }

[[screen]]
kind = "page"
title = "By hand"
minutes = 1
page = "worked-example"
[screen.lesson]
source = "manual"
d_model = 2
num_heads = 1
q = [[1, 0], [0, 1]]
k = [[1.0, 0.0], [0.0, 1.0]]
v = "10,0;0,20"
mask = "custom"
custom_mask = [[true, false], [1, 1]]

[[screen]]
kind = "scene"
title = "Softmax"
minutes = 1
scene = "scores"
step = "softmax"

[[screen]]
kind = "question"
title = "Blocked rows"
minutes = 2
question = "blocked"
preset = "padding"
mask = "window"
head = 2

[[screen]]
kind = "film"
title = "One layer"
minutes = 1
at = 40
film = { layers = 1, heads = 2, d_model = 32, steps = 100, causal = true }
'''


def test_a_deck_reads_pages_lessons_views_steps_questions_and_films(deck_names):
    deck = parse_deck(GOOD, "small.toml", deck_names)
    masking, own, by_hand, scene, question, film = deck.screens
    assert masking.lesson == PRESETS["article-causal"] and masking.view == (("mask_stage", "2"),)
    assert own.lesson == PRESETS["default"].replace(text="Dogs chase cats.", d_model=8, num_heads=2, scale=False,
                                                    temperature=0.5)
    assert by_hand.lesson == PRESETS["article-2x2"].replace(mask="custom", custom_mask=((True, False), (True, True)))
    assert (scene.scene, scene.step) == ("scores", "softmax")
    assert (question.question, question.mask, question.head) == ("blocked", "window", 1)  # 1-based in the file
    assert film.film == LearnSettings(layers=1, heads=2, d_model=32, steps=100) and film.at == 40
    assert deck.minutes == 8.5 and masking.notes.endswith("−∞.")


def test_a_deck_read_from_bytes_is_the_same_deck(deck_names):
    assert parse_deck(GOOD.encode("utf-8"), "small.toml", deck_names) == parse_deck(GOOD, "small.toml", deck_names)


def test_a_deck_saved_on_windows_reads_the_same(deck_names):
    windows = GOOD.replace("\n", "\r\n")
    assert parse_deck(windows, "small.toml", deck_names) == parse_deck(GOOD, "small.toml", deck_names)


def test_a_scene_that_cannot_draw_the_lesson_is_refused_in_the_catalogues_words(deck_names):
    text = GOOD.replace('scene = "scores"', 'scene = "trained"')
    with pytest.raises(DeckError) as caught:
        parse_deck(text, "small.toml", deck_names)
    assert (caught.value.screen, caught.value.field) == (4, "lesson")
    assert "trained lesson" in str(caught.value) and str(caught.value).startswith("Screen 4 ('Softmax')")


def test_the_example_of_docs_decks_md_is_a_deck(deck_names):
    text = (DEFAULT_DECK.parents[2] / "docs" / "decks.md").read_text(encoding="utf-8")
    example = text.split("```toml\n", 1)[1].split("```", 1)[0]
    assert [s.kind for s in parse_deck(example, "decks.md", deck_names).screens] == [
        "page", "scene", "question", "film", "video"]
