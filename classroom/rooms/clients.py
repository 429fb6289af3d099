"""Who is asking, and how often: the room registry's rate limits, counted per client.

A client is what the server really knows of a request: its browser session (a random id the
page keeps server-side; a script can open as many as it likes) and, where the page can tell,
its network address (a phone's own address on the local network, or the X-Forwarded-For that
a trusted proxy sets, as the hall's HAProxy: `address_of`). A limit counts one client's
failures only, so a script that sends wrong codes or wrong PINs is refused, and a student typing
the right code, or the teacher typing the right PIN, on another device never is. A client over a
limit is refused before its code or PIN is looked at (else the limit would not slow guessing down).

Guessing a room code, the arithmetic. A code is one of 32^8 = 2^40 ≈ 1.1e12. One address may
send 30 wrong codes a minute (10 per session): at most 60 in a 60 s span that straddles a
window edge. With the most rooms a registry allows (100) open, one guess finds a room with
p ≤ 100 / 2^40 ≈ 9.1e-11: an hour from one address (≤ 1,830 guesses) gives p ≤ 1.7e-7, a year
without pause (≤ 1.6e7) p ≤ 0.15 %, and against a classroom's one room, open two hours a day,
that year gives p ≈ 1.3e-6. A lucky guess buys a seat as an anonymous student: teacher actions
need the teacher's key (256 bits), and taking a room back needs its PIN: 10 tries per room per
15 minutes from one address, 5 from one session (a 6-digit PIN: p ≤ 960 / 10^6 a day from one
address). PIN tries are counted before the (slow) check, so sessions racing from one address
get no more than the limit; the teacher's own right PIN counts only against the teacher's own
device. Where the address is not known (a screen on the lab's own machine, or a proxy that
sets no X-Forwarded-For) only the session counts: such a deployment trusts its local users.

The price, said plainly: devices that share one address (a class behind one NAT, in front of a
lab on another network) share its allowance, and one of them hammering wrong codes holds up
the others' joins for up to a minute. A lab on the class's own network sees every phone's own
address.

Who may open a room (`may_open_rooms`). A room's teacher reads what its students must not before the reveal:
the presenter view's notes state each question screen's measured answer, and the handout is theirs to share
(dashboard/present/presenter.py). Were any visitor able to open a room, a student would open one from a second
tab, become its teacher and read them. So a room is opened only from the lab's own computer (the device whose
address is this machine's loopback, 127.0.0.1 or ::1, an IPv4-mapped ::ffff:127.0.0.1 included: `address_of`
gives it as None, and so does an AppTest session, which has no address; the rest of 127.0.0.0/8 are devices),
or from a device named in TEACHER_DEVICES_ENV (addresses and networks: a department server, or a hall whose
teacher's laptop is another machine). Behind the hall's HAProxy on the teacher's laptop (`make hall`), the
teacher's browser connects from 127.0.0.1 and HAProxy writes 127.0.0.1: the lab's own computer again. Taking
a room back with its code and PIN is open to every device: the PIN is the secret.
"""

import functools
import hashlib
import ipaddress
import logging
import math
import os

from classroom.rooms.records import TooManyTries

log = logging.getLogger(__name__)
TRUSTED_PROXIES_ENV = "ATTENTION_LAB_TRUSTED_PROXIES"  # comma-separated addresses; none by default
TEACHER_DEVICES_ENV = "ATTENTION_LAB_TEACHER_DEVICES"  # comma-separated addresses and networks; none by default
THIS_MACHINE = frozenset({"127.0.0.1", "::1"})  # the lab's own machine; the rest of 127/8 are devices (tests play them)


def ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """An IP address read from `text`, an IPv4-mapped IPv6 address as the IPv4 address it carries (a lab served
    on `::` sees 127.0.0.1 as ::ffff:127.0.0.1: one machine, one address); ValueError if it is none."""
    address = ipaddress.ip_address(text.strip())
    return (address.ipv4_mapped or address) if address.version == 6 else address


def clean_address(address) -> str | None:
    """An IP address in its canonical form, or None for anything else (a forged header is no address)."""
    if not isinstance(address, str) or len(address) > 64:
        return None
    try:
        return str(ip(address))
    except ValueError:
        return None


def parse_proxies(text: str | None) -> frozenset[str]:
    """The addresses named in TRUSTED_PROXIES_ENV's value: the proxies whose X-Forwarded-For the lab believes.
    A name that is not an IP address is left out, and the log says so."""
    named = set()
    for part in (text or "").split(","):
        if part.strip() and (address := clean_address(part)) is None:
            log.warning("%s: %r is not an IP address; it is not trusted", TRUSTED_PROXIES_ENV, part.strip()[:64])
        elif part.strip():
            named.add(address)
    return frozenset(named)


@functools.cache
def trusted_proxies() -> frozenset[str]:
    """The proxies named in TRUSTED_PROXIES_ENV (the hall names its HAProxy: hall/run.py, deploy/), read once,
    at first use (a lab process's first client), never on import."""
    return parse_proxies(os.environ.get(TRUSTED_PROXIES_ENV))


def parse_teacher_devices(text: str | None) -> tuple:
    """The networks named in TEACHER_DEVICES_ENV's value (an address is a network of one: 192.168.1.20 is
    192.168.1.20/32). An IPv4-mapped IPv6 entry is read as the IPv4 it carries, as addresses are (`ip`). An
    entry that is neither an address nor a network is left out, and the log says so."""
    named = []
    for part in (text or "").split(","):
        if not (entry := part.strip()):
            continue
        try:
            if len(entry) > 64:
                raise ValueError(entry)
            net = ipaddress.ip_network(entry)  # strict: 10.0.0.5/24 is a typo, not 10.0.0.0/24
        except ValueError:
            log.warning("%s: %r is not an IP address or a network (a network is written from its first address, "
                        "as 192.168.1.0/24); it is not a teacher's device", TEACHER_DEVICES_ENV, entry[:64])
            continue
        if net.version == 6 and net.prefixlen >= 96 and (v4 := net.network_address.ipv4_mapped) is not None:
            net = ipaddress.ip_network(f"{v4}/{net.prefixlen - 96}")
        named.append(net)
    return tuple(named)


@functools.cache
def teacher_devices() -> tuple:
    """The devices named in TEACHER_DEVICES_ENV, read once, at first use (a lab process's first room opened or
    form drawn), never on import."""
    return parse_teacher_devices(os.environ.get(TEACHER_DEVICES_ENV))


# What a device that may not open a room reads instead of the form (and if it sends the form anyway).
OPENED_ELSEWHERE = (f"Rooms are opened from the computer running the lab (or a device named in {TEACHER_DEVICES_ENV}: "
                    "docs/classroom.md says how); from this device you can join a room with its code, and a teacher "
                    "can take their room back with its code and PIN.")


def may_open_rooms(address: str | None, named: tuple) -> bool:
    """Whether the device at `address` (as `address_of` gives it: None for the lab's own computer) may open a
    room: the lab's own computer, or a device in one of the `named` networks (see the module's doc)."""
    if address is None:
        return True
    try:
        device = ip(address)
    except ValueError:
        return False
    return str(device) in THIS_MACHINE or any(device in net for net in named)


def address_of(peer: str | None, forwarded_for: list[str], trusted: frozenset[str]) -> str | None:
    """A client's network address, None for the lab's own machine. `peer`: the connection's address (None:
    this machine, as Streamlit gives 127.0.0.1 and ::1); `forwarded_for`: the X-Forwarded-For headers'
    values, in order. Only a trusted proxy's header is read, and in it the right-most address that is not
    a trusted proxy (the hop that proxy saw: what a client wrote to the left of it is not believed); where
    every hop is trusted, the left-most. X-Real-IP and Forwarded are never read: the hall's HAProxy
    replaces X-Forwarded-For and passes those on as the client sent them."""
    address = clean_address(peer) if peer is not None else "127.0.0.1"
    if address is not None and (address in trusted or (peer is None and THIS_MACHINE & trusted)):
        hops = [hop for value in forwarded_for for hop in value.split(",")]
        for hop in reversed(hops):
            hop = clean_address(hop)
            if hop is None:  # an unreadable hop: the client is not known beyond the proxy
                break
            address = hop
            if hop not in trusted:
                break
    return None if address in THIS_MACHINE else address


TAG_HEX = 16  # 64 bits: finding a session id whose tag is a classmate's takes ~2^64 hashes (6 digits took 26 s)


def member_tag(session: str) -> str:
    """A student's tag on the teacher's screen: a hash of their session id, which it does not reveal."""
    return hashlib.sha256(f"member:{session}".encode()).hexdigest()[:TAG_HEX].upper()


def device(session: str, address: str | None) -> str:
    """What the room bounds seats by: the network address when known; else the session itself (a screen on
    the lab's own machine, or a proxy that sets no X-Forwarded-For: trusted, as for the rate limits above)."""
    return f"a:{address}" if address else f"s:{session}"


def scopes(kind: str, session: str | None, address: str | None, per_session: int, per_address: int) -> list:
    """[(counter scope, limit, who)] for one client: its address when known, then its session."""
    out = [] if address is None else [(f"{kind}:a:{address}", per_address, "from this network address")]
    if session is not None:
        out.append((f"{kind}:s:{session}", per_session, "from this browser"))
    return out


def wait(window: float, now: float) -> float:
    return window - now % window  # counters live in fixed windows [k·window, (k+1)·window)


def refuse(what: str, who: str, window: float, now: float):
    w = wait(window, now)
    when = f"{math.ceil(w)} s" if w < 120 else f"{math.ceil(w / 60)} min"
    raise TooManyTries(f"Too many {what} {who} just now: try again in {when}.", w)


def check(registry, scope_list: list, window: float, now: float, what: str):
    """Refuse a client already at a limit; count nothing (what a failure costs is `count`)."""
    for scope, limit, who in scope_list:
        if registry._count(scope, window, now) >= limit:
            refuse(what, who, window, now)


def count(registry, scope_list: list, window: float, now: float):
    for scope, _, _ in scope_list:
        registry._hit(scope, window, now)


def take(registry, scope_list: list, window: float, now: float, what: str):
    """Count this try first and refuse it past a limit: exact when one client's tries race. The address
    goes first, and a refused try makes no counter for its (fresh) session: a script that makes a new
    session per try must not push the address's own counter out of a bounded registry."""
    for scope, limit, who in scope_list:
        if registry._hit(scope, window, now) > limit:
            refuse(what, who, window, now)
