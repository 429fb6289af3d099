"""Issue 39: while a room's question is open, a student's lesson pages hide what decides it whatever
lesson or display settings they chose; the film's page is tested with its films (test_watch_learn.py)."""

import pytest

from classroom.rooms import format_code

from .conftest import chart_data, messages, no_exception
from .test_room_pages import fresh_registry, teacher  # noqa: F401 (fresh_registry: an autouse fixture)


@pytest.mark.parametrize("page", ["default-page", "masking"])
def test_follow_off_and_device_cpu_show_no_chart_before_the_reveal(make_app, page):
    t, key = teacher(make_app)
    s = make_app(page=page)
    s.text_input(key="room_join_code_sidebar").input(format_code(key.code))
    s.sidebar.button[[b.label for b in s.sidebar.button].index("Join the room")].click().run()
    s.toggle(key="room_follow_sidebar").set_value(False).run()
    s.selectbox(key="ctl_device").set_value("cpu").run()  # the case: a display setting of one's own
    no_exception(s)
    assert s.session_state["lesson"].device == "cpu" and chart_data(s), "no chart to hide"
    t.button(key="room_ask").click().run()
    s.run()
    no_exception(s)
    assert chart_data(s) == [] and "question is open" in messages(s)
    s.select_slider(key="ctl_temperature").set_value(2.0).run()  # a lesson of one's own: same mask, same rows
    no_exception(s)
    assert chart_data(s) == [] and "question is open" in messages(s)
    t.button(key="room_reveal").click().run()
    s.run()
    no_exception(s)
    assert chart_data(s) and "question is open" not in messages(s)
