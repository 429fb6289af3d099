"""`LessonScene`: a manim Scene drawn from one `AttentionConfig`.

It runs `core.run_trace` once, and gives every topic scene the same frame: a title, the
formula of the current step, a footnote, one named section per step, and a subtitle that
lasts the whole step. It also keeps a record (sections, captions, grids drawn) for tests,
and reports each finished animation to `progress` (the render worker's hook).
"""

from manim import DL, DOWN, LEFT, UL, UR, FadeIn, FadeOut, MarkupText, Scene, Text, Transform

from core import PRESETS, AttentionConfig, run_trace

from .. import style
from ..mobjects import Label, formula, label

TITLE_SIZE = 30
NOTE_SIZE = 16
READING_RATE = 18  # characters per second: a step lasts at least as long as its subtitle takes to read
CONTENT_TOP, CONTENT_BOTTOM, CONTENT_WIDTH = 2.95, -3.5, 13.6  # the frame is 14.2 x 8 units


class LessonScene(Scene):
    preset = "default"  # the lesson when run by hand (`manim -ql ... Scene`)
    title = ""
    reading_pause = 1.5  # seconds of stillness after each step, to read the subtitle
    counting = False  # True: construct() only counts the animations (the worker's first pass)
    record_layout = False  # True: keep the boxes of every text at the end of each step (tests)
    snapshot_dir = None  # a folder: save the frame at the end of each step there as a PNG (tests)

    def __init__(self, cfg: AttentionConfig | None = None, progress=None, **kwargs):
        self.cfg = cfg if cfg is not None else PRESETS[self.preset]
        self.trace = run_trace(self.cfg)
        self.variants = {"main": self.cfg}  # name -> config of every trace the scene draws
        self.traces = {"main": self.trace}
        self.section_names: list[str] = []
        self.captions: list[str] = []
        self.grids: list = []  # every AttentionGrid / bar row shown, for tests
        self.layouts: list[tuple[str, list]] = []  # (step, [(text, box)]) when record_layout
        self.progress = progress  # called with the number of animations done (wait counts too)
        self.animations_done = 0
        self._caption = None  # (text, start time) of the running step
        self._formula = None
        self._note = None
        super().__init__(**kwargs)

    # -- variants ---------------------------------------------------------------------------
    def variant(self, name: str, cfg: AttentionConfig):
        """The trace of a related lesson (same tokens, another mask...), remembered by name."""
        self.variants[name] = cfg
        self.traces[name] = run_trace(cfg)
        return self.traces[name]

    def show(self, grid):
        """Record a grid as drawn (tests compare its numbers with run_trace) and return it."""
        self.grids.append(grid)
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
        self._caption = (caption, 0.0 if self.counting else self.time)
        if not self.counting:
            self.next_section(name)
        changes = []
        if markup is not None:
            new = formula(markup).to_corner(UR, buff=0.3)
            new.set_color_by_gradient(style.TEXT_LIGHT)
            changes.append(Transform(self._formula, new) if self._formula else FadeIn(new))
            self._formula = self._formula or new
        if note is not None:
            new = label(note, NOTE_SIZE, color=style.MASKED)
            if new.width > CONTENT_WIDTH:
                new.scale_to_fit_width(CONTENT_WIDTH)
            new.to_edge(DOWN, buff=0.15).to_edge(LEFT, buff=0.3)
            changes.append(Transform(self._note, new) if self._note else FadeIn(new))
            self._note = self._note or new
        if changes:
            self.play(*changes, run_time=0.5)

    def _close_caption(self):
        """End the running step: a pause until its subtitle can be read, then the subtitle itself."""
        if self._caption is not None:
            text, start = self._caption
            reading = len(text) / READING_RATE - (0.0 if self.counting else self.time - start)
            self.wait(max(reading, 0.2))  # always one wait, so that counting matches rendering
            self._caption = None
            if self.counting:
                return
            self.add_subcaption(text, duration=max(self.time - start, 0.1), offset=start - self.time)

    def place(self, group, top=CONTENT_TOP, bottom=CONTENT_BOTTOM, width=CONTENT_WIDTH):
        """Centre `group` in the content area (below the title, above the footnote), shrunk to fit."""
        if group.height > top - bottom:
            group.scale((top - bottom) / group.height)
        if group.width > width:
            group.scale(width / group.width)
        return group.move_to([0, (top + bottom) / 2, 0])

    def hold(self, seconds: float | None = None):
        self.wait(self.reading_pause if seconds is None else seconds)

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

    def _record_layout(self):
        """The text on screen now, as (string, (x0, y0, x1, y1)), to check overlaps and margins."""
        if not self.record_layout or not self.section_names:
            return
        texts = []
        for mob in self.mobjects:
            for part in mob.get_family():
                if isinstance(part, Label | Text | MarkupText) and part.get_fill_opacity() > 0:
                    (x0, y0, _), (x1, y1, _) = part.get_corner(DL), part.get_corner(UR)
                    texts.append((part.text, (x0, y0, x1, y1)))
        self.layouts.append((self.section_names[-1], texts))
        if self.snapshot_dir is not None:
            from PIL import Image

            self.renderer.update_frame(self, ignore_skipping=True)
            path = f"{self.snapshot_dir}/{type(self).__name__}-{len(self.layouts):02d}-{self.section_names[-1]}.png"
            Image.fromarray(self.renderer.get_frame()).save(path)

    # -- progress ---------------------------------------------------------------------------
    def play(self, *args, **kwargs):  # Scene.wait plays a Wait, so waits count too
        if not self.counting:
            super().play(*args, **kwargs)
        self._tick()

    def _tick(self):
        self.animations_done += 1
        if self.progress is not None:
            self.progress(self.animations_done)
