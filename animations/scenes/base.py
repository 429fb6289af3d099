"""`LessonScene`: a manim Scene drawn from one `AttentionConfig`.

It runs `core.run_trace` once, and gives every topic scene the same frame: a title, the
formula of the current step, a footnote, one named section per step, and a subtitle that
lasts the whole step. With a `Narration`, each step also speaks its caption and lasts as
long as its animation or its speech, whichever is longer (the animations slow down to follow
the voice). It keeps a record (sections, captions, grids drawn) for tests, and reports each
finished animation to `progress` (the render worker's hook).
"""

import logging
from pathlib import Path

from manim import UL, UR, Animation, FadeIn, FadeOut, ReplacementTransform, Scene, config

from animations import style
from animations.mobjects import formula, label
from animations.narration import LEAD, Narration, count_and_speak
from animations.scenes import footnote
from core import PRESETS, AttentionConfig, run_trace

log = logging.getLogger(__name__)
AUTO = "auto"  # narration when run by hand (`manim -ql ...`): the default voice if Piper is installed

TITLE_SIZE = 30
READING_RATE = 18  # characters per second: a step lasts at least as long as its subtitle takes to read
CONTENT_TOP, CONTENT_BOTTOM, CONTENT_WIDTH = 2.95, -3.5, 13.6  # the frame is 14.2 x 8 units
CONTENT_HEIGHT = CONTENT_TOP - CONTENT_BOTTOM


class LessonScene(Scene):
    preset = "default"  # the lesson when run by hand (`manim -ql ... Scene`)
    title = ""
    reading_pause = 1.5  # seconds of stillness after each step, to read the subtitle
    counting = False  # True: construct() only counts the animations (the worker's first pass)
    on_caption = None  # counting: called with each caption as the pass reaches it
    record_layout = False  # True: keep the boxes of every text at the end of each step (tests)
    snapshot_dir = None  # a folder: save the frame at the end of each step there as a PNG (tests)

    def __init__(self, cfg: AttentionConfig | None = None, progress=None, narration: Narration | str | None = AUTO,
                 **kwargs):
        self.cfg = cfg if cfg is not None else PRESETS[self.preset]
        self.narration = narration  # a Narration, None (silent) or AUTO
        self.trace = run_trace(self.cfg)
        self.variants = {"main": self.cfg}  # name -> config of every trace the scene draws
        self.traces = {"main": self.trace}
        self.section_names: list[str] = []
        self.captions: list[str] = []
        self.grids: list = []  # every AttentionGrid / bar row shown, for tests
        self.layouts: list[tuple[str, list]] = []  # (step, [(text, box)]) when record_layout
        self.progress = progress  # called with the number of animations done (wait counts too)
        self.animations_done = 0
        self.section_seconds: list[float] = []  # each step's animation time before any stretch (counting pass)
        self.timings: list = []  # each step's narration Timing, when narrated
        self.sounds: list[tuple[Path, float]] = []  # (speech wav, second it starts): the sound track
        self._stretch, self._closing = 1.0, False
        self._caption = None  # (text, start time, seconds at least) of the running step
        self._formula = None
        self._note = None  # the footnote on stage (see .footnote), its text, and the step's own text
        self._note_text = ""
        self.colour_only_steps: list[str] = []  # steps with a grid too small for legible numbers
        super().__init__(**kwargs)

    # -- variants ---------------------------------------------------------------------------
    def variant(self, name: str, cfg: AttentionConfig):
        """The trace of a related lesson (same tokens, another mask...), remembered by name."""
        self.variants[name] = cfg
        self.traces[name] = run_trace(cfg)
        return self.traces[name]

    def show(self, grid):
        """Record a grid as drawn (tests compare its numbers with run_trace) and return it; the
        footnote says so when its cells are too small for legible numbers."""
        self.grids.append(grid)
        step = self.section_names[-1] if self.section_names else ""
        if getattr(grid, "numbers_dropped", False) and step not in self.colour_only_steps:
            self.colour_only_steps.append(step)
            new = footnote.build(footnote.join(self._note_text, footnote.COLOUR_ONLY), CONTENT_WIDTH)
            if self._note is not None:
                self.remove(self._note)
            self._note = new
            self.add(new)  # with the grid that needs it; no animation, so counting stays exact
        return grid

    # -- the frame --------------------------------------------------------------------------
    def setup(self):
        self.camera.background_color = "#111111"
        self._title = label(self.title, TITLE_SIZE, bold=True).to_corner(UL, buff=0.3)
        self.add(self._title)

    def step(self, name: str, caption: str, markup: str | None = None, note: str | None = None):
        """Start a named section with its subtitle, formula (top right) and footnote."""
        self._close_caption()
        self._record_layout()
        self.section_names.append(name)
        self.captions.append(caption)
        self.section_seconds.append(0.0)
        least = 0.0
        if self.counting and self.on_caption is not None:
            self.on_caption(caption)
        if not self.counting:
            self.next_section(name)
            least = self._speak(caption)
        self._caption = (caption, 0.0 if self.counting else self.time, least)
        changes = []
        if markup is not None:
            new = formula(markup).to_corner(UR, buff=0.3)
            new.set_color_by_gradient(style.TEXT_LIGHT)
            changes.append(ReplacementTransform(self._formula, new) if self._formula is not None else FadeIn(new))
            self._formula = new  # the new text itself stays on stage (tests read its string and size)
        self._note_text = note if note is not None else self._note_text
        if self._note_text and (self._note is None or self._note.text != self._note_text):
            new = footnote.build(self._note_text, CONTENT_WIDTH)
            changes.append(ReplacementTransform(self._note, new) if self._note is not None else FadeIn(new))
            self._note = new
        if changes:
            self.play(*changes, run_time=0.5)

    def _speak(self, caption: str) -> float:
        """Start this step's speech; returns how long the step must last for it (0 when silent)."""
        self._stretch = 1.0
        if not isinstance(self.narration, Narration):
            return 0.0
        timing = self.narration.timing(len(self.captions) - 1, caption)
        self.timings.append(timing)
        self.sounds.append((Path(timing.speech.path), self.time + LEAD))
        self._stretch = timing.stretch
        return timing.seconds

    def _close_caption(self):
        """End the running step: a pause until its subtitle can be read and its speech is over,
        then the subtitle itself."""
        if self._caption is not None:
            text, start, least = self._caption
            elapsed = 0.0 if self.counting else self.time - start
            self._closing = True
            Scene.wait(self, max(len(text) / READING_RATE - elapsed, least - elapsed, 0.2))  # one wait, always
            self._closing, self._stretch, self._caption = False, 1.0, None
            if self.counting:
                return
            self.add_subcaption(text, duration=max(self.time - start, 0.1), offset=start - self.time)

    def place(self, group, top=CONTENT_TOP, bottom=None, width=CONTENT_WIDTH):
        """Centre `group` in the content area (below the title, above the footnote), shrunk to fit."""
        if bottom is None:  # above a footnote of two lines
            bottom = max(CONTENT_BOTTOM, self._note.get_top()[1] + 0.1) if self._note is not None else CONTENT_BOTTOM
        if group.height > top - bottom:
            group.scale((top - bottom) / group.height)
        if group.width > width:
            group.scale(width / group.width)
        return group.move_to([0, (top + bottom) / 2, 0])

    def hold(self, seconds: float | None = None):
        self.wait(self.reading_pause if seconds is None else seconds)

    def wait(self, duration: float = 1.0, **kwargs):  # a pause inside a step stretches with the voice
        super().wait(duration * self._stretch, **kwargs)

    def clear_stage(self, *keep):
        """Fade out everything but the title, the formula, the footnote and `keep`."""
        fixed = {id(m) for m in (self._title, self._formula, self._note, *keep) if m is not None}
        gone = [m for m in self.mobjects if id(m) not in fixed]
        if gone:
            self.play(*[FadeOut(m) for m in gone], run_time=0.5)
        else:  # always one animation, so that counting (nothing on stage) matches rendering
            self.wait(0.5)

    def tear_down(self):
        self._close_caption()
        self._record_layout()

    # -- narration --------------------------------------------------------------------------
    @classmethod
    def counted(cls, cfg: AttentionConfig, on_caption=None) -> "LessonScene":
        """The scene after a construct() that plays nothing: its captions, its number of
        animations and each step's animation time, before anything is drawn. `on_caption` is
        called with each caption as the pass reaches it."""
        scene = cls(cfg, narration=None)
        scene.counting = True
        scene.on_caption = on_caption
        scene.setup()
        scene.construct()
        scene.tear_down()  # the last step's closing pause
        return scene

    def render(self, preview: bool = False):
        """Render, narrated if asked; then add the WebVTT subtitles, the subtitle track and the
        sections' sound (see animations.media)."""
        if self.narration == AUTO:
            self.narration = None if config.dry_run else auto_narration(type(self), self.cfg)
        try:
            result = super().render(preview)
        finally:
            if isinstance(self.narration, Narration):
                self.narration.close()
        if not config.dry_run:
            finish_files(self)
        return result

    def _record_layout(self):
        """The text on screen now (animations.layout.Drawn: string, box, size, colour, backdrop),
        to check margins, overlaps, sizes and contrast."""
        if not self.record_layout or not self.section_names:
            return
        from animations.layout import texts_on_stage

        self.layouts.append((self.section_names[-1], texts_on_stage(self.mobjects)))
        if self.snapshot_dir is not None:
            from PIL import Image

            self.renderer.update_frame(self, ignore_skipping=True)
            path = f"{self.snapshot_dir}/{type(self).__name__}-{len(self.layouts):02d}-{self.section_names[-1]}.png"
            Image.fromarray(self.renderer.get_frame()).save(path)

    # -- progress ---------------------------------------------------------------------------
    def play(self, *args, **kwargs):  # Scene.wait plays a Wait, so waits count too
        run_time = kwargs.get("run_time") or max((a.run_time for a in args if isinstance(a, Animation)),
                                                 default=1.0)
        if self.section_seconds and not self._closing:
            self.section_seconds[-1] += run_time
        if not self.counting:
            if "run_time" in kwargs:
                kwargs["run_time"] = kwargs["run_time"] * self._stretch
            super().play(*args, **kwargs)
        self._tick()

    def _tick(self):
        self.animations_done += 1
        if self.progress is not None:
            self.progress(self.animations_done)


def auto_narration(cls, cfg) -> Narration | None:
    """The default voice for a scene run by hand (`manim -ql ...`), or None with one log line."""
    from animations.voice import Voice, missing

    why = missing()
    if why:
        log.warning(why)
        return None
    return count_and_speak(cls, cfg, Voice(), Path(config.media_dir) / "tts")[1]


def finish_files(scene) -> None:
    """The WebVTT copy, the subtitle track, the narration's sound track (the movie's and each
    section clip's), beside manim's files (see animations.media)."""
    from animations import media

    writer = scene.manager.file_writer
    movie = getattr(writer, "final_file_path", None)
    if movie is None or not Path(movie).is_file() or Path(movie).suffix != ".mp4":
        return
    movie = Path(movie)
    srt = movie.with_suffix(".srt")
    media.write_vtt(srt)
    audio = media.narration_track(scene.sounds, scene.time, movie.with_name(f".{movie.stem}.narration.wav")) \
        if scene.sounds else None
    try:
        media.finish_movie(movie, srt, audio)
        index = next(iter(sorted(Path(writer.sections_output_dir).glob("*.json"))), None) \
            if audio is not None and writer.output_spec.save_sections else None
        if index is not None:
            media.voice_sections(index, audio)
    finally:
        if audio is not None:
            audio.unlink(missing_ok=True)
