"""One device is one student in the hall (issue 39): devices are distinct loopback addresses, which
HAProxy writes into X-Forwarded-For and the hall's lab processes read (dashboard/room/session.py:
client_address). The rules themselves run on the Redis registry in tests/classroom/test_seats.py."""

import pytest

from classroom.rooms import make_registry
from core import AttentionConfig
from tests.dashboard.test_hostile_server import room_page
from tests.hall.test_renders import lab_env

pytestmark = pytest.mark.hall


def test_one_device_holds_two_seats_through_the_proxy_however_many_sessions_it_opens(hall):
    rooms = make_registry(lab_env(hall, "lab1"))
    key = rooms.open("246810", AttentionConfig().to_json())
    try:
        for device in ["127.0.0.66"] * 4 + ["127.0.0.77"]:  # four fresh sessions (no cookie), then a classmate
            room_page(hall.info["port"], f"code={key.code}", device)
        # Two seats of one device and the classmate's, whichever process served each session and whether a
        # quiet seat made way (present for 10 s): no address read gives 5 devices, HAProxy's own 1 device
        assert sorted(m.device for m in rooms.teacher_view(key).roster) == [1, 1, 2]
    finally:
        rooms.close(key)
