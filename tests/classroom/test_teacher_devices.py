"""Who may open a room (issue 47: the presenter's notes state the answers, and a room's teacher reads them):
the lab's own computer, or a device named in ATTENTION_LAB_TEACHER_DEVICES (classroom/rooms/clients.py)."""

import ipaddress
import logging

import pytest

from classroom.rooms import clients
from classroom.rooms.clients import TEACHER_DEVICES_ENV, address_of, may_open_rooms, parse_teacher_devices


def nets(*texts: str) -> tuple:
    return tuple(ipaddress.ip_network(t) for t in texts)


@pytest.mark.parametrize(("text", "named"), [
    (None, ()),
    ("", ()),
    (" , ,", ()),  # empty entries: nothing, and nothing to log
    ("192.168.1.20", nets("192.168.1.20/32")),  # an address is a network of one
    (" 10.0.4.0/24 ,2001:db8::/64, 192.168.1.20", nets("10.0.4.0/24", "2001:db8::/64", "192.168.1.20/32")),
    ("::ffff:10.1.2.3", nets("10.1.2.3/32")),  # IPv4-mapped, read as the IPv4 it carries (as addresses are)
    ("::ffff:10.1.2.0/120", nets("10.1.2.0/24")),
    ("2001:db8::5", nets("2001:db8::5/128")),
])
def test_the_teacher_devices_are_read_as_addresses_and_networks(text, named, caplog):
    with caplog.at_level(logging.WARNING, logger=clients.__name__):
        assert parse_teacher_devices(text) == named
    assert not caplog.records


def test_an_entry_that_is_no_address_or_network_is_left_out_and_logged(caplog):
    text = "teacher-laptop, 10.0.0.5/24, 999.1.1.1, 10.0.0.0/33, " + "1" * 80 + ", 127.0.0.9"
    with caplog.at_level(logging.WARNING, logger=clients.__name__):
        assert parse_teacher_devices(text) == nets("127.0.0.9/32")
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 5 and all(TEACHER_DEVICES_ENV in s and "not a teacher's device" in s for s in said), said
    assert "'teacher-laptop'" in said[0] and "'10.0.0.5/24'" in said[1]  # a network from its first address
    assert all(len(s) < 300 for s in said), "an entry is logged cut to 64 characters"


def test_the_variable_is_read_once_at_first_use(monkeypatch):
    clients.teacher_devices.cache_clear()
    try:
        monkeypatch.setenv(TEACHER_DEVICES_ENV, "127.0.0.9, 10.0.4.0/24")
        assert clients.teacher_devices() == nets("127.0.0.9/32", "10.0.4.0/24")
        monkeypatch.setenv(TEACHER_DEVICES_ENV, "")
        assert clients.teacher_devices() == nets("127.0.0.9/32", "10.0.4.0/24"), "read again after its first use"
    finally:
        clients.teacher_devices.cache_clear()


NINE, HALL = nets("127.0.0.9/32"), nets("127.0.0.8/30", "2001:db8::/64")


@pytest.mark.parametrize(("address", "named", "may"), [
    (None, (), True),  # the lab's own computer (and an AppTest session, which has no address)
    ("127.0.0.1", (), True),
    ("::1", (), True),
    ("127.0.0.9", (), False),  # the rest of 127.0.0.0/8 is another device
    ("192.168.1.30", (), False),
    ("127.0.0.9", NINE, True),
    ("::ffff:127.0.0.9", NINE, True),
    ("127.0.0.10", NINE, False),
    ("127.0.0.11", HALL, True),
    ("127.0.0.12", HALL, False),
    ("2001:db8::77", HALL, True),
    ("2001:db9::77", HALL, False),
    ("not an address", HALL, False),
])
def test_a_room_is_opened_from_the_labs_computer_or_a_named_device(address, named, may):
    assert may_open_rooms(address, named) is may


PROXY = frozenset({"127.0.0.1"})  # the hall's HAProxy, as its lab processes are told (hall/run.py)


def test_behind_the_halls_proxy_the_teachers_browser_on_the_labs_computer_opens_rooms_and_a_phone_does_not():
    """`make hall` on the teacher's laptop: HAProxy connects from 127.0.0.1 (Streamlit gives no address for it)
    and writes the client's own address into X-Forwarded-For: 127.0.0.1 for the laptop's browser."""
    assert may_open_rooms(address_of(None, ["127.0.0.1"], PROXY), ())
    assert may_open_rooms(address_of("::ffff:127.0.0.1", ["127.0.0.1"], PROXY), ())
    phone = address_of(None, ["192.168.1.30"], PROXY)
    assert phone == "192.168.1.30" and not may_open_rooms(phone, ())
    assert may_open_rooms(address_of(None, ["127.0.0.9"], PROXY), NINE), "a named laptop through the proxy"


def test_a_forged_forwarded_address_naming_the_labs_computer_opens_no_room():
    """Without a trusted proxy the header is not read: a student who writes X-Forwarded-For: 127.0.0.1 stays
    the device they are."""
    assert not may_open_rooms(address_of("127.0.0.9", ["127.0.0.1"], frozenset()), ())
    # behind a proxy that appends (nginx), what the student wrote left of their own address is not read either
    assert not may_open_rooms(address_of("10.0.0.2", ["127.0.0.1, 192.168.1.30"], frozenset({"10.0.0.2"})), ())
