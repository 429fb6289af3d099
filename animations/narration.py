"""A scene's narration: what each section says and how long the section must last.

A section lasts as long as its animation or its speech (plus a short pause), whichever is
longer. The counting pass of a scene gives every caption and each section's animation time;
each caption goes to Piper (one process per scene) as soon as the counting pass reaches it,
and its speech is read section by section while the scene is drawn. No manim here.
"""

from dataclasses import dataclass
from pathlib import Path

from animations.speech import spoken
from animations.voice import Speech, Synthesis, Voice

LEAD = 0.3  # seconds from a section's start to its first word: the picture changes, then the voice
# After the last word the picture holds, so the class can look at what was just said: at least
# TAIL seconds, and HOLD of the speech's length for a long sentence (speech fills under 85 %).
TAIL = 1.0
HOLD = 0.2
MAX_STRETCH = 1.6  # animations slow down at most this much to follow the voice; longer speech holds the last frame


@dataclass(frozen=True)
class Timing:
    speech: Speech
    stretch: float  # run times of this section's animations are multiplied by this
    seconds: float  # the section lasts at least this long


class Narration:
    """The speech of one scene, section by section, for a given voice."""

    def __init__(self, captions: list[str], animation_seconds: list[float], voice: Voice, tts_dir: Path,
                 synthesis: Synthesis | None = None):
        """`synthesis`: one already speaking these captions (see `count_and_speak`)."""
        if len(captions) != len(animation_seconds):
            raise ValueError("one animation time per caption")
        self.captions = list(captions)
        self.spoken = [spoken(c) for c in self.captions]
        self.animation_seconds = list(animation_seconds)
        self.voice = voice
        if synthesis is None:
            synthesis = Synthesis(self.spoken, voice, tts_dir)
        elif synthesis.texts != self.spoken or synthesis.voice != voice:
            raise ValueError("the synthesis speaks other sentences than these captions")
        self.synthesis = synthesis

    def timing(self, index: int, caption: str) -> Timing:
        """Section `index`'s speech and pace; waits until Piper has spoken it."""
        if caption != self.captions[index]:
            raise RuntimeError(f"section {index} says something else than when it was counted: {caption!r}")
        speech = self.synthesis.get(index)
        need = LEAD + speech.seconds + max(TAIL, HOLD * speech.seconds)
        drawn = self.animation_seconds[index]
        stretch = min(max(need / drawn, 1.0), MAX_STRETCH) if drawn > 0 else 1.0
        return Timing(speech, stretch, need)

    def close(self):
        self.synthesis.close()


def count_and_speak(scene_class, cfg, voice: Voice, tts_dir: Path):
    """(the counted scene, its Narration): the scene's counting pass, with each caption handed
    to Piper the moment the pass reaches it, so that Piper's start and the first sentences
    overlap the counting instead of following it."""
    synthesis = Synthesis([], voice, tts_dir)
    try:
        counted = scene_class.counted(cfg, on_caption=lambda caption: synthesis.add(spoken(caption)))
        return counted, Narration(counted.captions, counted.section_seconds, voice, tts_dir, synthesis)
    except BaseException:
        synthesis.close()
        raise
