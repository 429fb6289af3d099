"""Where a presented deck stands lives with the room (issue 48 items 6, 8 and 10; issue 50 item 3), as AppTest
sessions of the real app sharing one room registry: a reload of the presenter view (a new session with this
browser's cookie) is the room's teacher again, on the same screen, its clock going on; the room's lesson holds
the lesson only (the place is the room's presentation record); on a question screen "next" reveals first, then
advances, and the projector then shows how the class voted per lettered choice; the presenter's keys blank the
projector, jump, go home and to the end, ask again, list the screens and the keys."""

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from classroom.rooms.presentation import Presentation
from core import AttentionConfig
from dashboard import display
from dashboard.charts.questions import letter
from dashboard.present import deck as decks
from dashboard.present import lectern
from dashboard.present.presenter import AT
from dashboard.present.projector import NUMBER
from dashboard.room import session as room_session

from .conftest import APP, _register_pages, chart_data, no_exception
from .test_present import DECK, PIN, fresh_registry, marker, notes_words, present, text  # noqa: F401 (a fixture)

QUESTION = next(s.number for s in DECK.screens if s.kind == "question")  # the deck's first question screen


@pytest.fixture
def cookies(monkeypatch):
    """This browser's cookies, as the pages write them (display.set_cookies) and read them back."""
    jar = {}

    def write(values, hours):
        jar.update(values)

    monkeypatch.setattr(display, "set_cookies", write)
    monkeypatch.setattr(room_session, "teacher_cookie", lambda: jar.get(room_session.TEACHER_COOKIE))
    return jar


def teacher_at(number: int) -> AppTest:
    at = present({"deck": "default", "presenter": "1", "screen": str(number)})
    at.text_input(key="room_open_pin").input(PIN)
    at.button[[b.label for b in at.button].index("Open a room")].click().run()
    no_exception(at)
    return at


def projector_of(teacher: AppTest) -> AppTest:
    return present({"deck": "default", "code": teacher.session_state["room_teacher"].code, "projector": "1"})


def blanked(at: AppTest) -> bool:
    """The projector's window draws its black block (display.py's CSS covers the window with it)."""
    def keys(node):
        yield str(getattr(getattr(node, "proto", None), "id", ""))
        for child in getattr(node, "children", {}).values():
            yield from keys(child)
    return any(k.endswith("-present_blank") for k in keys(at.main))


def room_of(teacher: AppTest):
    return room_session.registry().teacher_view(teacher.session_state["room_teacher"])


def test_a_reload_of_the_presenter_view_keeps_the_room_the_screen_and_the_clock(cookies, monkeypatch):
    clock = [1_000_000.0]
    monkeypatch.setattr("dashboard.present.presenter.time.time", lambda: clock[0])
    teacher = teacher_at(5)
    assert room_session.TEACHER_COOKIE in cookies, "the key is kept in this browser"
    assert cookies[room_session.TEACHER_COOKIE] not in str(teacher.query_params), "never in the address"
    teacher.button(key="present_presenter_Right").click().run()
    clock[0] += 125  # 2:05 on the clock
    reloaded = present({"deck": "default", "presenter": "1"})  # a reload: a new session, the same cookies
    no_exception(reloaded)
    assert reloaded.session_state["room_teacher"] == teacher.session_state["room_teacher"]
    assert reloaded.session_state[AT] == 6 and notes_words(DECK.screens[5]) in text(reloaded)
    assert "2:05" in text(reloaded), "the clock goes on from where it stood"
    projector = projector_of(reloaded)
    reloaded.button(key="present_presenter_Right").click().run()
    projector.run()
    assert projector.session_state[NUMBER] == 7, "the projector follows the reloaded view"
    cookies.clear()  # another browser: no cookie of this room
    stranger = present({"deck": "default", "presenter": "1"})
    assert "is the room's teacher's" in text(stranger) and AT not in stranger.session_state


def test_the_room_s_lesson_holds_the_lesson_only_and_its_place_is_the_presentation():
    teacher = teacher_at(3)
    room = room_of(teacher)
    assert room.lesson_json == DECK.screens[2].lesson.to_json()  # nothing rides in it
    assert AttentionConfig.from_json(room.lesson_json) == DECK.screens[2].lesson
    assert (room.presentation.deck, room.presentation.screen) == ("default", 3) and room.presentation.started > 0


def test_on_a_question_screen_next_reveals_first_then_advances_and_the_projector_shows_the_split():
    teacher = teacher_at(QUESTION)
    projector = projector_of(teacher)
    code = teacher.session_state["room_teacher"].code
    question = decks.question_of(DECK.screens[QUESTION - 1])
    right, wrong = question.answer[0], (question.answer[0] + 1) % len(question.choices)
    for pick in (right, wrong, wrong):
        phone = AppTest.from_file(str(APP), default_timeout=60)
        phone.query_params = {"code": code}
        _register_pages(phone)
        phone.switch_page("app_pages/room.py").run()
        labels = [phone.pills[0].format_func(i).replace("\\", "") for i in range(2)]  # plain()'s escapes undone
        assert labels == [f"A. {question.choices[0]}", f"B. {question.choices[1]}"]
        phone.pills[0].set_value(pick).run()
        phone.button(key=[b.key for b in phone.button if b.key and b.key.startswith("room_send_")][0]).click().run()
        no_exception(phone)
    projector.run()
    assert f"A. {question.choices[0]}" in text(projector).replace("**", "")
    teacher.button(key="present_key_presenter_PageDown").click().run()  # a clicker's "next"
    no_exception(teacher)
    assert teacher.session_state[AT] == QUESTION and room_of(teacher).current.revealed, "revealed, not advanced"
    projector.run()
    no_exception(projector)
    assert "3 answers, 1 right" in text(projector)
    split = next(df for meta, df in chart_data(projector) if meta.get("lab") == "answers")  # beside the truth
    counts = dict(zip(split["row"].str.replace("\n", " "), split["label"], strict=True))
    assert counts[f"{letter(right)}. {question.choices[right]}"] == "1 (33%)  ✓ right"
    assert counts[f"{letter(wrong)}. {question.choices[wrong]}"] == "2 (67%)"
    seat = AppTest.from_function(split_of_a_seat, args=(code, phone.session_state["room_session"]),
                                 default_timeout=60).run()  # a student's own window of the deck: a seat
    no_exception(seat)
    assert "How the class answered: on the projector" in text(seat) and "no answers" not in text(seat), \
        "a seat reads no count (the room gives it to viewers): it once said \"no answers\" beside 3"
    teacher.button(key="present_key_presenter_Space").click().run()
    assert teacher.session_state[AT] == QUESTION + 1


def split_of_a_seat(code: str, seat: str):
    """A script: the split of the room's revealed question as a seat's own window of the deck draws it."""
    from dashboard.present import projector
    from dashboard.room import session as room_session

    projector._split(room_session.registry().student_view(code, seat))


def test_the_keys_blank_the_projector_jump_and_ask_again():
    teacher = teacher_at(1)
    projector = projector_of(teacher)
    code = teacher.session_state["room_teacher"].code
    now, nxt = (present({"deck": "default", "code": code, "projector": "1", "preview": which})
                for which in ("now", "next"))
    teacher.button(key="present_key_presenter_B").click().run()
    projector.run()
    assert room_of(teacher).presentation.blanked and blanked(projector)
    # the presenter's pictures: this screen black, as the projector shows it; the next one still drawn (a
    # fresh-eyes lecturer lost it while the projector was dark)
    assert blanked(now.run()) and not blanked(nxt.run()) and nxt.session_state[NUMBER] == 2
    teacher.button(key="present_key_presenter_B").click().run()
    projector.run()
    assert not room_of(teacher).presentation.blanked and not blanked(projector)
    for digit in "12":
        teacher.button(key=f"present_key_presenter_{digit}").click().run()
    assert "Go to screen 12" in text(teacher)
    teacher.button(key="present_key_presenter_Enter").click().run()
    projector.run()
    assert teacher.session_state[AT] == 12 and projector.session_state[NUMBER] == 12
    for digit in "99":  # a slip of the finger: no such screen, and the projector stays
        teacher.button(key=f"present_key_presenter_{digit}").click().run()
    teacher.button(key="present_key_presenter_Enter").click().run()
    projector.run()
    assert teacher.session_state[AT] == 12 and projector.session_state[NUMBER] == 12
    assert f"There is no screen 99: this deck has {len(DECK.screens)}" in text(teacher)
    teacher.button(key="present_key_presenter_End").click().run()
    assert teacher.session_state[AT] == len(DECK.screens)
    teacher.button(key="present_key_presenter_Home").click().run()
    assert teacher.session_state[AT] == 1
    teacher.button(key="present_key_presenter_G").click().run()
    marked = [b.key for b in teacher.button if (b.key or "").startswith("present_jump_") and b.proto.type == "primary"]
    assert marked == ["present_jump_1"], marked  # the list marks the screen the view stands on
    teacher.button(key=f"present_jump_{QUESTION}").click().run()
    assert teacher.session_state[AT] == QUESTION and teacher.session_state[lectern.PANEL] is None
    asked = room_of(teacher).current.number  # screen 4's question (screen 12's and the last were asked too)
    teacher.button(key="present_key_presenter_A").click().run()
    assert room_of(teacher).current.number == asked + 1 and room_of(teacher).current.again_of == asked
    teacher.button(key="present_key_presenter_help").click().run()
    listed = teacher.table[0].value
    assert list(listed["what they do"]) == [what for _, what in lectern.KEYS] and "B  or  ." in list(listed["keys"])
    no_exception(teacher)


def test_the_clock_pauses_and_restarts_in_the_room(monkeypatch):
    clock = [2_000_000.0]
    monkeypatch.setattr("dashboard.present.presenter.time.time", lambda: clock[0])
    teacher = teacher_at(1)
    clock[0] += 60
    teacher.button(key="present_clock_pause").click().run()
    clock[0] += 600  # ten minutes paused count for nothing
    teacher.button(key="present_clock_resume").click().run()
    clock[0] += 5
    assert room_of(teacher).presentation.elapsed(clock[0]) == 65.0
    teacher.run()
    assert "1:05" in text(teacher)
    teacher.button(key="present_clock_restart").click().run()
    assert room_of(teacher).presentation.elapsed(clock[0]) == 0.0 and "0:00" in text(teacher)


def test_presentation_is_a_record_not_a_lesson_key():
    assert not hasattr(decks, "PLACE_KEY") and not hasattr(decks, "HANDOUT_KEY")
    assert Presentation().screen == 0 and st is not None


def test_a_step_back_to_a_question_the_class_answered_does_not_ask_it_again_nor_invite_answers_and_A_does():
    """The fresh-eyes lecturer's case: back on screen 4 after later questions, the phones were asked it again (a
    new round, a new gradebook column). Now the room keeps its rounds; the view says so; A asks it again."""
    second = next(s.number for s in DECK.screens if s.kind == "question" and s.number > QUESTION)
    teacher = teacher_at(QUESTION)
    teacher.button(key="present_key_presenter_reveal").click().run()
    for _ in range(QUESTION, second):
        teacher.button(key="present_key_presenter_Space").click().run()
        if teacher.session_state[AT] < second and "reveals the answer" in text(teacher):
            teacher.button(key="present_key_presenter_reveal").click().run()
    assert teacher.session_state[AT] == second
    asked, first = room_of(teacher).asked, decks.question_of(DECK.screens[QUESTION - 1]).prompt
    assert asked == 2 and room_of(teacher).presentation.asked == (QUESTION, second)
    for digit in str(QUESTION):
        teacher.button(key=f"present_key_presenter_{digit}").click().run()
    teacher.button(key="present_key_presenter_Enter").click().run()
    assert teacher.session_state[AT] == QUESTION
    assert room_of(teacher).asked == asked  # nothing asked
    assert "The class answered this question earlier" in text(teacher)
    projector = projector_of(teacher)  # asks nobody to answer on a phone that is not asked
    said = text(projector)
    assert "The class answered this question earlier." in said and "Answer on your phone" not in said
    teacher.button(key="present_key_presenter_A").click().run()
    now = room_of(teacher)
    assert now.asked == asked + 1 and now.current.question.prompt == first
    projector.run()
    assert "Answer on your phone" in text(projector) and "answered this question earlier" not in text(projector)
    no_exception(teacher)


def test_back_from_an_open_question_the_presenter_says_why_the_projector_hides_the_screen():
    """A fresh-eyes lecturer stepped back from question 4 (open) to screen 3: the projector showed a note instead
    of the scores, and nothing on the presenter said why. It says which question hides it and how to end that."""
    teacher = teacher_at(QUESTION)
    projector = projector_of(teacher)
    teacher.button(key="present_presenter_Left").click().run()
    projector.run()
    said = f"The room's question of screen {QUESTION} is still open: the projector and the phones hide this screen"
    assert teacher.session_state[AT] == QUESTION - 1 and said in text(teacher)
    assert "Your room's question is open" in text(projector)
    teacher.button(key="present_presenter_Right").click().run()
    teacher.button(key="present_key_presenter_reveal").click().run()  # R on the question's screen
    teacher.button(key="present_presenter_Left").click().run()
    projector.run()
    assert teacher.session_state[AT] == QUESTION - 1 and "is still open" not in text(teacher)
    assert "Your room's question is open" not in text(projector)
