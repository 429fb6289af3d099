"""The room's address and QR code: hosts checked, the QR decodes (by zbar) to the address."""

import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest
import vl_convert

from classroom.rooms.address import BAD_HOST, AddressError, lan_address, parse_host, qr_svg, room_url


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
