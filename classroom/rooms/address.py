"""A room's address for students' phones, and its QR code.

The lab's own address on the local network is found without sending a packet (connecting a
UDP socket only picks a route). A lab that listens on this machine's loopback only (`make run`)
has no address a phone can open (`served_host`): its room says so instead of showing one where
nothing listens. The teacher may type another host: a plain host name or IP address, with or
without a port (behind a proxy, or a DNS name); anything else is refused with a message and
never echoed. The QR code is SVG made by segno (pure Python, no network);
a page shows it with st.image, which embeds it as an image, never as live HTML.
"""

import io
import ipaddress
import re
import socket
from urllib.parse import quote

import segno

from classroom.rooms.clients import ip
from classroom.rooms.codes import CODE_ALPHABET, CODE_LENGTH
from classroom.rooms.records import RoomError

ROOM_PAGE = "room"  # the url_path the room page will have
_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")
_PORT = re.compile(r"[0-9]{1,5}")
BAD_HOST = ("That is not a host name or IP address: use letters, digits, dots and hyphens, optionally with a port, "
            "like lab.school.example, 192.168.1.20 or 192.168.1.20:8501.")


class AddressError(RoomError):
    """A host the teacher typed that cannot be part of the room's address."""


def lan_address() -> str:
    """This machine's IP address on the local network (127.0.0.1 if it has none). Sends nothing."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))  # a UDP connect picks the outgoing interface, no traffic
            return s.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def served_host(listens_on: str | None, behind_proxy: bool = False) -> str | None:
    """The host students' phones open, from the address the lab listens on (Streamlit's server.address):
    this machine's on the local network when it listens on every interface (unset, 0.0.0.0 or ::, as
    `make classroom` does), that address when it listens on one of this machine's others, and None when it
    listens on loopback only (`make run`): no phone reaches it, unless a proxy on this machine forwards to it
    (`behind_proxy`: the hall's HAProxy, a lab that trusts a proxy's X-Forwarded-For)."""
    listens_on = (listens_on or "").strip().strip("[]")
    if listens_on in ("", "0.0.0.0", "::"):
        return lan_address()
    try:
        loopback = ipaddress.ip_address(listens_on).is_loopback
    except ValueError:  # a host name: one of this machine's, as Streamlit resolved it to listen
        loopback = listens_on.lower().rstrip(".") in ("localhost", "localhost.localdomain")
    if loopback:
        return lan_address() if behind_proxy else None
    return listens_on


def parse_host(text: str, default_port: int) -> tuple[str, int]:
    """ "lab.school.example", "192.168.1.20:8501", "[fe80::1]:8501" -> (host, port); AddressError otherwise."""
    text = text.strip() if isinstance(text, str) else ""
    if not text or len(text) > 300:
        raise AddressError(BAD_HOST)
    host, port = text, str(default_port)
    if text.startswith("["):  # [IPv6] or [IPv6]:port
        host, closed, rest = text[1:].partition("]")
        if not closed:
            raise AddressError(BAD_HOST)
        if rest:
            if not rest.startswith(":"):
                raise AddressError(BAD_HOST)
            port = rest[1:]
        _ip(host, version=6)
    elif text.count(":") == 1:
        host, port = text.split(":")
    elif ":" in text:  # a bare IPv6 address, no port
        _ip(host, version=6)
    if not _valid_host(host) or not _PORT.fullmatch(port) or not 1 <= int(port) <= 65535:
        raise AddressError(BAD_HOST)
    try:
        host = str(ip(host))  # an IPv4-mapped [::ffff:a.b.c.d] is a.b.c.d, as a phone on IPv4 needs it
    except ValueError:  # a host name
        pass
    return host, int(port)


def _ip(text: str, version: int):
    try:
        if ipaddress.ip_address(text).version != version:
            raise ValueError
    except ValueError:
        raise AddressError(BAD_HOST) from None


def _valid_host(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        pass
    labels = host.split(".")
    return len(host) <= 253 and all(_LABEL.fullmatch(label) for label in labels) and not labels[-1].isdigit()


def room_url(host: str, port: int, code: str, scheme: str = "http", page: str = ROOM_PAGE) -> str:
    """The address a student's phone opens: http://HOST:PORT/room?code=CODE (host checked by parse_host)."""
    host, port = parse_host(f"[{host}]:{port}" if ":" in host else f"{host}:{port}", port)
    if scheme not in ("http", "https") or not re.fullmatch(r"[a-z0-9-]{1,40}", page):
        raise AddressError("The room's address needs http or https and a plain page name.")
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        raise AddressError("That is not a room code.")
    netloc = f"[{host}]" if ":" in host else host
    default = {"http": 80, "https": 443}[scheme]
    netloc += "" if port == default else f":{port}"
    return f"{scheme}://{netloc}/{page}?code={quote(code)}"


def qr_svg(url: str, scale: int = 10) -> str:
    """The QR code of `url` as a standalone SVG document (black on white, so it scans on any theme)."""
    qr = segno.make(url, error="m")
    out = io.BytesIO()
    qr.save(out, kind="svg", scale=scale, border=4, dark="#000000", light="#ffffff", xmldecl=False)
    return out.getvalue().decode("ascii")
