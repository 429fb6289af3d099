"""HAProxy's configuration for the hall, rendered from one template for `make hall` and deploy/.

    python -m hall.haproxy --deploy 3 > deploy/haproxy.cfg

Only our own settings reach the template (names we make, ports as integers, host names
checked against a strict pattern), never anything a student types.
"""

import argparse
import ipaddress
import re
from dataclasses import dataclass
from pathlib import Path
from string import Template

from core.limits import MAX_LINK_CHARS

TEMPLATE = Path(__file__).with_name("haproxy.cfg.in")
# One buffer holds a request's line and headers (less HAProxy's 1 kB rewrite reserve): the longest
# link the lab accepts, plus 16 kB for a browser's headers (cookies, user agent, a Referer).
BUFSIZE = MAX_LINK_CHARS + 16_384 + 1024
_NAME = re.compile(r"^[a-z][a-z0-9-]{0,30}$")  # server names and docker host names
# Docker's embedded DNS server: in compose, HAProxy re-resolves a lab container that restarted
# with a new address instead of sending its students to the old one.
DOCKER_RESOLVERS = """
resolvers docker
    nameserver dns 127.0.0.11:53
    hold valid 5s
"""


@dataclass(frozen=True)
class Backend:
    """One lab process: HAProxy's server name (also its cookie value), host and port."""

    name: str
    host: str
    port: int

    def __post_init__(self):
        if not _NAME.match(self.name):
            raise ValueError(f"server name {self.name!r}: lower-case letters, digits and '-' only")
        if not (_is_ip(self.host) or _NAME.match(self.host)):
            raise ValueError(f"host {self.host!r}: an IP address or a plain host name")
        if not (isinstance(self.port, int) and 0 < self.port < 65536):
            raise ValueError(f"port {self.port!r}: 1..65535")


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def render(backends: list[Backend], bind_host: str = "0.0.0.0", port: int = 8501, docker_dns: bool = False) -> str:
    """The whole configuration: the proxy on bind_host:port, sticky to one of `backends`."""
    if not backends:
        raise ValueError("a hall needs at least one lab process")
    Backend("proxy", bind_host, port)  # the same checks for the address it listens on
    extra = " resolvers docker" if docker_dns else ""
    servers = "\n".join(f"    server {b.name} {b.host}:{b.port} cookie {b.name}{extra}" for b in backends)
    return Template(TEMPLATE.read_text(encoding="utf-8")).substitute(
        bind=f"{bind_host}:{port}", servers=servers, resolvers=DOCKER_RESOLVERS if docker_dns else "",
        bufsize=BUFSIZE)


def deploy_config(labs: int, port: int = 8501) -> str:
    """deploy/'s configuration: compose services lab1..labN, each serving on port 8501."""
    return render([Backend(f"lab{i}", f"lab{i}", 8501) for i in range(1, labs + 1)], "0.0.0.0", port,
                  docker_dns=True)


def main():
    parser = argparse.ArgumentParser(description="Print the hall's HAProxy configuration for deploy/.")
    parser.add_argument("--deploy", type=int, default=3, metavar="N", help="lab containers lab1..labN")
    print(deploy_config(parser.parse_args().deploy), end="")


if __name__ == "__main__":
    main()
