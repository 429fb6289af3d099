"""What a room registry takes and gives: its limits, its errors, and the frozen views that a
teacher's or a student's page draws. Plain values only, so every backend returns the same."""

from dataclasses import dataclass, field

from classroom.question import MAX_QUESTION_CHARS, Question
from classroom.rooms.presentation import Presentation

# How often a room's pages ask the registry for news: a student's page (and a follower's lesson),
# and the teacher's screen, which shows the answers as they come.
STUDENT_POLL_SECONDS = 1.5
TEACHER_POLL_SECONDS = 1.0


@dataclass(frozen=True)
class RoomLimits:
    """Every bound of the room registry (the lab's other limits live in core/limits.py)."""

    max_rooms: int = 100  # open rooms per registry (one lab server, or one Redis for the hall)
    max_members: int = 300  # students per room: a lecture hall
    seats_per_device: int = 2  # a new room's bound of seats per device (docs/classroom.md, Seats): a phone and a
    #                            reload that lost its cookie; the teacher raises it (up to max_members) for shared
    #                            tablets or a class behind one NAT. Also how often a device's answers count in a round
    max_rounds: int = 100  # rounds (questions asked, and asked again) per room: every round of a lecture is kept
    #                        for the CSV; the teacher is told from `rounds_warning` left, and the next is refused
    #                        at the bound (nothing is dropped). Memory: docs/classroom.md, What stays after class
    rounds_warning: int = 10  # the teacher's panel says how many rounds are left from this many
    max_lesson_chars: int = 20_000  # a lesson as JSON; a question holds one too
    max_question_chars: int = MAX_QUESTION_CHARS  # at most that (what is stored must read back); a room's
    #                                               worst case (100 rounds of it, and 300 answers each) is in
    #                                               docs/classroom.md, What stays after class
    idle_seconds: float = 2 * 3600  # a room nobody has used for this long closes
    present_seconds: float = 10.0  # "present": seen in this long (several polls: *_POLL_SECONDS)
    member_idle_seconds: float = 15 * 60  # a full room makes space by dropping students unseen this long
    # Rate limits count per client (clients.py): its browser session, and its network address when known.
    wrong_codes_per_session: int = 10  # per window
    wrong_codes_per_address: int = 30  # per window: several devices behind one address mistype too
    code_window: float = 60.0
    pin_tries_per_session: int = 5  # per room and window
    pin_tries_per_address: int = 10  # per room and window
    pin_window: float = 15 * 60.0
    opens_per_session: int = 5  # rooms opened per window: bounds the PIN hashing one client can cause,
    opens_per_address: int = 10  # and (the window being as long as an unused room lives) the rooms it holds
    open_window: float = 2 * 3600.0
    max_limit_counters: int = 10_000  # rate-limit counters an in-process registry keeps
    max_kept: int = 50  # answer sets kept after closing (kept.py), per lab or hall; the teacher deletes them
    max_kept_chars: int = 16_000_000  # one kept set's two CSVs: a full room's (100 rounds × 300 answers) fit

    def __post_init__(self):
        if self.max_question_chars > MAX_QUESTION_CHARS:
            raise ValueError(f"max_question_chars {self.max_question_chars:,} is above MAX_QUESTION_CHARS "
                             f"({MAX_QUESTION_CHARS:,}): a stored question could not be read back")


class RoomError(ValueError):
    """Something a room cannot do, said in the user's words; pages show str(err)."""


class NotInRoom(RoomError):
    """A wrong code, a closed room, or a session that never joined: one message for all three."""


class NotTeacher(RoomError):
    """A teacher action without the room's current teacher key."""


class RoomsUnavailable(RoomError):
    """The hall's shared store (Redis) does not answer: restarting, or unreachable."""


class TooManyTries(RoomError):
    def __init__(self, message: str, retry_after: float):
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class TeacherKey:
    """What the teacher's session holds (st.session_state only: never the URL, never the screen)."""

    code: str
    secret: str = field(repr=False)


@dataclass(frozen=True)
class Tally:
    """One round of a question, as the teacher's screen shows it."""

    number: int  # 1, 2, ... in the order asked
    question: Question
    counts: tuple  # per choice: how many students picked (or ticked) it
    answered: int  # answers counted in `counts`: students in the room who answered this round
    answered_present: int  # of those, students present now (the rest answered, then went quiet or left)
    revealed: bool
    correct: int | None  # students whose answer is right; None until revealed (the screen is projected)
    again_of: int  # 0, or the number of the round this one asks again
    screen: int = 0  # the deck's screen that asked it (1, 2, ...); 0: asked outside a deck


@dataclass(frozen=True)
class TeacherView:
    code: str
    lesson_version: int
    lesson_json: str
    present: int  # students seen in the last RoomLimits.present_seconds
    members: int  # students in the room
    rounds: tuple  # Tally: the current round, after the one it asks again (the panel's histograms) if any; the
    #                rest are in the CSVs (RoomRegistry.answer_files): a poll reads two rounds, never a lecture's
    roster: tuple = ()  # Member, in the order they joined
    seats_per_device: int = 2  # this room's bound (RoomLimits.seats_per_device, raised by the teacher)
    locked: bool = False  # no new seats: the students in the room stay
    blocked: int = 0  # devices the teacher took out: they get no new seat in this room
    max_rounds: int = 100  # RoomLimits.max_rounds: rounds this room may ask in all
    asked: int = 0  # rounds asked so far
    presentation: Presentation = Presentation()  # where the room's presented deck stands (presentation.py)
    refused: int = 0  # browsers (sessions) refused a seat at this room's bound per device: their device was full
    refused_most: int = 0  # of those, the most from one device (what a raise of the bound must let in)

    @property
    def rounds_left(self) -> int:
        """Rounds this room may still ask (none is ever dropped: at 0 the next ask is refused)."""
        return self.max_rounds - self.asked

    @property
    def current(self) -> Tally | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def before(self) -> Tally | None:
        """The round the current one asks again, when it is still kept: the "before" histogram."""
        now = self.current
        return next((t for t in self.rounds if now and t.number == now.again_of), None)


@dataclass(frozen=True)
class Member:
    """A student as the teacher's screen lists them: no name and no address, a tag to tell them apart."""

    tag: str  # 16 hex digits (64 bits) of a hash of the session id: not forgeable by collision, never enough to
    #           become them
    seen_ago: float | None  # seconds since their last poll; None once the seat has left
    present: bool
    answered: bool  # in the current round
    device: int = 0  # 1, 2, ...: seats with the same number share a device (no address is shown: it is projected)
    in_room: bool = True  # False: a seat that left, listed because its answers still count (and can be removed)


@dataclass(frozen=True)
class KeptInfo:
    """An answer set kept after its room closed, as a list shows it: no PIN, no answers."""

    id: str  # 16 hex digits, drawn by the lab
    code: str  # the room's code (closed: it opens nothing)
    closed: float  # seconds since the epoch
    rounds: int
    answers: int


@dataclass(frozen=True)
class StudentView:
    code: str
    lesson_version: int  # changes whenever the teacher's lesson does: followers compare it
    lesson_json: str
    round: int  # 0 until the teacher asks
    kind: str = ""  # the question's kind (classroom/kinds.py): how its choices read
    prompt: str = ""
    choices: tuple = ()
    multiple: bool = False
    my_answer: tuple | None = None  # this student's choice indices in this round
    revealed: bool = False
    question: Question | None = None  # only once revealed: it holds the answer key
    presentation: Presentation = Presentation()  # where the room's presented deck stands (presentation.py)
    tally: Tally | None = None  # a viewer's (the projector's) only, once revealed: how the class answered

    @property
    def correct(self) -> bool | None:
        if self.question is None or self.my_answer is None:
            return None
        return self.question.is_correct(self.my_answer)

    @property
    def explanation(self) -> str | None:
        """The truth beside this student's answer, once revealed."""
        return None if self.question is None else self.question.explain(self.my_answer)


@dataclass(frozen=True)
class RawRound:
    """A round as a backend stores it: the question and answers as JSON."""

    number: int
    question: str
    revealed: bool
    again_of: int
    answers: dict  # session -> answer JSON ("[2]"); a student's view holds only their own
    asked: float = 0.0  # when it was asked: seconds since the epoch (the CSV's "asked")
    devices: dict = field(default_factory=dict)  # session -> device of each answer (a teacher's read only)
    screen: int = 0  # the deck's screen that asked it; 0: asked outside a deck
    times: dict = field(default_factory=dict)  # session -> when it last answered, epoch seconds (a teacher's read)


@dataclass(frozen=True)
class RawRoom:
    """What a backend reads in one atomic step."""

    version: int
    lesson: str
    rounds: tuple  # RawRound, oldest first (a student's read: only the current one, if any; a teacher's live read:
    #                the current one and the one it asks again)
    members: dict = field(default_factory=dict)  # session -> last seen (a teacher's read only)
    devices: dict = field(default_factory=dict)  # session -> device, for members (a teacher's read only)
    seats: int = 2  # the room's seats per device
    locked: bool = False
    blocked: int = 0  # devices barred from new seats
    asked: int = 0  # rounds asked (a teacher's read)
    answered: dict = field(default_factory=dict)  # session -> device, of every seat with an answer in any round
    show: str = ""  # the presentation's JSON (presentation.py); "" while none was set
