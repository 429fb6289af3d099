"""Every scene step the default deck names is a step of that scene, for the deck's lesson: a deck
checks a step's form on load, and only the scene's own run knows its steps."""

import importlib

from animations.catalog import SCENES
from classroom.decks import default_deck


def test_every_step_of_the_default_deck_is_one_its_scene_takes(deck_names):
    screens = [s for s in default_deck(deck_names).screens if s.kind == "scene"]
    assert screens
    for s in screens:
        module, cls = SCENES[s.scene]
        counted = getattr(importlib.import_module(module), cls).counted(s.lesson)  # construct(), nothing drawn
        assert s.step in counted.section_names, (s.title, counted.section_names)
