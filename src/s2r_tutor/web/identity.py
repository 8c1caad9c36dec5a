"""Who is asking: one job, turning a request into a reader id that a client cannot simply claim.

- With `Settings.reader_secret` set, a reader is only what a signed token says: an HS256 JWT with
  `sub` (the reader id) and `exp`, sent as `Authorization: Bearer <token>` (API) or `?reader_token=`
  (pages `/` and `/embed`, which keep it for their own calls). `issue_token` / `s2r-tutor
  reader-token` make one. The API refuses a missing, forged or expired token (401); a page falls
  back to an anonymous reader.
- Anonymous readers (no secret, or a page without a valid token) get a random id the server mints:
  `anon-` + 22 URL-safe characters (128 bits), kept in the browser in the `s2r_reader` cookie
  (HttpOnly, SameSite=Lax). A client cannot pick a name with it: any cookie value that is not of
  that shape is replaced by a fresh id. Where the browser keeps no cookie (a cross-site frame),
  the Gradio session stands in: one anonymous reader per page load.
- An unsigned `?reader=` or `X-Reader-Id` is never read: before issue 13 it let anybody read
  anybody's notes, and everyone without one shared the reader 'default'.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import re
import secrets
import time
from dataclasses import dataclass
from http.cookies import SimpleCookie

from ..errors import TutorError
from ..settings import Settings

log = logging.getLogger("s2r_tutor.web")

COOKIE = "s2r_reader"
COOKIE_MAX_AGE_S = 365 * 24 * 3600
ANON_PREFIX = "anon-"
TOKEN_PARAM = "reader_token"
MAX_TOKEN_CHARS = 2048  # a real token is ~150 characters; longer is not worth decoding
ALGORITHM = "HS256"
_ANON = re.compile(r"^anon-[A-Za-z0-9_-]{22}$")
_READER = re.compile(r"^[\w.@\-]{1,64}$")  # the study store's reader id (study/progress.py clean_reader)
_TTL = re.compile(r"^\s*(\d+)\s*([smhd]?)\s*$")
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
PAGE_PATHS = ("/", "/embed")  # page loads that mint the anonymous cookie


class ReaderTokenError(TutorError):
    """A reader token is missing, malformed, forged or expired (the API's 401), or cannot be issued."""

    part = None  # about the caller's token or input: the message is for them


class MissingReaderToken(ReaderTokenError):
    """No token at all (RFC 6750: the 401 then names no error code)."""


@dataclass(frozen=True)
class Reader:
    id: str
    verified: bool  # True: from a signed token; False: an anonymous id

    @property
    def label(self) -> str:
        """What a page shows: a verified id, or 'anonymous' (an anonymous id is a bearer secret)."""
        return self.id if self.verified else "匿名 anonymous"


def parse_ttl(text: str | int) -> int:
    """'8h', '30m', '90s', '2d' or plain seconds -> seconds (> 0)."""
    m = _TTL.match(str(text))
    if not m or int(m.group(1)) <= 0:
        raise ReaderTokenError(f"ttl must be a positive number with an optional unit s/m/h/d (e.g. 8h), not {text!r}")
    return int(m.group(1)) * _UNITS[m.group(2)]


def check_reader_id(reader: str) -> str:
    if not isinstance(reader, str) or not _READER.match(reader):
        raise ReaderTokenError("reader id must be 1-64 letters, digits, '_', '.', '@' or '-'")
    if reader.startswith(ANON_PREFIX):
        raise ReaderTokenError(f"reader ids starting with {ANON_PREFIX!r} are kept for anonymous readers")
    return reader


def _secret(settings: Settings) -> str:
    if settings.reader_secret is None:
        raise ReaderTokenError("no reader secret is set: set S2R_READER_SECRET (at least 32 bytes) first")
    return settings.reader_secret.get_secret_value()


def issue_token(settings: Settings, reader: str, ttl_s: int | None = None, now: float | None = None) -> str:
    """A signed reader token: HS256, `sub` = reader, `iat`, `exp` = now + ttl."""
    import jwt

    now = time.time() if now is None else now
    ttl_s = settings.reader_token_ttl_s if ttl_s is None else ttl_s
    if ttl_s <= 0:
        raise ReaderTokenError("ttl must be positive")
    claims = {"sub": check_reader_id(reader), "iat": int(now), "exp": int(now + ttl_s)}
    return jwt.encode(claims, _secret(settings), algorithm=ALGORITHM)


def verify_token(settings: Settings, token: str) -> str:
    """The reader id a valid token names; ReaderTokenError (a one-line reason) otherwise."""
    import jwt

    if not token or len(token) > MAX_TOKEN_CHARS:
        raise ReaderTokenError("the reader token is not valid")
    try:
        claims = jwt.decode(token, _secret(settings), algorithms=[ALGORITHM],
                            options={"require": ["exp", "sub"]}, leeway=settings.reader_token_leeway_s)
    except jwt.ExpiredSignatureError:
        raise ReaderTokenError("the reader token has expired; ask the portal for a new one") from None
    except jwt.PyJWTError:
        raise ReaderTokenError("the reader token is not valid") from None
    try:
        return check_reader_id(claims.get("sub"))
    except ReaderTokenError:
        raise ReaderTokenError("the reader token is not valid") from None


KEY_FILE = "server.key"  # in the data folder (var/) beside the study store, mode 0600
_local_keys: dict[str, bytes] = {}


def server_key(settings: Settings, purpose: str) -> bytes:
    """A key only this server (and replicas sharing its secret) knows, for signing what it hands a
    client to give back later (chat records, the admin session). Derived from `reader_secret` when
    set, so replicas with the same secret accept each other's values; else from a random key kept
    in the data folder (created once, 0600), so a restart keeps it; else (read-only folder) one random
    key for this process."""
    if settings.reader_secret is not None:
        root = settings.reader_secret.get_secret_value().encode()
    else:
        path = settings.study_db.parent / KEY_FILE
        root = _local_keys.get(str(path)) or _file_key(path)
        _local_keys[str(path)] = root
    return hmac.new(root, b"s2r-tutor:" + purpose.encode(), hashlib.sha256).digest()


def _file_key(path) -> bytes:
    try:
        return bytes.fromhex(path.read_text().strip())
    except (OSError, ValueError):
        pass
    key = secrets.token_bytes(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(key.hex())
    except FileExistsError:  # another process made it first: use theirs
        try:
            return bytes.fromhex(path.read_text().strip())
        except (OSError, ValueError):
            pass
    except OSError as exc:
        log.warning("no key file at %s (%s): signed values last until this process ends", path, exc)
    return key


def new_anonymous_id() -> str:
    return ANON_PREFIX + secrets.token_urlsafe(16)  # 16 bytes -> 22 characters


def is_anonymous_id(value: object) -> bool:
    return isinstance(value, str) and bool(_ANON.match(value))


def session_anonymous_id(session_hash: str) -> str:
    """A stable anonymous id for one Gradio session (a page load), for browsers that keep no cookie."""
    digest = hashlib.sha256(b"s2r-session:" + session_hash.encode("utf-8", "replace")).digest()[:16]
    return ANON_PREFIX + base64.urlsafe_b64encode(digest).decode().rstrip("=")


def cookie_reader(cookie_header: str | None) -> str | None:
    """The anonymous id in a Cookie header, or None when absent or not of the minted shape."""
    if not cookie_header:
        return None
    jar = SimpleCookie()
    try:
        jar.load(cookie_header)
    except Exception:  # noqa: BLE001 - a malformed Cookie header is simply no cookie
        return None
    value = jar[COOKIE].value if COOKIE in jar else None
    return value if is_anonymous_id(value) else None


def bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, value = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    return value.strip() or None


def set_cookie_header(reader_id: str, secure: bool = False) -> bytes:
    attrs = f"{COOKIE}={reader_id}; Path=/; Max-Age={COOKIE_MAX_AGE_S}; HttpOnly; SameSite=Lax"
    return (attrs + ("; Secure" if secure else "")).encode("latin-1")


class Readers:
    """Resolves readers for one app (its Settings). The API side and the page side differ only in
    what happens without a valid token: the API refuses (secret set) or uses the anonymous cookie;
    a page always falls back to an anonymous reader."""

    def __init__(self, settings: Settings):
        self.settings = settings

    @property
    def signed(self) -> bool:
        return self.settings.reader_secret is not None

    def from_token(self, token: str | None) -> Reader:
        if not token:
            raise MissingReaderToken("a reader token is required: send `Authorization: Bearer <token>`")
        return Reader(verify_token(self.settings, token), verified=True)

    def api(self, authorization: str | None, cookie_header: str | None) -> tuple[Reader, bool]:
        """(reader, minted) for an API call. Secret set: the Bearer token's reader or ReaderTokenError.
        No secret: the `s2r_reader` cookie's anonymous id, or a new one (minted=True: set the cookie)."""
        if self.signed:
            return self.from_token(bearer(authorization)), False
        known = cookie_reader(cookie_header)
        return (Reader(known, False), False) if known else (Reader(new_anonymous_id(), False), True)

    def page(self, request) -> Reader:
        """The reader of a Gradio event (`gr.Request`, or None): a valid `?reader_token=` (or Bearer
        header), else the browser's anonymous cookie, else one anonymous id per Gradio session."""
        params = _mapping(request, "query_params")
        headers = {str(k).lower(): v for k, v in _mapping(request, "headers").items()}
        if self.signed:
            token = params.get(TOKEN_PARAM) or bearer(headers.get("authorization"))
            if token:
                try:
                    return self.from_token(str(token))
                except ReaderTokenError as exc:
                    log.debug("page reader token refused (%s): anonymous session instead", exc)  # no log flood
        known = cookie_reader(headers.get("cookie"))
        if known:
            return Reader(known, False)
        session = getattr(request, "session_hash", None) if request is not None else None
        return Reader(session_anonymous_id(session) if session else new_anonymous_id(), False)


def _mapping(request, name: str) -> dict:
    if request is None:
        return {}
    try:
        return dict(getattr(request, name) or {})
    except Exception:  # noqa: BLE001 - a request object without that part (tests, odd clients)
        return {}


class AnonymousCookie:
    """ASGI middleware: a page load (`/`, `/embed`) without a valid `s2r_reader` cookie gets a
    freshly minted one, so each browser is its own anonymous reader from its first event on."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("method") != "GET" or scope["path"] not in PAGE_PATHS:
            return await self.app(scope, receive, send)
        headers = scope.get("headers") or []
        cookies = b"; ".join(v for k, v in headers if k == b"cookie").decode("latin-1")
        if cookie_reader(cookies):
            return await self.app(scope, receive, send)
        header = set_cookie_header(new_anonymous_id(), secure=scope.get("scheme") == "https")

        async def send_with_cookie(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", header)]}
            await send(message)

        await self.app(scope, receive, send_with_cookie)
