"""Limits every connection and every request meets, whichever route it is for (R140–R144).

- `BodyLimit`: a request body over its limit is a 413 before the app reads it; `/api/` routes get
  `max_body_bytes`, every other route (Gradio's events, which carry the chat history) gets
  `max_event_body_bytes`. Before this, Gradio's `queue/join` took a 20-million-character question.
  The request line and headers together are bounded too (`max_head_bytes`): h11's own 16 kB
  limit only bounds a head still arriving, so a 27 kB URL sent in one piece went through.
- `GuardedH11Protocol`: uvicorn's HTTP/1.1 protocol with a header deadline and a connection cap
  that evicts the longest-waiting unfinished connection first. uvicorn has neither: a client that
  opens a socket and never finishes its headers held a file descriptor for ever, and 20,000 of
  them exhausted the process.
- `RateLimitedLog`: a logging filter, on every handler, that lets a repeated record through a few
  times per window, so a flood of one failure ("Too many open files") cannot fill the disk.
- `raise_fd_limit()`: the soft descriptor limit up to the hard one, before serving.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import threading
import time

from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from uvicorn.protocols.http.h11_impl import H11Protocol

API_PREFIX = "/api/"


def _error(status: int, detail: str) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status)


class BodyTooLarge(StarletteHTTPException):
    """Raised from `receive` mid-body: an app's own exception handling turns it into its 413, and
    `BodyLimit` answers it when it escapes a middleware that was reading the body itself."""

    def __init__(self, limit: int):
        super().__init__(413, f"request body is larger than {limit} bytes")


class BodyLimit:
    """413 for a body over the route's limit: by Content-Length up front, or counted while a
    chunked body streams in. Applies to every HTTP route, Gradio's included."""

    def __init__(self, app, max_bytes: int, max_event_bytes: int, max_head_bytes: int = 16 * 1024):
        self.app = app
        self.max_bytes = max_bytes
        self.max_event_bytes = max_event_bytes
        self.max_head_bytes = max_head_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        target = len(scope.get("raw_path") or scope["path"].encode()) + len(scope.get("query_string", b""))
        if target > self.max_head_bytes:
            return await _error(414, f"request URL is longer than {self.max_head_bytes} bytes")(scope, receive, send)
        if target + sum(len(k) + len(v) for k, v in scope["headers"]) > self.max_head_bytes:
            return await _error(431, f"request headers are larger than {self.max_head_bytes} bytes")(
                scope, receive, send)
        limit = self.max_bytes if scope["path"].startswith(API_PREFIX) else self.max_event_bytes
        too_large = f"request body is larger than {limit} bytes"
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None:
            if not length.isdigit():
                return await _error(400, "invalid Content-Length header")(scope, receive, send)
            if int(length) > limit:
                return await _error(413, too_large)(scope, receive, send)
        seen, started = 0, False

        async def counting_receive():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(limit)
            return message

        async def watching_send(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, watching_send)
        except BodyTooLarge:
            if started:
                raise
            await _error(413, too_large)(scope, receive, send)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with two limits it lacks:

    - a header deadline: a connection that has not completed a request's line and headers within
      `header_timeout_s` of connecting, or of its previous response, is closed. (uvicorn's
      keep-alive timer is cancelled by the first byte of the next request, so a client trickling
      its headers was never timed out.)
    - a body deadline: a request whose body has not all arrived `body_timeout_s` after its headers
      is closed, and until it has, it counts as waiting (evictable) like a slow head.
    - a connection cap: past `max_connections` open at once, a new connection evicts the one that
      has waited longest for its headers (or body) (slow or idle clients go first, so a flood of unfinished
      requests cannot lock out a real one); when every connection is busy with a request, the new
      one is closed unanswered.

    The class attributes are set per server by `protocol_class()`."""

    max_connections = 1000
    header_timeout_s = 10.0
    body_timeout_s = 30.0
    _refused = False
    _deadline: asyncio.TimerHandle | None = None
    _waiting_since: float | None = None  # loop time since when this connection waits for headers (or body)
    _for_body = False  # the deadline running is the body's

    def connection_made(self, transport) -> None:  # type: ignore[override]
        if len(self.connections) >= self.max_connections and not self._evict_one():
            self._refused = True
            transport.close()
            return
        super().connection_made(transport)
        self._arm()

    def _evict_one(self) -> bool:
        waiting = [c for c in self.connections if getattr(c, "_waiting_since", None) is not None]
        if not waiting:
            return False
        oldest = min(waiting, key=lambda c: c._waiting_since)
        oldest._waiting_since = None
        oldest.transport.close()
        self.connections.discard(oldest)  # its connection_lost comes later; the slot is free now
        return True

    def _arm(self, for_body: bool = False) -> None:
        self._disarm()
        self._for_body = for_body
        self._waiting_since = self.loop.time()
        timeout_s = self.body_timeout_s if for_body else self.header_timeout_s
        self._deadline = self.loop.call_later(timeout_s, self._too_slow, self.cycle)

    def _disarm(self) -> None:
        self._waiting_since = None
        self._for_body = False
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self, cycle_when_armed) -> None:
        self._deadline = None
        if self.cycle is cycle_when_armed and not self.transport.is_closing():
            self._waiting_since = None
            self.transport.close()  # still no complete request since the deadline was set

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        cycle = self.cycle
        if cycle is not before:
            self._disarm()  # a request's headers are complete
            if cycle is not None and cycle.more_body and not cycle.response_complete:
                # ... but not its body (R171): a slow body held its connection for ever, out of the
                # cap's reach. It gets a deadline of its own, and is evictable like a slow head.
                self._arm(for_body=True)
        elif self._for_body and (cycle is None or not cycle.more_body):
            self._disarm()  # the whole request is in: the app's own limits take over

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.cycle is not None and self.cycle.response_complete:
            self._arm()

    def connection_lost(self, exc) -> None:
        if self._refused:
            return
        self._disarm()
        super().connection_lost(exc)


def protocol_class(max_connections: int, header_timeout_s: float,
                   body_timeout_s: float = 30.0) -> type[GuardedH11Protocol]:
    return type("GuardedH11", (GuardedH11Protocol,), {"max_connections": max_connections,
                                                      "header_timeout_s": header_timeout_s,
                                                      "body_timeout_s": body_timeout_s})


class RateLimitedLog(logging.Filter):
    """Lets each distinct (logger, message template) through `burst` times per `window_s`; then one
    line says how many were dropped when the window rolls over."""

    def __init__(self, burst: int = 5, window_s: float = 60.0):
        super().__init__()
        self.burst = burst
        self.window_s = window_s
        self._seen: dict[tuple[str, str], list] = {}
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        decided = getattr(record, "_s2r_rate_allowed", None)
        if decided is not None:  # already counted (a record can reach more than one handler)
            return decided
        key = (record.name, str(record.msg)[:200])
        now = time.monotonic()
        with self._lock:
            if len(self._seen) > 1000:  # many distinct messages: forget the old windows
                self._seen.clear()
            start, count, dropped = self._seen.get(key, (now, 0, 0))
            if now - start > self.window_s:
                if dropped:
                    record.msg = f"{record.msg} (and {dropped} more like it in the last {self.window_s:.0f} s)"
                start, count, dropped = now, 0, 0
            count += 1
            allowed = count <= self.burst
            self._seen[key] = [start, count, dropped + (0 if allowed else 1)]
        record._s2r_rate_allowed = allowed
        return allowed


def install_log_rate_limit(burst: int = 5, window_s: float = 60.0) -> RateLimitedLog:
    """One shared filter on every handler there is now (the root's, uvicorn's, Python's last-resort
    one), so it sees every record written, whichever logger it came from (idempotent). Call it after
    the server has configured its logging. A logger's own filters would not do (R173): Python runs
    them only for records logged on that very logger, not for those propagated from its children,
    so `s2r_tutor`'s filter never saw `s2r_tutor.web`'s records and 300 bad requests wrote 756 kB."""
    limiter = RateLimitedLog(burst, window_s)
    loggers = [logging.getLogger(), *(lg for lg in logging.root.manager.loggerDict.values()
                                      if isinstance(lg, logging.Logger))]
    handlers = {id(h): h for lg in loggers for h in lg.handlers}
    if logging.lastResort is not None:
        handlers[id(logging.lastResort)] = logging.lastResort
    for filterer in [*loggers, *handlers.values()]:
        for old in [f for f in filterer.filters if isinstance(f, RateLimitedLog)]:
            filterer.removeFilter(old)
    for handler in handlers.values():
        handler.addFilter(limiter)
    return limiter


def raise_fd_limit() -> int:
    """Soft RLIMIT_NOFILE up to the hard limit; returns the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft
