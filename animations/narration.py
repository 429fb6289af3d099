"""A scene's narration: what each section says and how long the section must last.

A section lasts as long as its animation or its speech (plus a short pause), whichever is
longer. The counting pass of a scene gives every caption and each section's animation time;
the speech of all captions is started at once (one Piper process) and read section by
section while the scene is drawn. No manim here.
"""

from dataclasses import dataclass
from pathlib import Path

from .speech import spoken
from .voice import Speech, Synthesis, Voice

LEAD = 0.3  # seconds from a section's start to its first word: the picture changes, then the voice
TAIL = 0.7  # seconds of quiet after the last word, before the next section
MAX_STRETCH = 1.6  # animations slow down at most this much to follow the voice; longer speech holds the last frame


@dataclass(frozen=True)
class Timing:
    speech: Speech
    stretch: float  # run times of this section's animations are multiplied by this
    seconds: float  # the section lasts at least this long


class Narration:
    """The speech of one scene, section by section, for a given voice."""

    def __init__(self, captions: list[str], animation_seconds: list[float], voice: Voice, tts_dir: Path):
        if len(captions) != len(animation_seconds):
            raise ValueError("one animation time per caption")
        self.captions = list(captions)
        self.spoken = [spoken(c) for c in self.captions]
        self.animation_seconds = list(animation_seconds)
        self.voice = voice
        self.synthesis = Synthesis(self.spoken, voice, tts_dir)

    def timing(self, index: int, caption: str) -> Timing:
        """Section `index`'s speech and pace; waits until Piper has spoken it."""
        if caption != self.captions[index]:
            raise RuntimeError(f"section {index} says something else than when it was counted: {caption!r}")
        speech = self.synthesis.get(index)
        need = LEAD + speech.seconds + TAIL
        drawn = self.animation_seconds[index]
        stretch = min(max(need / drawn, 1.0), MAX_STRETCH) if drawn > 0 else 1.0
        return Timing(speech, stretch, need)

    def close(self):
        self.synthesis.close()
