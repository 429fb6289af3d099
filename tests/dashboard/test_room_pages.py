"""The classroom room as its users meet it: a teacher and students as separate AppTest sessions
of the real app, sharing the one registry a server holds (dashboard.process.Held: one per process).

Ask, answer, reveal; ask again; follow, detach and re-attach; and the secrets: the teacher's
key never reaches the URL or the screen, and a student's session cannot run the room."""

import json

import pytest
from streamlit.testing.v1 import AppTest

from classroom.rooms import TeacherKey, format_code
from classroom.rooms.address import lan_address, room_url
from classroom.rooms.base import NOT_IN_ROOM, NOT_TEACHER
from core import AttentionConfig
from dashboard.charts.questions import letter
from dashboard.room import session as room_session
from dashboard.text import plain

from .conftest import chart_data, messages, no_exception

PIN = "246810"


@pytest.fixture(autouse=True)
def fresh_registry():
    """Each test its own rooms (the registry's rate limits count per server)."""
    room_session.registry.clear()
    yield
    room_session.registry.clear()


def texts(at: AppTest) -> str:
    """Everything a reader sees as text on the page, the sidebar included."""
    parts = [e.value for kind in ("markdown", "caption", "code", "title", "subheader") for e in at.get(kind)]
    return " ".join(map(str, parts)) + " " + messages(at) + " " + " ".join(str(e.value) for e in at.success)


def teacher(make_app) -> tuple[AppTest, TeacherKey]:
    """A teacher who opened a room from the sidebar: the app switches to the Room page."""
    at = make_app()
    at.text_input(key="room_open_pin_side").input(PIN)
    at.sidebar.button[[b.label for b in at.sidebar.button].index("Open a room")].click().run()
    no_exception(at)
    key = at.session_state["room_teacher"]
    assert format_code(key.code) in texts(at), "the Room page shows the code"
    return at, key


def student(make_app, code: str) -> AppTest:
    """A student who scanned the QR code (/room?code=…)."""
    at = make_app(query={"code": code}, page="room")
    no_exception(at)
    assert at.session_state["room_code"] == code
    return at


def histograms(at: AppTest) -> list:
    return [df for meta, df in chart_data(at) if meta.get("lab") == "answers"]


def answer(at: AppTest, choice: int):
    at.pills[0].set_value(choice).run()
    at.button(key=[b.key for b in at.button if b.key and b.key.startswith("room_send_")][0]).click().run()
    no_exception(at)


def test_ask_answer_reveal_with_three_students(make_app):
    t, key = teacher(make_app)
    by_link = student(make_app, key.code)
    by_page = make_app(page="room")
    by_page.text_input(key="room_join_code_page").input(format_code(key.code).lower())
    by_page.button[[b.label for b in by_page.button].index("Join the room")].click().run()
    by_sidebar = make_app()
    by_sidebar.text_input(key="room_join_code_sidebar").input(key.code)
    by_sidebar.sidebar.button[[b.label for b in by_sidebar.sidebar.button].index("Join the room")].click().run()
    students = [by_link, by_page, by_sidebar]
    assert all(s.session_state["room_code"] == key.code for s in students)

    t.button(key="room_ask").click().run()
    q = room_session.registry().teacher_view(key).current.question  # what the ask panel offered
    assert (q.kind, q.config) == ("focus", AttentionConfig())
    assert "Asked" in " ".join(e.value for e in t.toast)
    by_sidebar.switch_page("app_pages/room.py").run()  # "Go to the question"
    picks = [q.answer[0], q.answer[0], next(i for i in range(len(q.choices)) if i not in q.answer)]
    for s, pick in zip(students, picks, strict=True):
        s.run()
        assert q.prompt in " ".join(e.value for e in s.markdown).replace("\\", "")
        assert "The answer" not in texts(s) and not [m for m, _ in chart_data(s) if m["lab"].startswith("reveal")]
        answer(s, pick)
        assert "Sent:" in texts(s)

    t.run()
    [hist] = histograms(t)
    assert hist["count"].sum() == 3 and hist["count"][q.answer[0]] == 2
    assert not hist["right"].any(), "the right choice is not marked before the reveal (the screen is projected)"
    assert "3 answered of 3 present." in texts(t) and "The answer" not in texts(t)

    t.button(key="room_reveal").click().run()
    assert "2 of 3 right" in texts(t) and histograms(t)[0]["right"][q.answer[0]]
    for s, pick in zip(students, picks, strict=True):
        s.run()
        seen = texts(s).replace("\\", "")
        assert "The answer:" in seen and q.explain(pick) in seen
        # by the letters the phone asked with: "You predicted: C. 3 sat", "The answer: D. 4 on"
        right = q.answer[0]
        assert f"{letter(pick)}. {q.choices[pick]}" in seen and f"{letter(right)}. {q.choices[right]}" in seen
        assert [m for m, _ in chart_data(s) if m.get("lab") == "reveal-focus"]


def test_ask_again_shows_the_before_and_after_histograms_side_by_side(make_app):
    t, key = teacher(make_app)
    s = student(make_app, key.code)
    t.button(key="room_ask").click().run()
    s.run()
    answer(s, 0)
    t.run()
    t.button(key="room_again").click().run()
    s.run()
    assert s.pills[0].value is None, "a new round starts with no answer"
    answer(s, 1)
    t.run()
    before, after = histograms(t)
    assert (before["count"][0], after["count"][1], after["count"].sum()) == (1, 1, 1)
    titles = [json.loads(e.proto.spec)["title"]["text"] for e in t.get("vega_lite_chart")
              if json.loads(e.proto.spec).get("usermeta", {}).get("lab") == "answers"]
    assert titles == ["Round 1, before discussion", "Round 2, after discussion"]


def test_a_student_who_reloads_keeps_one_place_and_one_vote(make_app, monkeypatch):
    """A reload (and a hall failover) starts a new Streamlit session. The seat comes back from this
    browser's cookie (room_session.keep_seat), not from the address: the same member, with the
    answer sent, not a second member with a second vote."""
    t, key = teacher(make_app)
    s = student(make_app, key.code)
    t.button(key="room_ask").click().run()
    s.run()
    answer(s, 2)
    address = dict(s.query_params)
    assert address == {"code": key.code}, "the student's address holds the public code only"
    assert any("attention_lab_seat=" + s.session_state["room_session"] in h.proto.body for h in s.get("html"))
    monkeypatch.setattr(room_session, "cookie_seat", lambda: s.session_state["room_session"])
    reloaded = make_app(query=address, page="room")
    no_exception(reloaded)
    assert reloaded.session_state["room_session"] == s.session_state["room_session"]
    assert "Sent: " in texts(reloaded) and reloaded.pills[0].value == 2
    answer(reloaded, 4)  # a change of mind, as before the reload
    t.run()
    counts = histograms(t)[0]["count"]
    assert (room_session.registry().teacher_view(key).members, counts.sum(), counts[4]) == (1, 1, 1)


def test_the_teachers_key_stays_in_the_session(make_app):
    t, key = teacher(make_app)
    t.button(key="room_ask").click().run()
    assert dict(t.query_params) == {"code": key.code}, "the address bar holds the public code only"
    widgets = " ".join(str(w.value) for w in t.text_input)
    assert key.secret not in texts(t) + widgets
    assert key.secret not in json.dumps([m for m, _ in chart_data(t)])


def test_a_student_session_cannot_run_the_room(make_app):
    t, key = teacher(make_app)
    copied = student(make_app, key.code)  # the teacher's URL, opened elsewhere: a student
    labels = [b.label for b in copied.button]
    assert not {"Ask the class", "Reveal the answer", "Close it for everyone"} & set(labels)
    forged = make_app(page="room")
    forged.session_state["room_teacher"] = TeacherKey(key.code, "guess")
    forged.run()
    no_exception(forged)
    assert NOT_TEACHER in texts(forged) and "room_teacher" not in forged.session_state
    assert room_session.registry().teacher_view(key).rounds == (), "nothing was asked"
    wrong = make_app(query={"code": "ZZZZ-ZZZZ"}, page="room")
    assert NOT_IN_ROOM in texts(wrong) and not wrong.exception


def test_follow_detach_and_reattach(make_app):
    t, key = teacher(make_app)
    s = student(make_app, key.code)
    t.switch_page("app_pages/attention.py").run()
    t_temperature = t.select_slider(key="ctl_temperature")  # kept, as the browser keeps the sidebar
    t_temperature.set_value(0.5).run()  # reruns the teacher's lesson view alone, which pushes the lesson
    s.run()
    assert s.session_state["lesson"].temperature == 0.5
    assert not [w for w in s.sidebar.get("select_slider") if w.key == "ctl_temperature"], "read-only while following"
    s.toggle(key="room_follow_page").set_value(False).run()
    s.switch_page("app_pages/attention.py").run()
    s.select_slider(key="ctl_temperature").set_value(2.0).run()
    t_temperature.set_value(0.2).run()
    s.run()
    assert s.session_state["lesson"].temperature == 2.0, "a detached student keeps their own lesson"
    s.toggle(key="room_follow_sidebar").set_value(True).run()
    assert s.session_state["lesson"].temperature == 0.2


def take_back(at: AppTest, pin: str = PIN):
    at.text_input(key="room_reclaim_pin").input(pin)
    at.button[[b.label for b in at.button].index("Take it back")].click().run()
    no_exception(at)


def test_a_teacher_takes_the_room_back_and_the_old_screen_stops(make_app):
    old, key = teacher(make_app)
    laptop = make_app(page="room")  # another laptop: the code and the PIN
    laptop.text_input(key="room_reclaim_code").input(format_code(key.code))
    take_back(laptop)
    assert laptop.session_state["room_teacher"].code == key.code
    old.run()
    assert "room_teacher" not in old.session_state and NOT_TEACHER in texts(old)
    reloaded = make_app(query={"code": key.code}, page="room")  # a reload: /room?code=… joins as a student
    take_back(reloaded, "wrong pin")
    assert "does not match" in texts(reloaded) and "room_teacher" not in reloaded.session_state
    take_back(reloaded)
    key = reloaded.session_state["room_teacher"]
    assert "room_code" not in reloaded.session_state
    assert room_session.registry().teacher_view(key).members == 0, "no longer counted as a student"


def test_a_closed_room_stops_its_students_polling_and_tells_them_the_class_has_ended(make_app):
    """Issue 48, 9: at the end of class students saw the yellow "No open room has that code". A room this
    student was in that closed is a class that has ended, said calmly; a seat taken out of a room still open is
    told so (test_room_seats.py: remove)."""
    t, key = teacher(make_app)
    s = student(make_app, key.code)
    t.radio(key="room_keep").set_value("delete")
    t.button(key="room_close").click().run()
    s.run()
    no_exception(s)
    assert "room_code" not in s.session_state
    assert [e.value for e in s.success] == [f"The class has ended: room {format_code(key.code)} has closed."]
    assert messages(s) == "" and "No open room" not in texts(s)
    assert not [b for b in s.get("download_button") if b.proto.label == "The lecture's handout (HTML)"]


def test_a_student_whose_class_ended_gets_the_handout_the_teacher_shared(make_app, tmp_path, monkeypatch):
    """The handout shared while the room was open, before the deck's questions were asked (so not offered then:
    it prints every answer), is offered on the "class has ended" screen, and stays: the last view of the room
    that the student read carried the share (the room's presentation: dashboard/present/handout.py)."""
    from classroom.handout_service import HandoutService
    from classroom.rooms.presentation import Presentation
    from dashboard.present import deck as decks
    from dashboard.present import handout as handouts

    service = HandoutService(tmp_path, build=lambda deck: "<!doctype html><title>handout</title>")
    monkeypatch.setattr(handouts, "service", lambda: service)
    deck = decks.load("default")
    job = service.submit(deck, handouts.stamp(deck))
    assert job.wait(60) and job.state == "done", job.error
    t, key = teacher(make_app)
    s = student(make_app, key.code)
    room_session.registry().present(key, Presentation(deck="default", screen=1, handout=True))  # the Share button
    s.run()
    labels = lambda: [b.proto.label for b in s.get("download_button")]  # noqa: E731
    assert labels() == [] and "it opens here once the class has answered the deck's last question" in texts(s)
    t.radio(key="room_keep").set_value("delete")
    t.button(key="room_close").click().run()
    s.run()
    no_exception(s)
    assert "The class has ended" in texts(s) and labels() == ["The lecture's handout (HTML)"]
    s.run()
    assert "The class has ended" in texts(s) and labels() == ["The lecture's handout (HTML)"], "it stays"
    service.shutdown()


def test_tokens_reach_the_phone_as_plain_text(make_app):
    t, key = teacher(make_app)
    t.text_input(key="ctl_text").input("*a* [b](javascript:x) $c$ :red[d] <i>e").run()
    s = student(make_app, key.code)
    t.button(key="room_ask").click().run()
    s.run()
    q = room_session.registry().teacher_view(key).current.question
    assert "javascript" in " ".join(q.choices)
    assert f"**Question 1:** {plain(q.prompt)}" in [m.value for m in s.markdown]
    assert s.pills[0].options == [plain(f"{letter(i)}. {c}") for i, c in enumerate(q.choices)]  # the projector's


def test_a_teacher_asks_the_room_the_question_on_page_one(make_app):
    t, key = teacher(make_app)
    s = student(make_app, key.code)
    t.switch_page("app_pages/attention.py").run()
    t.toggle(key="predict_switch_softmax").set_value(True).run()
    t.button(key="predict_room_softmax").click().run()
    asked = room_session.registry().teacher_view(key).current.question
    assert asked == t.session_state["predict_question_softmax"]
    s.run()
    assert f"**Question 1:** {plain(asked.prompt)}" in [m.value for m in s.markdown]
    assert not [b for b in s.button if b.key == "predict_room_softmax"], "students have no such button"


@pytest.fixture
def listens_on():
    """listens_on(address): Streamlit's server.address for this test, as `make run` (127.0.0.1) or `make classroom`
    (0.0.0.0) give it on the command line; the app reads it with st.get_option."""
    from streamlit import config

    before = config.get_option("server.address")
    yield lambda address: config.set_option("server.address", address)
    config.set_option("server.address", before)


def shown_addresses(at: AppTest) -> tuple[list, int]:
    """The room's addresses as the teacher's page prints them, and how many images (the QR code) it draws."""
    return [c.value for c in at.code if "/room?code=" in c.value], len(at.get("image"))


def test_a_room_on_a_lab_phones_cannot_reach_says_so_and_shows_no_address(make_app, listens_on):
    """Issue 48, 3: `make run` listens on 127.0.0.1, and the QR code pointed at the LAN address, where nothing
    listens. Now the room says why in one sentence and shows no address; a host the teacher types (a proxy in
    front) is shown as typed."""
    listens_on("127.0.0.1")
    t, key = teacher(make_app)
    no_exception(t)
    assert shown_addresses(t) == ([], 0)
    assert "Phones cannot reach this lab" in messages(t) and "make classroom" in messages(t)
    assert "scan the QR code" not in texts(t)
    t.text_input(key="room_host").input("lab.school.example").run()
    no_exception(t)
    assert shown_addresses(t) == ([f"http://lab.school.example:8501/room?code={key.code}"], 1)
    assert "Phones cannot reach this lab" not in messages(t)


def test_a_room_on_a_lab_listening_on_every_interface_shows_its_lan_address_and_qr_code(make_app, listens_on):
    listens_on("0.0.0.0")
    t, key = teacher(make_app)
    assert shown_addresses(t) == ([room_url(lan_address(), 8501, key.code)], 1)
    assert "scan the QR code" in texts(t) and "Phones cannot reach" not in messages(t)
