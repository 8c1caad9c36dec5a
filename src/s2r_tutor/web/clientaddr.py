"""Where client addresses come from, said out loud (R191 in docs/reliability.md; docs/deploy.md,
"Client addresses").

Every per-address limit (note writes, votes, /admin login tries, a client's share of the chat's
event streams) reads the address uvicorn resolved: a peer in `FORWARDED_ALLOW_IPS` is replaced by the
address its `X-Forwarded-For` names, any other peer is taken as it is. Behind a proxy that is not
trusted, or that sends no `X-Forwarded-For`, every reader has the proxy's address, so one reader's 30
note writes give everyone a 429 for a minute and 10 wrong admin tokens lock the login form for all
(round-13 re-attack N4). Nothing fails, so nobody notices. The server cannot know where its proxy is,
but it can say what it sees:

- at start-up (`startup_notes`): which peers are believed, and a warning when the configuration
  itself says per-address limits will not work (a public URL, i.e. a proxy in front, with the
  server listening beyond loopback but believing only loopback; `FORWARDED_ALLOW_IPS=*` on a server
  others can reach; a non-loopback address in `stream_shared_clients`, i.e. a proxy known to pass none);
- at run time (`ClientAddressCheck`): the first requests whose `X-Forwarded-For` was not believed (a
  proxy that is not trusted), and, with a public URL, the first one from a trusted proxy that sent no
  such header (a proxy that passes no address). One warning per peer address, at most `MAX_WARNINGS`
  per process, so a client sending forged headers cannot fill the log.
"""

from __future__ import annotations

import ipaddress
import logging
import os

from ..settings import Settings

log = logging.getLogger("s2r_tutor.web.clientaddr")

MAX_WARNINGS = 3
LIMITS = ("per-address limits (note writes, votes, /admin login tries, a share of the chat's streams) count "
          "every reader behind it as one client")
UVICORN_DEFAULT = "127.0.0.1,::1"  # uvicorn's FORWARDED_ALLOW_IPS when unset (serve() leaves it to uvicorn)
HOWTO = "docs/deploy.md, \"Client addresses\""


def _is_loopback(host: str) -> bool:
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
        return (ip.ipv4_mapped or ip).is_loopback if ip.version == 6 else ip.is_loopback  # ::ffff:127.0.0.1 too
    except ValueError:
        return host.strip().lower() == "localhost"


def trusted_list(forwarded_allow_ips: str | list[str] | None = None) -> list[str]:
    """The peers uvicorn believes X-Forwarded-For from (None: what it reads from the environment)."""
    if forwarded_allow_ips is None:
        forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", UVICORN_DEFAULT)
    items = forwarded_allow_ips.split(",") if isinstance(forwarded_allow_ips, str) else forwarded_allow_ips
    return [i.strip() for i in items if i.strip()]


def is_trusted(address: str, trusted: list[str]) -> bool:
    """As uvicorn reads FORWARDED_ALLOW_IPS: '*', addresses and networks."""
    if "*" in trusted or address in trusted:
        return True
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    for item in trusted:
        try:
            if ip in ipaddress.ip_network(item, strict=False):
                return True
        except ValueError:
            continue
    return False


def startup_notes(settings: Settings, host: str, forwarded_allow_ips: str | list[str],
                  proxy_headers: bool = True) -> list[tuple[int, str]]:
    """(level, line) pairs for the log at start-up: where client addresses come from, and why per-address
    limits will not hold when the configuration says so."""
    trusted = trusted_list(forwarded_allow_ips) if proxy_headers else []
    reachable = not _is_loopback(host)
    notes: list[tuple[int, str]] = []
    shown = ",".join(trusted) or "nobody"
    notes.append((logging.INFO, f"client addresses: X-Forwarded-For is believed from {shown} (FORWARDED_ALLOW_IPS); "
                                "every other peer is taken as the client"))
    if "*" in trusted and reachable:
        notes.append((logging.WARNING, f"FORWARDED_ALLOW_IPS=* on a server listening on {host}: any client can name "
                                       "any address in X-Forwarded-For and step round every per-address limit; list "
                                       f"only the proxy's address ({HOWTO})"))
    elif settings.public_url and reachable and all(_is_loopback(t) for t in trusted):
        notes.append((logging.WARNING, f"public_url is set (a proxy in front) and the server listens on {host}, but "
                                       f"X-Forwarded-For is believed only from {shown}: a proxy on another host is not "
                                       f"trusted, so {LIMITS}. Set FORWARDED_ALLOW_IPS to its address and have it send "
                                       f"X-Forwarded-For ({HOWTO})"))
    shared = [a for a in settings.stream_shared_clients if not _is_loopback(a)]
    if shared:
        notes.append((logging.WARNING, f"stream_shared_clients lists {', '.join(shared)}: a proxy that passes no client "
                                       "address; its readers share the stream pool with no per-address share, and note "
                                       "writes, votes and /admin login tries count all of them as one client. Have it "
                                       f"send X-Forwarded-For and trust it instead ({HOWTO})"))
    return notes


def log_startup_notes(settings: Settings, host: str, forwarded_allow_ips: str | list[str],
                      proxy_headers: bool = True) -> None:
    for level, line in startup_notes(settings, host, forwarded_allow_ips, proxy_headers):
        log.log(level, line)


def client_of(scope) -> str:
    """The client's address as the app's other per-address limits read it (`request.client.host`):
    uvicorn has already resolved a trusted proxy's X-Forwarded-For into it; nothing is parsed again."""
    client = scope.get("client")
    return str(client[0]) if client else ""


def client_key(address: str) -> str:
    """The client a per-address share counts: an IPv4 address (also when written as ::ffff:a.b.c.d), or an
    IPv6 address's /64, which one host usually holds whole (round-14 re-attack: one address written three
    ways held three shares, and an IPv6 client could take a share per address of its /64)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class ClientAddressCheck:
    """ASGI middleware: reads nothing it changes; warns (bounded) when a request shows that the proxy in
    front is not trusted or passes no address. Runs inside uvicorn's proxy-headers step, so
    `scope["client"]` is already the resolved address: a believed X-Forwarded-For always yields one of
    its own entries, so a client address that is none of them means the header was not believed."""

    def __init__(self, app, behind_proxy: bool, trusted: list[str] | None = None):
        self.app = app
        self.behind_proxy = behind_proxy
        self.trusted = trusted_list() if trusted is None else trusted
        self.warned: set[str] = set()

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and len(self.warned) < MAX_WARNINGS:
            self.check(scope)
        return await self.app(scope, receive, send)

    def check(self, scope) -> None:
        client = scope.get("client")
        address = str(client[0]) if client else ""
        if not address or address in self.warned:
            return
        forwarded = [v.decode("latin-1") for k, v in scope.get("headers") or [] if k == b"x-forwarded-for"]
        entries = {e.strip() for v in forwarded for e in v.split(",")}
        if forwarded and address not in entries:
            self.warned.add(address)
            log.warning("requests from %s carry X-Forwarded-For, which is not believed from that address "
                        "(not in FORWARDED_ALLOW_IPS): if it is a proxy, %s; add it to FORWARDED_ALLOW_IPS (%s)",
                        address, LIMITS, HOWTO)
        elif not forwarded and self.behind_proxy and is_trusted(address, self.trusted):
            self.warned.add(address)
            log.warning("a request from %s carried no X-Forwarded-For although public_url says a proxy is in front: "
                        "if that is the proxy, it passes no client address, and %s; have it send X-Forwarded-For (%s)",
                        address, LIMITS, HOWTO)
