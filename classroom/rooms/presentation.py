"""Where a room's presented deck stands, as the room keeps it: the deck, its screen, whether the projector is
blanked, the presenter's clock, whether the deck's handout is shared, and the views of a page screen that the
presenter steered (a step, a head: what the projector's window then shows).

It lives with the room (RoomRegistry.present sets it, the room's teacher only; every view of the room reads it),
not with a browser session: a reload of the presenter view, a second tab, a projector window in one process or
across a hall's all read the same record. Times are epoch seconds (time.time()): a hall's processes share no
monotonic clock. Plain values only, so both backends store it as one JSON string.
"""

import json
import math
import re
from dataclasses import asdict, dataclass, replace

from classroom.decks import MAX_SCREENS

DECK_NAME = re.compile(r"[A-Za-z0-9_-]{1,40}")  # a lab deck's name: its file's name without ".toml"
MAX_PRESENTATION_CHARS = 1200  # its JSON: a handful of short fields, and the numbers of the screens asked
VIEW_TEXT = re.compile(r"[a-z_]{1,20}")  # a steered view's name (classroom/catalogue.py's Steer names)
VIEW_VALUE = re.compile(r"[0-9]{1,3}")  # ... and its value: a step's, a head's number, a switch's 0 or 1
MAX_STEERED = 4


@dataclass(frozen=True)
class Presentation:
    deck: str = ""  # the presented deck's name; "" while no deck is presented
    screen: int = 0  # 1, 2, ...; 0 while none
    blanked: bool = False  # the projector shows black (B or . in the presenter view)
    started: float = 0.0  # when the clock started (epoch seconds); 0: not started
    paused: float = 0.0  # when the clock was paused (epoch seconds); 0: it runs
    paused_total: float = 0.0  # seconds the clock stood paused before `paused`
    handout: bool = False  # the deck's handout is shared with the room's students
    view: tuple = ()  # ((name, value), ...): the screen's views the presenter steered; () at each new screen
    asked: tuple = ()  # the deck's question screens asked in this room: a step back to one asks it not again

    def problem(self) -> str | None:
        """Why this record cannot be kept (a page's bug, never a student's input), or None."""
        if self.deck and not DECK_NAME.fullmatch(self.deck):
            return "A presented deck is named by letters, digits, - and _ (at most 40)."
        if isinstance(self.screen, bool) or not isinstance(self.screen, int) or not 0 <= self.screen <= MAX_SCREENS:
            return f"A deck's screen is a whole number from 1 to {MAX_SCREENS}."
        if not isinstance(self.view, tuple) or len(self.view) > MAX_STEERED or not all(
                isinstance(p, tuple) and len(p) == 2 and all(isinstance(t, str) for t in p)
                and VIEW_TEXT.fullmatch(p[0]) and VIEW_VALUE.fullmatch(p[1]) for p in self.view):
            return f"A steered view is at most {MAX_STEERED} names, each with a number."
        if not isinstance(self.asked, tuple) or len(self.asked) > MAX_SCREENS or not all(
                type(n) is int and 1 <= n <= MAX_SCREENS for n in self.asked):
            return f"The screens asked are whole numbers from 1 to {MAX_SCREENS}."
        times = (self.started, self.paused, self.paused_total)
        if not all(isinstance(t, int | float) and math.isfinite(t) and t >= 0 for t in times):
            return "The presenter's clock holds times that are not moments."
        return None

    @property
    def running(self) -> bool:
        return bool(self.started) and not self.paused

    def elapsed(self, now: float) -> float:
        """Seconds on the clock at `now`: since it started, less the time it stood paused."""
        if not self.started:
            return 0.0
        return max(0.0, (self.paused or now) - self.started - self.paused_total)

    def start(self, now: float) -> "Presentation":
        """The clock started, unless it has started already."""
        return self if self.started else replace(self, started=now, paused=0.0, paused_total=0.0)

    def pause(self, now: float) -> "Presentation":
        return replace(self, paused=now) if self.running else self

    def resume(self, now: float) -> "Presentation":
        if not self.paused:
            return self
        return replace(self, paused=0.0, paused_total=self.paused_total + max(0.0, now - self.paused))

    def restart(self, now: float) -> "Presentation":
        """The clock at 0:00 from `now`, paused if it was."""
        return replace(self, started=now, paused=now if self.paused else 0.0, paused_total=0.0)

    def steered(self, name: str, value: str) -> "Presentation":
        """The view `name` steered to `value` (the others kept)."""
        return replace(self, view=tuple(sorted({**dict(self.view), name: value}.items())))

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text) -> "Presentation":
        """The record a backend stored; an empty or malformed one is no presentation (never an error: a page
        polls it)."""
        try:
            fields = {k: v for k, v in json.loads(text).items() if k in cls.__dataclass_fields__}
            if isinstance(fields.get("view"), list):  # JSON's pairs are lists
                fields["view"] = tuple(tuple(p) if isinstance(p, list) else p for p in fields["view"])
            if isinstance(fields.get("asked"), list):
                fields["asked"] = tuple(fields["asked"])
            got = cls(**fields)
        except (TypeError, ValueError, AttributeError):
            return cls()
        return cls() if got.problem() else got
