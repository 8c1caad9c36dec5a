"""/admin: the insights (`s2r_tutor.insights`) for the card's owner, with two plots drawn on the
server as inline SVG (no JavaScript, no CDN).

Off (404) unless `admin_token` is set. With it: `Authorization: Bearer <token>`, or the login form,
which sets an HttpOnly, SameSite=Strict cookie holding a signed, expiring session (never the token;
logout ends it). Login attempts are rate-limited per address (`admin_login_per_minute`). The
page may not be framed by anyone, the portal included (`frame-ancestors 'none'`).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import threading
import time
from html import escape
from urllib.parse import parse_qs

import anyio
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import SecretStr

from ..settings import Settings
from .feedback import RateLimit
from .identity import server_key

log = logging.getLogger("s2r_tutor.web")

COOKIE = "s2r_admin"
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
}
MAX_FORM_BYTES = 4096
CSS = """body{font:14px/1.5 system-ui,'Noto Sans CJK SC',sans-serif;margin:2rem auto;max-width:1000px;color:#222;padding:0 1rem}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #eee;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f6f6}.num{text-align:right;white-space:nowrap}.muted{color:#777}svg{max-width:100%;height:auto}
form{margin:3rem auto;max-width:22rem}input{width:100%;padding:.4rem;margin:.4rem 0;box-sizing:border-box}"""


MIN_TOKEN_CHARS = 16


class Sessions:
    """The admin cookie: `<expiry>.<nonce>.<signature>`, signed with a key derived from the server's
    key and the admin token (so a new token ends every session), expiring after `admin_session_s`.
    Before (F11) it was a fixed sha256 of the token: valid for good, and logout did not end it.

    A logout writes the session's nonce to the shared store (`store.admin`, R186) until it would have
    expired, so every replica on that store, and this one after a restart, refuses the cookie (before,
    the list was in this process's memory: N5). Per nonce rather than a "sessions before T" epoch, so
    one admin's logout does not end another's session. Only a cookie whose signature and expiry hold
    reaches the store (one indexed read), so forged cookies cost nothing; when the store cannot be
    read the cookie is refused (Bearer still works) rather than trusted."""

    def __init__(self, settings: Settings, token: str, clock=time.time, store=None):
        self.key = hmac.new(server_key(settings, "admin session"), token.encode(), hashlib.sha256).digest()
        self.ttl_s, self.clock, self.store = settings.admin_session_s, clock, store
        self._ended: dict[str, float] = {}  # this process's logouts: still refused if the store write failed
        self._lock = threading.Lock()

    def _sign(self, body: str) -> str:
        return hmac.new(self.key, body.encode(), hashlib.sha256).hexdigest()

    def issue(self) -> str:
        body = f"{int(self.clock() + self.ttl_s)}.{secrets.token_urlsafe(16)}"
        return f"{body}.{self._sign(body)}"

    def _signed(self, value: str) -> tuple[str, str] | None:
        """(expiry, nonce) of a cookie this server signed and that has not expired, else None."""
        expiry, _, rest = value.partition(".")
        nonce, _, sig = rest.partition(".")
        if not (expiry.isdigit() and len(expiry) <= 12 and nonce and sig) or len(value) > 200:
            return None
        if not hmac.compare_digest(sig.encode(), self._sign(f"{expiry}.{nonce}").encode()):
            return None
        return (expiry, nonce) if int(expiry) > self.clock() else None

    def valid(self, value: str) -> bool:
        """Blocking when a store is set (one read): call it from a thread in async code."""
        signed = self._signed(value)
        if signed is None:
            return False
        with self._lock:
            if signed[1] in self._ended:
                return False
        if self.store is None:
            return True
        from ..store.admin import session_ended

        try:
            return not session_ended(self.store, signed[1])
        except Exception as exc:  # noqa: BLE001 - a refused cookie and a log line, not a 500
            log.warning("admin: cannot check the session against the store, refusing the cookie: %s", exc)
            return False

    def end(self, value: str) -> None:
        """Blocking when a store is set (one write)."""
        signed = self._signed(value)
        if signed is None:
            return
        expiry, nonce = float(signed[0]), signed[1]
        now = self.clock()
        with self._lock:
            self._ended = {n: t for n, t in self._ended.items() if t > now}  # forget what expired anyway
            self._ended[nonce] = expiry
        if self.store is not None:
            from ..store.admin import end_session

            try:
                end_session(self.store, nonce, expiry, now)
            except Exception as exc:  # noqa: BLE001
                log.warning("admin: logout not recorded in the store (other replicas accept the cookie "
                            "until it expires): %s", exc)


def authorized(request: Request, token: str, sessions: Sessions) -> bool:
    auth = request.headers.get("authorization", "")
    if auth[:7].lower() == "bearer " and hmac.compare_digest(auth[7:].strip().encode(), token.encode()):
        return True
    cookie = request.cookies.get(COOKIE, "")
    return bool(cookie) and sessions.valid(cookie)


def _page(title: str, body: str, status: int = 200, extra: dict | None = None) -> HTMLResponse:
    html = (f"<!doctype html><html lang='zh'><head><meta charset='utf-8'><title>{escape(title)}</title>"
            f"<meta name='viewport' content='width=device-width,initial-scale=1'><style>{CSS}</style></head>"
            f"<body>{body}</body></html>")
    return HTMLResponse(html, status_code=status, headers={**HEADERS, **(extra or {})})


def login_page(message: str = "", status: int = 401) -> HTMLResponse:
    note = f"<p class='muted'>{escape(message)}</p>" if message else ""
    body = ("<form method='post' action='/admin/login'><h1>s2r-tutor admin</h1>" + note +
            "<label for='token'>Admin token</label><input id='token' name='token' type='password' "
            "autocomplete='current-password' required><input type='submit' value='Log in'></form>")
    return _page("s2r-tutor admin: log in", body, status, {"WWW-Authenticate": 'Bearer realm="s2r-tutor admin"'})


# --------------------------------------------------------------------------- plots (inline SVG)

def bar_chart(items: list[tuple[str, float]], *, title: str, width: int = 640, bar_h: int = 18,
              label_w: int = 220, color: str = "#3b6ea5", elem_id: str = "") -> str:
    """Horizontal bars, one per (label, value)."""
    if not items:
        return f"<p class='muted'>{escape(title)}: no data yet.</p>"
    top = max(v for _, v in items) or 1
    height = 28 + len(items) * (bar_h + 6)
    parts = [f"<svg id='{escape(elem_id)}' class='plot' role='img' aria-label='{escape(title)}' "
             f"xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {width} {height}' width='{width}' height='{height}'>",
             f"<title>{escape(title)}</title>",
             f"<text x='0' y='16' font-size='13' font-weight='bold'>{escape(title)}</text>"]
    span = width - label_w - 50
    for i, (label, value) in enumerate(items):
        y = 28 + i * (bar_h + 6)
        w = max(1.0, span * value / top)
        parts.append(f"<text x='{label_w - 6}' y='{y + bar_h - 5}' font-size='12' text-anchor='end'>{escape(_short(label, 30))}</text>")
        parts.append(f"<rect class='bar' x='{label_w}' y='{y}' width='{w:.1f}' height='{bar_h}' fill='{color}'>"
                     f"<title>{escape(label)}: {value:g}</title></rect>")
        parts.append(f"<text x='{label_w + w + 4:.1f}' y='{y + bar_h - 5}' font-size='12'>{value:g}</text>")
    parts.append("</svg>")
    return "".join(parts)


def day_chart(days: list[dict], *, title: str, width: int = 640, height: int = 220, elem_id: str = "") -> str:
    """Asks (light) and refusals (dark) per day, as paired columns."""
    if not days:
        return f"<p class='muted'>{escape(title)}: no data yet.</p>"
    top = max(d["asks"] for d in days) or 1
    left, bottom, plot_h = 40, 30, height - 60
    slot = (width - left - 10) / len(days)
    bar_w = max(2.0, min(24.0, slot / 2 - 2))
    parts = [f"<svg id='{escape(elem_id)}' class='plot' role='img' aria-label='{escape(title)}' "
             f"xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {width} {height}' width='{width}' height='{height}'>",
             f"<title>{escape(title)}</title>",
             f"<text x='0' y='16' font-size='13' font-weight='bold'>{escape(title)}</text>",
             f"<line x1='{left}' y1='{height - bottom}' x2='{width - 10}' y2='{height - bottom}' stroke='#999'/>",
             f"<text x='{left - 4}' y='{height - bottom - plot_h + 10}' font-size='11' text-anchor='end'>{top}</text>"]
    for i, d in enumerate(days):
        x = left + i * slot + slot / 2
        for j, (key, color) in enumerate((("asks", "#a8c4e0"), ("refused", "#b5452f"))):
            h = plot_h * d[key] / top
            parts.append(f"<rect class='bar {key}' x='{x - bar_w + j * bar_w:.1f}' y='{height - bottom - h:.1f}' "
                         f"width='{bar_w:.1f}' height='{h:.1f}' fill='{color}'><title>{escape(d['day'])}: "
                         f"{d[key]} {key}</title></rect>")
        if len(days) <= 14 or i % max(1, len(days) // 10) == 0:
            parts.append(f"<text x='{x:.1f}' y='{height - bottom + 14}' font-size='10' text-anchor='middle'>"
                         f"{escape(d['day'][5:])}</text>")
    parts.append(f"<text x='{width - 10}' y='16' font-size='11' text-anchor='end'>"
                 "<tspan fill='#7a9cc0'>■ asks</tspan> <tspan fill='#b5452f'>■ refused</tspan></text></svg>")
    return "".join(parts)


def section_day_chart(sections: list[dict], *, title: str, max_rows: int = 12, max_days: int = 21,
                      elem_id: str = "") -> str:
    """Hits per section over time: one row per section (most cited first), one cell per day, darker
    for more citations that day."""
    days = sorted({d for s in sections for d in s["by_day"]})[-max_days:]
    rows = sections[:max_rows]
    if not rows or not days:
        return f"<p class='muted'>{escape(title)}: no data yet.</p>"
    top = max(s["by_day"].get(d, 0) for s in rows for d in days) or 1
    label_w, cell, top_pad = 220, 22, 40
    width, height = max(420, label_w + cell * len(days) + 10), top_pad + cell * len(rows) + 10
    parts = [f"<svg id='{escape(elem_id)}' class='plot' role='img' aria-label='{escape(title)}' "
             f"xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {width} {height}' width='{width}' height='{height}'>",
             f"<title>{escape(title)}</title>",
             f"<text x='0' y='16' font-size='13' font-weight='bold'>{escape(title)}</text>"]
    for j, d in enumerate(days):
        if len(days) <= 10 or j % 3 == 0:
            parts.append(f"<text x='{label_w + j * cell + cell / 2:.0f}' y='{top_pad - 6}' font-size='9' "
                         f"text-anchor='middle'>{escape(d[5:])}</text>")
    for i, sec in enumerate(rows):
        y = top_pad + i * cell
        parts.append(f"<text x='{label_w - 6}' y='{y + cell - 7}' font-size='12' text-anchor='end'>"
                     f"{escape(_short(sec['section'], 30))}</text>")
        for j, d in enumerate(days):
            n = sec["by_day"].get(d, 0)
            shade = 0.08 + 0.92 * n / top if n else 0.0
            parts.append(f"<rect class='cell' x='{label_w + j * cell}' y='{y}' width='{cell - 2}' height='{cell - 2}' "
                         f"fill='#3b6ea5' fill-opacity='{shade:.2f}' stroke='#eee'><title>{escape(sec['section'])} "
                         f"{escape(d)}: {n}</title></rect>")
    parts.append("</svg>")
    return "".join(parts)


def _short(text: str, width: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _table(headers: tuple[str, ...], rows: list[tuple], num: set[int] = frozenset()) -> str:
    if not rows:
        return "<p class='muted'>None.</p>"
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td class='{'num' if i in num else ''}'>{escape(str(c))}</td>"
                                     for i, c in enumerate(r)) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def render(doc: dict) -> str:
    langs = doc["languages"]
    sections = doc["sections"][:25]
    parts = [
        "<h1>s2r-tutor · what readers ask</h1>",
        f"<p>{doc['total']} question(s) logged" + (f" since {escape(doc['since'])}" if doc["since"] else "")
        + f" · 中文 {langs['zh']} · English {langs['en']}"
        + (f" · replicas: {escape(', '.join(doc['replicas']))}" if doc.get("replicas") else "") + "</p>",
        f"<p id='feedback-counts'>likes {doc['feedback']['liked']} · dislikes {doc['feedback']['disliked']}</p>",
        "<h2>Hits per section</h2>",
        bar_chart([(s["section"], s["hits"]) for s in sections], title="Citations per section", elem_id="plot-sections"),
        section_day_chart(doc["sections"], title="Citations per section per day (UTC)", elem_id="plot-sections-days"),
        "<h2>Refusals over time</h2>",
        day_chart(doc["days"], title="Asks and refusals per day (UTC)", elem_id="plot-refusals"),
        "<h2>Refused questions, grouped</h2>",
        (f"<p class='muted'>{doc['refused_ungrouped']} less frequent refused question(s) not grouped "
         "(insights_group_max).</p>" if doc.get("refused_ungrouped") else ""),
        _table(("count", "example", "variants"), [(g["count"], g["example"], " · ".join(g["questions"][:5]))
                                                  for g in doc["refused"]], {0}),
        "<h2>Top questions</h2>",
        _table(("count", "lang", "intent", "refused", "question"),
               [(q["count"], q["language"], q["intent"], "yes" if q["refused"] else "", q["question"])
                for q in doc["questions"]], {0}),
        "<h2>Low-confidence answers</h2>",
        _table(("top score", "citations", "intent", "question"),
               [("-" if x["top_score"] is None else f"{x['top_score']:.3f}", x["citations"], x["intent"], x["question"])
                for x in doc["low_confidence"][:50]], {0, 1}),
        "<h2>Disliked answers</h2>",
        _table(("when", "question", "answer"), [(d["ts"], d["question"], d["answer"]) for d in doc["disliked"][:50]]),
        "<form method='post' action='/admin/logout' style='margin:2rem 0;max-width:none'>"
        "<input type='submit' value='Log out' style='width:auto'></form>",
    ]
    return "".join(parts)


# --------------------------------------------------------------------------- routes

def install_admin(app: FastAPI, settings: Settings, embedder=None) -> None:
    """Add /admin, /admin/login and /admin/logout. Call before Gradio is mounted at '/'.
    `embedder`: the tutor's, for grouping refused questions (loaded on demand when None)."""

    def token() -> str | None:
        value = settings.admin_token
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        return value or None

    if token() and len(token()) < MIN_TOKEN_CHARS:  # Settings refuses it too; a model_copy skips that check
        raise ValueError(f"admin_token must be at least {MIN_TOKEN_CHARS} characters (e.g. `openssl rand -hex 16`)")
    from ..store import open_store

    sessions = Sessions(settings, token(), store=open_store(settings)) if token() else None
    computing = anyio.Lock()
    logins = RateLimit(settings.admin_login_per_minute, 60.0)

    def not_found() -> Response:
        return Response('{"detail":"Not Found"}', status_code=404, media_type="application/json")

    @app.get("/admin", include_in_schema=False)
    async def admin(request: Request, since: str | None = None) -> Response:
        secret = token()
        if not secret:
            return not_found()
        if not await anyio.to_thread.run_sync(authorized, request, secret, sessions):
            return login_page()
        from ..insights import InsightsError, build, parse_since

        try:
            since_s = parse_since(since) if since else None
        except InsightsError as exc:
            return _page("s2r-tutor admin", f"<p>{escape(str(exc))}</p>", 400)

        def compute() -> dict:
            return build(open_store(settings), settings, embedder=embedder, since_s=since_s)

        runtime = getattr(request.app.state, "runtime", None)
        try:
            # In a CPU slot (web_concurrency), like an ask: grouping embeds questions (F7: 31-45 s a load,
            # in threads outside every limit). One load at a time; the others wait for it.
            async with computing:
                doc = await (runtime.call(compute) if runtime is not None else anyio.to_thread.run_sync(compute))
        except Exception as exc:  # noqa: BLE001 - a page that says so, not a traceback
            log.error("admin: insights failed: %s", exc)
            return _page("s2r-tutor admin", "<h1>Insights unavailable</h1><p>The store could not be read; "
                         "details are in the server log.</p>", 503)
        return _page("s2r-tutor admin", render(doc))

    @app.post("/admin/login", include_in_schema=False)
    async def login(request: Request) -> Response:
        secret = token()
        if not secret:
            return not_found()
        client = request.client.host if request.client else ""
        if not logins.allow(f"client:{client}"):  # F11: 200 guesses in 0.27 s before
            return login_page("Too many attempts from here; wait a minute.", 429)
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_FORM_BYTES:
                return login_page("That form was too large.", 413)
        given = (parse_qs(body.decode("utf-8", "replace")).get("token") or [""])[0]
        if not hmac.compare_digest(given.encode(), secret.encode()):
            return login_page("Wrong token.")
        response = RedirectResponse("/admin", status_code=303, headers=HEADERS)
        response.set_cookie(COOKIE, sessions.issue(), httponly=True, samesite="strict", path="/admin",
                            secure=request.url.scheme == "https", max_age=settings.admin_session_s)
        return response

    @app.post("/admin/logout", include_in_schema=False)
    async def logout(request: Request) -> Response:
        if not token():
            return not_found()
        # The cookie stops working everywhere (the shared store), not only in this browser.
        await anyio.to_thread.run_sync(sessions.end, request.cookies.get(COOKIE, ""))
        response = RedirectResponse("/admin", status_code=303, headers=HEADERS)
        response.delete_cookie(COOKIE, path="/admin")
        return response
