"""The videos' transcripts in the students' handout (issue 48 item 12): a scene screen prints the words its
step's narrator speaks, a video screen every step's, in order; they are the scene's own captions (the text the
.srt/.vtt are written from), counted without a render; a handout made without them says so."""

import html
import re

import pytest

from animations.transcripts import counted_captions, transcripts
from classroom.decks import default_deck, parse_deck
from classroom.handout import build_handout
from classroom.handout_transcript import NONE_GIVEN, NOT_HERE


@pytest.fixture(scope="module")
def deck(deck_names):
    return default_deck(deck_names)


def _transcript(text: str, number: int) -> list[str] | None:
    found = re.search(rf'<details class="transcript" data-lab="transcript" data-screen="{number}" open>'
                      r"<summary>[^<]*</summary>(.*?)</details>", text, re.S)
    return None if found is None else [html.unescape(p) for p in re.findall(r"<p>(.*?)</p>", found.group(1), re.S)]


def in_process(videos):
    return [counted_captions(scene, cfg) for scene, cfg in videos]


def test_a_scene_screen_prints_its_steps_caption_and_a_video_screen_every_caption_in_order(deck_names):
    deck = parse_deck('title = "t"\n'
                      '[[screen]]\nkind = "scene"\ntitle = "A step"\nminutes = 1\nscene = "scores"\nstep = "softmax"\n'
                      '[[screen]]\nkind = "video"\ntitle = "The video"\nminutes = 1\nscene = "masking"\n',
                      "t.toml", deck_names)
    text = build_handout(deck, transcripts=in_process)
    from animations.scenes.masking import MaskingScene
    from animations.scenes.scores import ScoresScene

    scores, masking = ScoresScene.counted(deck.screens[0].lesson), MaskingScene.counted(deck.screens[1].lesson)
    assert _transcript(text, 1) == [scores.captions[scores.section_names.index("softmax")]]
    assert _transcript(text, 2) == masking.captions and len(masking.captions) > 3


def test_a_video_that_cannot_be_counted_here_and_a_handout_without_transcripts_say_so(deck):
    text = build_handout(deck, transcripts=lambda videos: [None] * len(videos))
    scenes = [s.number for s in deck.screens if s.kind in ("scene", "video") and not s.unready]
    assert scenes and all(_transcript(text, n) is None for n in scenes)
    assert text.count(html.escape(NOT_HERE)) == len(scenes)
    assert html.escape(NONE_GIVEN) in build_handout(deck)


def test_the_child_process_counts_the_same_captions_as_the_scene(deck):
    s = next(s for s in deck.screens if s.kind == "scene" and s.scene == "scores")
    assert transcripts([(s.scene, s.lesson)]) == [counted_captions(s.scene, s.lesson)]
