"""The room's address and QR code: hosts checked, the QR decodes (by zbar) to the address; and a client's
address: IPv4-mapped forms read as IPv4, forwarded addresses believed only from a trusted proxy."""

import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest
import vl_convert

from classroom.rooms.address import BAD_HOST, AddressError, lan_address, parse_host, qr_svg, room_url, served_host
from classroom.rooms.clients import address_of, clean_address, parse_proxies


@pytest.mark.parametrize("text, expected", [
    ("lab.school.example", ("lab.school.example", 8501)),
    ("192.168.1.20", ("192.168.1.20", 8501)),
    (" 192.168.1.20:80 ", ("192.168.1.20", 80)),
    ("my-laptop:8502", ("my-laptop", 8502)),
    ("[fe80::1]:9000", ("fe80::1", 9000)),
    ("fe80::1", ("fe80::1", 8501)),
])
def test_plain_hosts_and_ports_are_accepted(text, expected):
    assert parse_host(text, 8501) == expected


@pytest.mark.parametrize("text", [
    "", "http://lab", "lab/room", "lab:0", "lab:65536", "lab:80:90", "user@lab", "lab?x=1", "-lab", "lab-.x",
    "a b", "<script>alert(1)</script>", "192.168.1.300", "[fe80::1", "[1.2.3.4]:80", "lab:８０", "läb.example",
    "x" * 64 + ".example", "javascript:alert(1)", "lab;rm -rf /",
])
def test_anything_else_is_refused_without_echoing_it(text):
    with pytest.raises(AddressError) as err:
        parse_host(text, 8501)
    assert str(err.value) == BAD_HOST


def test_room_url():
    assert room_url("192.168.1.20", 8501, "ABCD2345") == "http://192.168.1.20:8501/room?code=ABCD2345"
    assert room_url("lab.example", 443, "ABCD2345", scheme="https") == "https://lab.example/room?code=ABCD2345"
    assert room_url("fe80::1", 8501, "ABCD2345") == "http://[fe80::1]:8501/room?code=ABCD2345"
    with pytest.raises(AddressError):
        room_url("lab", 8501, "abcd<b>")


def test_lan_address_is_an_ip():
    import ipaddress

    ipaddress.ip_address(lan_address())


@pytest.mark.parametrize("listens_on, behind_proxy, phones_open", [
    (None, False, "lan"), ("", False, "lan"), ("0.0.0.0", False, "lan"), ("::", False, "lan"),  # make classroom
    ("127.0.0.1", False, None), ("127.0.0.2", False, None), ("::1", False, None),  # make run
    ("localhost", False, None),
    ("127.0.0.1", True, "lan"),  # a hall's lab process: its HAProxy listens for the phones
    ("192.168.1.20", False, "192.168.1.20"), ("[fe80::1]", False, "fe80::1"),  # one of this machine's addresses
])
def test_the_host_phones_open_follows_where_the_lab_listens(listens_on, behind_proxy, phones_open):
    """Issue 48, 3: a lab on loopback only (`make run`) has no address a phone can open."""
    expected = lan_address() if phones_open == "lan" else phones_open
    assert served_host(listens_on, behind_proxy) == expected


def test_qr_is_plain_svg_that_decodes_to_the_address(tmp_path):
    url = room_url("192.168.1.20", 8501, "ABCD2345")
    svg = qr_svg(url)
    root = ET.fromstring(svg)  # well-formed, one <svg> element
    assert root.tag.endswith("svg") and "script" not in svg.lower() and "ABCD" not in svg
    zbar = shutil.which("zbarimg")
    if zbar is None:
        pytest.skip("zbarimg (Debian's zbar-tools, in scripts/system-packages.sh) is not installed")
    png = tmp_path / "room.png"
    png.write_bytes(vl_convert.svg_to_png(svg))  # the SVG itself, rasterised (vl-convert: the charts' exporter)
    out = subprocess.run([zbar, "--raw", "-q", str(png)], capture_output=True, text=True, timeout=30)
    assert out.stdout.strip() == url


# -- a client's address (classroom/rooms/clients.py): IPv4-mapped forms and trusted proxies (issue 47) ---------
@pytest.mark.parametrize("text, expected", [
    ("::ffff:127.0.0.9", "127.0.0.9"), ("::FFFF:10.1.2.3", "10.1.2.3"), (" 10.1.2.3 ", "10.1.2.3"),
    ("::1", "::1"), ("2001:db8::1", "2001:db8::1"), ("64:ff9b::a01:203", "64:ff9b::a01:203"), ("lab.example", None),
])
def test_an_ipv4_mapped_address_is_read_as_the_ipv4_address_it_carries(text, expected):
    """A lab served on `::` sees an IPv4 client as ::ffff:a.b.c.d: one machine, one address, wherever read."""
    assert clean_address(text) == expected


def test_a_typed_ipv4_mapped_host_gives_the_room_an_ipv4_address():
    assert parse_host("[::ffff:192.168.1.20]:8502", 8501) == ("192.168.1.20", 8502)
    assert room_url("::ffff:192.168.1.20", 8501, "ABCDEFGH") == "http://192.168.1.20:8501/room?code=ABCDEFGH"


NONE, NINE = frozenset(), frozenset({"127.0.0.9"})


@pytest.mark.parametrize("peer, forwarded, trusted, expected", [
    ("127.0.0.9", ["10.1.2.3"], NONE, "127.0.0.9"),  # by default no proxy is believed
    ("127.0.0.9", ["10.1.2.3"], NINE, "10.1.2.3"),  # a named proxy's client
    (None, ["10.1.2.3"], NONE, None),  # this machine forwards nothing unless named
    (None, ["10.1.2.3"], frozenset({"127.0.0.1"}), "10.1.2.3"),  # the hall's HAProxy (Streamlit gives no address)
    (None, ["127.0.0.1"], frozenset({"127.0.0.1"}), None),  # the teacher's own browser through the hall
    ("::ffff:127.0.0.1", [], NONE, None),  # the teacher's laptop on a dual-stack lab
    ("::ffff:127.0.0.9", ["10.1.2.3"], NINE, "10.1.2.3"),  # a named proxy, seen in its mapped form
    ("127.0.0.9", ["::ffff:10.1.2.3"], NINE, "10.1.2.3"),
    ("127.0.0.9", [], NINE, "127.0.0.9"),  # a named proxy that sends no header is its own client
    ("127.0.0.9", ["6.6.6.6, 10.1.2.3"], NINE, "10.1.2.3"),  # what the client wrote left of its own is not read
    ("127.0.0.9", ["6.6.6.6", "10.1.2.3"], NINE, "10.1.2.3"),  # two header lines read as one list, in order
    ("127.0.0.9", ["6.6.6.6, 10.1.2.3, 10.0.0.2"], NINE | {"10.0.0.2"}, "10.1.2.3"),  # past a chain of proxies
    ("127.0.0.9", ["10.0.0.2"], NINE | {"10.0.0.2"}, "10.0.0.2"),  # every hop a proxy: the left-most
    ("127.0.0.9", ["10.1.2.3, junk"], NINE, "127.0.0.9"),  # an unreadable last hop: only the proxy is known
])
def test_a_forwarded_address_counts_only_from_a_trusted_proxy_and_only_its_last_hop(peer, forwarded, trusted,
                                                                                     expected):
    assert address_of(peer, forwarded, trusted) == expected


def test_the_trusted_proxies_setting_reads_addresses_and_leaves_out_the_rest(caplog):
    assert parse_proxies(None) == parse_proxies("") == frozenset()
    assert parse_proxies("127.0.0.1, ::ffff:172.31.250.2,,lab.example") == {"127.0.0.1", "172.31.250.2"}
    assert "'lab.example' is not an IP address" in caplog.text
