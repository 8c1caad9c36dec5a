"""The Host header, checked before anything reads it (R143 in docs/reliability.md).

Gradio builds the URLs in `/config` and in the page from the request's `Host` (or, when present,
`X-Forwarded-Host` / `X-Forwarded-Proto`), so a client that sends `Host: evil.example` got pages
pointing at evil.example: the stuff of cache poisoning and phishing links. Two ways out:

- `Settings.public_url` set (a deployment behind a proxy): Gradio is given that URL and never reads
  the headers;
- otherwise the `Host` must be one this server answers to (`Settings.allowed_hosts`, by default the
  loopback names, the bind host and this machine's name; 400 for any other), and the forwarded
  headers are dropped, since no proxy is trusted to set them.
"""

from __future__ import annotations

import socket

from .guard import deny

FORWARDED = (b"x-forwarded-host", b"x-forwarded-proto", b"x-forwarded-port", b"forwarded")


def default_hosts(bind_host: str) -> set[str]:
    """Loopback names, the bind host, and this machine's names and addresses (so a server bound to
    0.0.0.0 answers to its LAN address without configuration)."""
    names = {"127.0.0.1", "localhost", "::1", "[::1]", bind_host}
    for name in (socket.gethostname(), socket.getfqdn()):
        if name:
            names.add(name)
            try:
                for *_, addr in socket.getaddrinfo(name, None):
                    ip = str(addr[0])
                    names.add(f"[{ip}]" if ":" in ip else ip)
            except OSError:  # a name that does not resolve: its name is enough
                pass
    return {n.lower() for n in names if n and n not in ("0.0.0.0", "::", "[::]")}


def host_name(value: str) -> str:
    """'Example.com:7860' -> 'example.com'; '[::1]:7860' -> '[::1]'."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[: value.find("]") + 1] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class HostGuard:
    """ASGI middleware: 400 for a Host this server does not answer to; forwarded headers removed."""

    def __init__(self, app, allowed: set[str] | None):
        self.app = app
        self.allowed = allowed  # None: any host (public_url is set, Gradio never reads the header)

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        headers = [(k, v) for k, v in scope["headers"] if k not in FORWARDED]
        if self.allowed is not None:
            host = next((v for k, v in headers if k == b"host"), b"").decode("latin-1")
            if host_name(host) not in self.allowed:
                if scope["type"] != "http":
                    return None
                return await deny(400, "unknown Host header (see the allowed_hosts setting)")(scope, receive, send)
        return await self.app({**scope, "headers": headers}, receive, send)
