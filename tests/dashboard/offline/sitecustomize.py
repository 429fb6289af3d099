"""Loaded by every Python process of a test's lab server (this folder is first on its PYTHONPATH):
records, in $LAB_TEST_OUTSIDE, every attempt to reach outside the machine (a name to look up that
is not this machine's, a TCP connection or a UDP datagram to an address that is not loopback), and
refuses it. A UDP socket's connect() alone sends nothing (it picks a route), so it is not one."""

import ipaddress
import os
import socket

_LOG = os.environ.get("LAB_TEST_OUTSIDE")
_LOCAL_NAMES = {None, "", "localhost", "ip6-localhost", socket.gethostname()}
_getaddrinfo, _connect, _connect_ex = socket.getaddrinfo, socket.socket.connect, socket.socket.connect_ex
_sendto = socket.socket.sendto


def _outside(host) -> bool:
    if isinstance(host, bytes):
        host = host.decode()
    if host in _LOCAL_NAMES:
        return False
    try:
        ip = ipaddress.ip_address(str(host).split("%")[0])
    except ValueError:
        return True  # a name to look up
    return not (ip.is_loopback or ip.is_unspecified)


def _record(what: str):
    with open(_LOG, "a", encoding="utf-8") as f:
        f.write(f"{os.getpid()} {what}\n")
    raise OSError(f"the test refuses to reach outside: {what}")


def getaddrinfo(host, *args, **kwargs):
    if _outside(host):
        _record(f"lookup {host}")
    return _getaddrinfo(host, *args, **kwargs)


def _check(sock, address, kind):
    if sock.family in (socket.AF_INET, socket.AF_INET6) and _outside(address[0]):
        _record(f"{kind} {address[0]}:{address[1]}")


def connect(self, address):
    if self.type == socket.SOCK_STREAM:
        _check(self, address, "tcp")
    return _connect(self, address)


def connect_ex(self, address):
    if self.type == socket.SOCK_STREAM:
        _check(self, address, "tcp")
    return _connect_ex(self, address)


def sendto(self, data, *args):
    _check(self, args[-1], "udp")
    return _sendto(self, data, *args)


if _LOG:
    socket.getaddrinfo, socket.socket.connect, socket.socket.connect_ex = getaddrinfo, connect, connect_ex
    socket.socket.sendto = sendto
