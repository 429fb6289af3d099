"""The projector's window of a presented deck: one screen at a time, a quiet "n / N" marker, and nothing of
the teacher's notes (they are drawn by presenter.py alone, never here).

The window steps itself with the keys a clicker sends (→ ← PageDown PageUp Space), or it follows a
presenter: it then sits in the teacher's room as a viewer (no seat, not counted) that does not follow the
room's lesson, and polls the room for where the deck stands (classroom/rooms/presentation.py: the screen, and
whether the presenter blanked it), and, once a question is revealed, how the class answered.
A page screen runs that page's own file, at the screen's lesson and view, as if its link had opened it.
"""

import base64

import streamlit as st

from animations.sections import steps
from classroom import hiding
from classroom.decks import Deck, Screen
from classroom.films.service import service as films
from classroom.question import QuestionError
from classroom.rooms import RoomError, format_code, normalise_code
from classroom.rooms.address import qr_svg
from classroom.rooms.records import StudentView
from dashboard import display, navigation
from dashboard.app_pages import predict
from dashboard.charts import questions as qc
from dashboard.charts import training
from dashboard.charts.draw import draw
from dashboard.charts.questions import letter
from dashboard.lesson import rerun, state
from dashboard.present import deck as decks
from dashboard.present import ready
from dashboard.room import doors
from dashboard.room import session as room_session
from dashboard.room.teacher import address
from dashboard.text import deck_markdown, plain
from dashboard.video import player

NUMBER = "present_number"  # the screen this window shows (1 = the first)
SHOWN = "present_shown"  # (deck, number, steered views) whose lesson and view this window last opened
LINK_NOTICE = "present_link_notice"  # app_pages/present.py's
SEEN = "present_seen"  # (place, round, revealed) of the room as this window last drew it
POLL_SECONDS = 0.5  # a follower's look at the room: half of it is the wait a step costs, on average
# The presenter's pictures of this screen and the next (presenter.py `preview`): a window like the projector's, a
# viewer of the room that stands AHEAD[preview] screens past the room's place, never plays a video, and looks at
# the room less often (its run comes after the projector's, not beside it).
PREVIEW = doors.PICTURE
AHEAD = {"now": 0, "next": 1}
PREVIEW_POLL_SECONDS = 1.5
# The keys that step a deck: → and ← (a keyboard), PageDown and PageUp (what a clicker sends), Space.
FORWARD, BACK = ("Right", "PageDown", "Space"), ("Left", "PageUp")
CHOICES_IN_ONE, CHOICE_COLUMNS = 7, 3  # a question with more choices lists them in columns


def arrive(deck: Deck, number: int, steered: tuple = ()):
    """Open screen `number` in this session: its lesson; for a page, its view as a link would give it, with the
    views the presenter steered (`steered`: the room's presentation's `view`, dashboard/present/steer.py).
    Called before the run that draws it (a key's callback, the room's poll), so the sidebar shows its lesson.
    A device that is not a teacher's goes no further than the class (`_furthest`)."""
    number = min(max(1, number), len(deck.screens))
    furthest = _furthest(deck)
    held = furthest is not None and number > furthest
    number = furthest if held else number
    screen = deck.screens[number - 1]
    if st.session_state.get(NUMBER, number) != number:
        st.session_state.pop(LINK_NOTICE, None)  # the link's notice stays until the first step
    if held:
        st.session_state[LINK_NOTICE] = (f"A class on this lab is on screen {furthest} of this deck: this window "
                                         "goes no further until the class does.")
    st.session_state[NUMBER] = number
    steered = tuple(steered) if screen.kind == "page" else ()
    if st.session_state.get(SHOWN) == (decks.name_of(deck), number, steered) or screen.unready:
        return  # an unready screen's lesson is a stand-in: the window keeps its lesson
    state.set_lesson(screen.lesson)
    if screen.kind == "page":
        name = _name(screen)
        for key in [k for k in st.session_state if str(k).startswith(f"view_{name}_")]:
            del st.session_state[key]  # the page's controls start again from the screen's view
        state.open_view({**dict(screen.view), **dict(steered)})
    st.session_state[SHOWN] = (decks.name_of(deck), number, steered)


def _furthest(deck: Deck) -> int | None:
    """The furthest screen of `deck` that an open room presents, for a window that may not stand ahead of the
    class, else None. A later screen may answer the class's next question (screen 23 shows the head that
    question 22 asks about), so a student's link stops where the class is. A teacher's device, the room's
    teacher and the presenter's own pictures go anywhere."""
    if room_session.teacher_key() is not None or _preview() or doors.teacher_device():
        return None
    try:
        return room_session.registry().presented().get(decks.name_of(deck))
    except RoomError:  # the store does not answer: no class can be stepped either
        return None


def _name(screen: Screen) -> str:
    return decks.page_file(screen.page).removeprefix("app_pages/").removesuffix(".py")


def keys(deck: Deck, number: int, go, where: str, visible: bool):
    """The step buttons and the keys bound to them: `go(deck, number)` on a press. `visible`: the ◀ ▶
    buttons are drawn (the other keys' buttons never are: CSS hides them, their keys still press them)."""
    last = len(deck.screens)
    for bound, to, label, off, kind in ((BACK, number - 1, "◀ Back", number == 1, "secondary"),
                                        (FORWARD, number + 1, "Next ▶", number == last, "primary")):
        for i, key in enumerate(bound):
            shown = visible and i == 0
            st.button(label if shown else key, key=f"present_{where}_{key}" if shown else f"present_key_{where}_{key}",
                      shortcut=key, disabled=off, on_click=go, args=(deck, to), type=kind,
                      help=f"{label.strip('◀▶ ')}: {' or '.join(bound)}")


def step(deck: Deck, number: int):
    """A key of a window that steps itself."""
    arrive(deck, number)


def _arrive_at(deck: Deck, view: StudentView, place: tuple[str, int]):
    """Where a follower stands: the room's place (with the views the presenter steered there), or, for the
    presenter's picture of the next screen, the screen after it."""
    ahead = AHEAD.get(st.session_state.get(PREVIEW), 0)
    arrive(deck, place[1] + ahead, () if ahead else view.presentation.view)


def show(deck: Deck):
    """The projector's screen: the deck where this window stands, or where its room's presenter stands."""
    following, name = room_session.student_code() is not None, decks.name_of(deck)
    # a presenter's picture is always 1920×1080, inside a frame that follows the presenter's window: a redraw for
    # the size would reload that frame, the picture's parent, at each change of the presenter's window
    display.quiet_projector(following, redraw=not _preview())
    view = room_session.student_view() if following else None
    if view is not None and (place := _place(view)) and place[0] == name:
        _arrive_at(deck, view, place)
    elif NUMBER not in st.session_state or st.session_state.get(SHOWN, (name,))[0] != name:
        arrive(deck, st.session_state.get(NUMBER, 1))
    number = st.session_state[NUMBER]
    screen = deck.screens[number - 1]
    past_the_end = st.session_state.get(PREVIEW) == "next" and view is not None and (place := _place(view)) and \
        place[1] >= len(deck.screens)
    if past_the_end:
        st.title("The end of the deck", anchor=False)
    elif view is not None and view.presentation.blanked and view.presentation.deck == name and \
            st.session_state.get(PREVIEW) != "next":  # the presenter's picture of the next screen stays: it is
        # what the lecturer prepares while the projector is black
        with st.container(key="present_blank"):  # black over the whole window (display.py's CSS); the marker
            st.markdown("\u00a0")  # polls on beneath
    elif screen.unready:  # its title alone: why, and the command that prepares it, are the presenter's (ready.py)
        _title(screen)
    elif not rerun.hidden(hiding.door_of(screen.kind, screen.page), screen.title):  # a room's open question
        DRAW[screen.kind](screen, view)
    with st.container(key="present_marker", horizontal=True, vertical_alignment="center", width="content"):
        if following:
            (watch_slowly if st.session_state.get(PREVIEW) in AHEAD else watch)(name)
        else:
            keys(deck, number, step, "", visible=True)
            st.caption(f"{number} / {len(deck.screens)}")
    state.keep_view("screen", number, None)


def look(deck_name: str):
    """A follower's marker, and its look at the room: a new place, question or reveal draws the screen again."""
    view = room_session.student_view()
    if view is None:
        return room_session.student_code() is None  # the room has gone: this window steps itself again
    place = _place(view)
    seen = (place, view.presentation.view, view.presentation.blanked, view.round, view.revealed, view.tally)
    if st.session_state.get(SEEN) not in (None, seen):
        st.session_state[SEEN] = seen
        if place is not None and place[0] == deck_name:  # before the full run: its sidebar shows the lesson
            _arrive_at(decks.load(deck_name), view, place)
        return True
    st.session_state[SEEN] = seen
    total = len(decks.load(deck_name).screens)
    st.caption(f"{st.session_state.get(NUMBER, 1)} / {total}")


watch = rerun.poll(POLL_SECONDS)(look)
watch_slowly = rerun.poll(PREVIEW_POLL_SECONDS)(look)


def _place(view: StudentView) -> tuple[str, int] | None:
    """(deck, screen) where the room's presented deck stands, or None while none is presented."""
    shown = view.presentation
    return (shown.deck, shown.screen) if decks.path_of(shown.deck) is not None and shown.screen >= 1 else None


def _preview() -> bool:
    """This window is one of the presenter's pictures: it plays no video (the projector's has the sound)."""
    return st.session_state.get(PREVIEW) in AHEAD


# -- the kinds of screen --------------------------------------------------------------------------
def _page(screen: Screen, view):
    """The page's own file, run here: its controls read the screen's view as the opening link's."""
    navigation.run_inside(decks.page_file(screen.page))


def _title(screen: Screen):
    st.title(deck_markdown(screen.title, inline=True), anchor=False)


def _scene(screen: Screen, view):
    _title(screen)
    movie = ready.video_file(screen)
    part = next((p for p in steps(movie) if p.name == screen.step), None) if movie is not None else None
    if part is None:  # not rendered here: the title alone (ready.py tells the presenter)
        return
    player.play(part.clip, key="band_present", cues=player.step_cues(movie, part), autoplay=not _preview(), slide=True)


def _video(screen: Screen, view):
    _title(screen)
    movie = ready.video_file(screen)
    if movie is None:  # not rendered here: the title alone
        return
    player.play(movie, key="band_present_video", autoplay=not _preview(), slide=True)


def _film(screen: Screen, view):
    _title(screen)
    film = films().cached(screen.film)
    if film is None:  # not trained here: the title alone
        return
    k = film.snapshot_index(screen.at)
    at, total = int(film.snapshots[k]), film.settings.steps
    st.caption(f"Training step {at:,} of {total:,}")
    # lower than the page's: a slide holds the three charts and their legend in the window (1280×720 included)
    draw(training.loss_chart(range(1, len(film.loss) + 1), film.loss, total, at, film.formed_at(), height=220),
         "present_loss")
    left, right = st.columns(2)
    with left:
        draw(training.scores_chart(film.snapshots, film.previous_token, "previous_token", total, at, height=190),
             "present_prev")
    with right:
        draw(training.scores_chart(film.snapshots, film.induction, "induction", total, at, height=190),
             "present_induction")


def _question(screen: Screen, view: StudentView | None):
    """The question, its choices and how to answer; the truth once the presenter reveals it in the room."""
    _title(screen)
    try:
        question = decks.question_of(screen)
    except QuestionError:  # it cannot be built here (its run is not trained): the title alone
        return
    ours = view is not None and view.round > 0 and view.prompt == question.prompt
    if ours and view.revealed and view.question is not None:
        st.markdown(f"### {plain(question.prompt)}")
        split, truth = st.columns([2, 3], gap="large")
        with split:
            _split(view)
        with truth:
            predict.show_truth(view.question, None)
            predict.reveal_chart(view.question, f"present_reveal_{view.round}")
        return
    words, qr = st.columns([3, 1])
    with words:
        st.markdown(f"### {plain(question.prompt)}")
        _choices(question.choices)
    code = room_session.student_code()
    if code is not None:
        with qr, st.container(key="present_join"):
            if not ours and view is not None and screen.number in view.presentation.asked:
                # a step back to discuss it: the phones are not asked again (the presenter's A would)
                st.markdown("**The class answered this question earlier.**")
                return
            st.markdown(f"**Answer on your phone: room {format_code(code)}**")
            if (url := address(code)) is not None:
                st.image(qr_svg(url), width=340)


def _choices(choices, right=frozenset()):
    """The choices by their letters (the phones' letters), the right ones ticked once revealed; many (a sentence's
    word pieces) in columns: one per line ran below a 1080p screen."""
    per = -(-len(choices) // CHOICE_COLUMNS) if len(choices) > CHOICES_IN_ONE else None
    with st.container(key="present_choices"):  # read from the back of the room: larger (display.py's CSS)
        columns = st.columns(CHOICE_COLUMNS) if per else [st.container()]
    for i, choice in enumerate(choices):
        with columns[i // per if per else 0]:
            st.markdown(f"**{letter(i)}.** {plain(choice)}" + (" ✓" if i in right else ""))


def _split(view: StudentView):
    """The right choice by its letter (the phones' letters), then how the class voted per choice; with no split to
    draw, the choices listed, the right one marked (the revealed question: `view.question`)."""
    question = view.question
    right = set(question.answer) if question is not None else set()
    if question is not None:
        st.markdown("**The right answer:** " + question.right_answer(lambda i, choice: f"**{letter(i)}.** "
                                                                     f"{plain(choice)}"))
    tally = view.tally
    if tally is None or not tally.answered:
        # a seat's own window (a student opened the deck): the room reads the count to viewers only
        st.markdown("**How the class answered:** " + ("on the projector." if tally is None else "no answers."))
        if question is not None:
            _choices(question.choices, right)
        return
    st.markdown(f"**How the class answered** ({tally.answered} answer{'s' * (tally.answered != 1)}, "
                f"{tally.correct} right)")
    predict.draw(("answers-lettered", tally.question.key(), tally.answered),
                 qc.answers_histogram(tally, "", tally.answered, lettered=True, shares=True),
                 key=f"present_split_{view.round}")


def _text(screen: Screen, view):
    """A text slide: its title, and its text large (display.py's CSS for the keyed box)."""
    _title(screen)
    with st.container(key="present_text"):
        st.markdown(deck_markdown(screen.body))


def _image(screen: Screen, view):
    """An image slide: its title and its picture, as read and checked with the deck (classroom/deck_image.py):
    st.image's bytes, never HTML; an SVG as a data: URI, which the page draws in an <img> (no script runs)."""
    _title(screen)
    picture = screen.picture
    with st.container(key="present_image"):  # as large as the window allows, never taller (display.py's CSS)
        if picture.mime == "image/svg+xml":
            st.image(f"data:image/svg+xml;base64,{base64.b64encode(picture.data).decode('ascii')}", alt=picture.alt,
                     width="stretch")
        else:
            st.image(picture.data, alt=picture.alt, width="stretch",
                     output_format="PNG" if picture.mime == "image/png" else "JPEG")


DRAW = {"page": _page, "scene": _scene, "video": _video, "film": _film, "question": _question, "text": _text,
        "image": _image}


def join(code: str):
    """A projector window opened with the room's code: a viewer of the room, with no seat, so the teacher's
    count of students leaves it out; it does not follow the room's lesson (its lesson is the deck's screen's)."""
    norm = normalise_code(code)
    if norm is not None and norm in (room_session.student_code(), getattr(room_session.teacher_key(), "code", None)):
        return
    room_session.join(code, viewer=True)
