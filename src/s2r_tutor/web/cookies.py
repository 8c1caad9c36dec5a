"""The Cookie header, made cheap to parse before anything parses it (R170 in docs/reliability.md).

Python 3.11 before 3.11.10 unquotes a quoted cookie value in quadratic time (CVE-2024-7592,
`http.cookies._unquote`): one 15 kB `Cookie: a="\\"\\"\\"..."` cost 0.2-0.6 s of event-loop time
on every route, since Starlette parses `request.cookies` for each request and the identity code
parses the header again with `SimpleCookie`. Both unquoting patterns need a backslash, so a value
without one is unquoted in one pass. This app's cookies never hold one; another application's on
a shared portal host might, so such a pair is dropped and the request goes on without it. A header
over `max_cookie_bytes` is a 431 (parsing stays linear, about 3 microseconds a pair, but need not
run at all).
"""

from __future__ import annotations

from .guard import deny

COOKIE = b"cookie"


def without_backslash_pairs(value: bytes) -> bytes:
    """'a=1; b="\\"x"; c=2' -> 'a=1; c=2' (linear: one split, one scan per pair). The split ignores
    quotes, so a quoted value holding ';' leaves a piece with an unclosed quote ('x="a' of 'x="a;\\"b"'):
    that piece goes too, since `SimpleCookie` stops at it and would lose every pair after it, our
    reader cookie included (a new anonymous reader, and the reader's own cookie overwritten)."""
    return b"; ".join(p.strip() for p in value.split(b";")
                      if p.strip() and b"\\" not in p and p.count(b'"') % 2 == 0)


class CookieGuard:
    """ASGI middleware, outermost: 431 for a Cookie header over `max_bytes`; cookie pairs holding a
    backslash removed from the scope every inner app (Starlette, Gradio, identity) reads."""

    def __init__(self, app, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        cookies = [v for k, v in scope["headers"] if k == COOKIE]
        if not cookies:
            return await self.app(scope, receive, send)
        if sum(len(v) for v in cookies) > self.max_bytes:
            if scope["type"] != "http":
                return None  # a websocket refused before accept is closed by the server
            return await deny(431, f"the Cookie header is larger than {self.max_bytes} bytes")(scope, receive, send)
        if any(b"\\" in v for v in cookies):  # without one, no pair can be cut open by the split
            headers = []
            for k, v in scope["headers"]:
                if k == COOKIE:
                    v = without_backslash_pairs(v)
                    if not v:
                        continue
                headers.append((k, v))
            scope = {**scope, "headers": headers}
        return await self.app(scope, receive, send)
