"""A video's transcript in the students' handout: the captions its narrator speaks (the `.srt`/`.vtt` text),
in order, for a whole video; for a scene screen, the step it shows. classroom may not import the scenes, so the
caller hands the counted captions in (animations/transcripts.py counts them: dashboard/handout.py and the
presenter view's handout pass it); a handout made without them says where the transcript is.
"""

import html
from collections.abc import Callable

from classroom.decks import Screen
from core.config import AttentionConfig

e = html.escape
# videos -> their [(step, caption), ...] or None, in order (animations.transcripts.transcripts)
Transcripts = Callable[[list[tuple[str, AttentionConfig]]], list]
NONE_GIVEN = "This handout was made without the videos' transcripts; the lab's videos show them as captions."
NOT_HERE = "This video's narration could not be read when this handout was made."


def videos(screens) -> list[tuple[str, AttentionConfig]]:
    """The distinct (scene, lesson) of the deck's scene and video screens, in deck order."""
    out = []
    for s in screens:
        if s.kind in ("scene", "video") and not s.unready and (s.scene, s.lesson) not in out:
            out.append((s.scene, s.lesson))
    return out


def counted(screens, transcripts: Transcripts | None) -> dict | None:
    """(scene, lesson) -> its [(step, caption), ...] or None; None when no transcripts were given."""
    if transcripts is None:
        return None
    wanted = videos(screens)
    return dict(zip(wanted, transcripts(wanted), strict=True))


def transcript_html(s: Screen, known: dict | None) -> str:
    """The transcript of a scene or video screen (its step's words for a scene screen)."""
    what = "this step of the video" if s.kind == "scene" else "the video"
    if s.unready:  # the handout says why the screen is not ready
        return ""
    if known is None:
        return f'<p class="meta">{e(NONE_GIVEN)}</p>'
    steps = known.get((s.scene, s.lesson))
    if steps is None:
        return f'<p class="meta">Transcript: {e(NOT_HERE)}</p>'
    said = [caption for step, caption in steps if s.kind == "video" or step == s.step]
    if not said:
        return f'<p class="meta">Transcript: the video has no step {e(s.step)}.</p>'
    words = "".join(f"<p>{e(caption)}</p>" for caption in said)
    return (f'<details class="transcript" data-lab="transcript" data-screen="{s.number}" open>'
            f"<summary>Transcript of {what} (its narration, word for word)</summary>{words}</details>")
