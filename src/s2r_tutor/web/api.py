"""The HTTP API: routes, error mapping, request-size limit, CORS and framing headers.

Routes are thin: parse the request once (pydantic), hand the work to `Runtime`, return the models.
Every bad request ends as a 4xx with `{"detail": "<one clear sentence>"}`, never a traceback.
"""

from __future__ import annotations

import logging
import re
from typing import Annotated, Literal

import anyio
from fastapi import APIRouter, BackgroundTasks, Depends, FastAPI, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..errors import QueryError, TutorError, public_message
from ..models import Answer, Hit, Turn
from ..settings import Settings
from .identity import (AnonymousCookie, MissingReaderToken, Reader, Readers, ReaderTokenError, cookie_reader,
                       set_cookie_header)
from .runtime import Runtime

log = logging.getLogger("s2r_tutor.web")

_ORIGIN = re.compile(r"^https?://[A-Za-z0-9.\-]+(:\d{1,5})?$")


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(description="the question, Chinese or English (longer than 500 characters is truncated)")
    history: list[Turn] = Field(default_factory=list, max_length=50, description="earlier turns, oldest first")


class SearchResponse(BaseModel):
    hits: list[Hit]


class Health(BaseModel):
    status: Literal["ok", "degraded"] = Field(
        description="'degraded' (HTTP 503): the answer worker processes failed and fresh ones have not answered yet")
    version: str
    chunks: int = Field(description="indexed chunks")
    cards: int = Field(description="indexed concept cards")
    workers: int = Field(0, description="answer worker processes (`serve --processes`); 0: this process's threads")
    slots: int = Field(0, description="tutor calls that may run at once (`web_concurrency`)")
    busy: int = Field(0, description="of those, running now")
    worker_failures: int = Field(0, description="times the worker processes were replaced since start")
    question_log_dropped: int = Field(0, description="question-log rows dropped under a flood since start")


class ErrorBody(BaseModel):
    detail: str


class NoteRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "examples": [{"section": "04-08#reality-gap", "text": "现实差距：仿真和真机的动力学不一致。"}]})

    section: str = Field(max_length=200, description="the section noted: a chunk id ('04-08#reality-gap') or "
                         "an anchor ('reality-gap'); it must exist in the card corpus")
    text: str = Field(description="the note (at most `Settings.max_note_chars` characters; 2000 by default)")


class NoteOut(BaseModel):
    id: int
    chunk_id: str = Field(description="the section's chunk id")
    section: str = Field(description="the section's heading path ('' when the card no longer has it)")
    text: str
    created_at: float = Field(description="Unix time")


class NotesResponse(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "reader": "alice", "count": 1, "max_notes": 200, "max_note_chars": 2000,
        "notes": [{"id": 7, "chunk_id": "04-08#reality-gap", "section": "什么是 Sim2Real？ > 现实差距",
                   "text": "现实差距：仿真和真机的动力学不一致。", "created_at": 1764759600.0}]}]})

    reader: str = Field(description="the caller: the token's `sub`, or the anonymous id of this client")
    count: int
    max_notes: int = Field(description="notes one reader may keep")
    max_note_chars: int = Field(description="longest note accepted")
    notes: list[NoteOut] = Field(description="oldest first")


class ProgressResponse(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "reader": "alice", "answered": 12, "correct": 8, "partial": 3, "wrong": 1}]})

    reader: str
    answered: int = Field(description="distinct quiz questions answered")
    correct: int = Field(description="of those, last answered correctly")
    partial: int
    wrong: int


ERRORS = {code: {"model": ErrorBody} for code in (400, 401, 413, 422, 503)}
NOTE_ERRORS = {**ERRORS, 409: {"model": ErrorBody, "description": "the reader already keeps the most notes allowed"},
               429: {"model": ErrorBody, "description": "more than `notes_per_minute` note writes a minute"}}


# --------------------------------------------------------------------------- routes

router = APIRouter()
# Declared for OpenAPI (the Bearer scheme shows in /docs); auto_error=False: the 401 is ours.
_bearer = HTTPBearer(auto_error=False, description="a reader token (HS256 JWT with `sub` and `exp`) from the "
                     "portal or `s2r-tutor reader-token`; required when the server has S2R_READER_SECRET set")
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]


def _runtime(request: Request) -> Runtime:
    return request.app.state.runtime


def _readers(request: Request) -> Readers:
    readers = getattr(request.app.state, "readers", None)
    if readers is None:
        readers = request.app.state.readers = Readers(_runtime(request).settings)
    return readers


def _unauthorized(exc: ReaderTokenError) -> StarletteHTTPException:
    challenge = "Bearer" if isinstance(exc, MissingReaderToken) else 'Bearer error="invalid_token"'
    return StarletteHTTPException(401, str(exc), headers={"WWW-Authenticate": challenge})


def _auth_header(request: Request, creds: HTTPAuthorizationCredentials | None) -> str | None:
    return f"Bearer {creds.credentials}" if creds else request.headers.get("authorization")


async def require_token(request: Request, creds: Credentials) -> None:
    """With a reader secret set, every /api/ route needs a valid token (401 otherwise)."""
    readers = _readers(request)
    if readers.signed:
        try:
            readers.api(_auth_header(request, creds), None)
        except ReaderTokenError as exc:
            raise _unauthorized(exc) from None


async def api_reader(request: Request, response: Response, creds: Credentials) -> Reader:
    """The caller of a reader-data route: the token's reader (secret set), else this client's
    anonymous id from the `s2r_reader` cookie, minted (and set on the response) on first use."""
    try:
        reader, minted = _readers(request).api(_auth_header(request, creds), request.headers.get("cookie"))
    except ReaderTokenError as exc:
        raise _unauthorized(exc) from None
    if minted:
        response.headers.append("set-cookie", set_cookie_header(reader.id, request.url.scheme == "https").decode())
    return reader


@router.post("/api/ask", response_model=Answer, responses=ERRORS, summary="Ask a question; a cited answer",
             dependencies=[Depends(require_token)])
async def ask(body: AskRequest, request: Request, background: BackgroundTasks) -> Answer:
    # The widget (/embed) calls this route too; its page is the referrer. Only the path is looked at.
    source = "widget" if "/embed" in request.headers.get("referer", "") else "api"
    # The question-log row is written after the reply is sent (#15: the commit's disk wait was ~20 ms an ask).
    return await _runtime(request).ask(body.question, body.history, source=source, reader=_known_reader(request),
                                       background=background)


def _known_reader(request: Request) -> str | None:
    """The caller's reader id for the question log (which keeps only its hash): the token's, or an
    anonymous cookie the client already has; asking never mints one."""
    readers = _readers(request)
    try:
        if readers.signed:
            return readers.api(request.headers.get("authorization"), None)[0].id
        return cookie_reader(request.headers.get("cookie"))
    except ReaderTokenError:
        return None


@router.get("/api/search", response_model=SearchResponse, responses=ERRORS, summary="Best card sections for a query",
            dependencies=[Depends(require_token)])
async def search(
    request: Request,
    q: str = Query(description="the query text"),
    k: int = Query(5, ge=1, le=50, description="how many hits"),
) -> SearchResponse:
    return SearchResponse(hits=await _runtime(request).search(q, k))


def _study_store(request: Request):
    from ..store import open_store
    from ..study.progress import StudyStore

    store = getattr(request.app.state, "study_store", None)
    if store is None:  # the shared store: SQLite in the data folder, or the replicas' PostgreSQL
        store = request.app.state.study_store = StudyStore(open_store(_runtime(request).settings))
    return store


def _store_exists(settings: Settings) -> bool:
    """False only for a default SQLite store whose file is not there yet: reading never creates it."""
    return bool(settings.database_url) or settings.study_db.exists()


async def _study(request: Request, fn, *args):
    """Run a (short, blocking) study-store call off the event loop, but outside the tutor's CPU
    slots: a note must not wait behind slow questions. Bad input -> 422/409; an unusable database
    -> 503 without its path (that stays in the server log)."""
    from ..study.progress import NoteLimitError, StudyStorageError, StudyStoreError

    try:
        return await anyio.to_thread.run_sync(fn, *args)
    except NoteLimitError as exc:
        raise StarletteHTTPException(409, str(exc)) from None
    except StudyStorageError as exc:
        log.error("study store error on %s: %s", request.url.path, exc)
        raise StarletteHTTPException(503, "notes and progress are unavailable right now: a problem with the "
                                          "study database (details are in the server log)") from None
    except StudyStoreError as exc:  # the caller's input (NoteError and friends): their own words
        raise StarletteHTTPException(422, str(exc)) from None


def _notes_response(request: Request, reader: Reader) -> NotesResponse:
    settings = _runtime(request).settings
    chunks = {c.chunk_id: c for c in _runtime(request).tutor.chunks}
    notes = _study_store(request).notes(reader.id) if _store_exists(settings) else []
    return NotesResponse(
        reader=reader.id, count=len(notes), max_notes=settings.max_notes_per_reader,
        max_note_chars=settings.max_note_chars,
        notes=[NoteOut(id=n.id, chunk_id=n.chunk_id, section=chunks[n.chunk_id].section if n.chunk_id in chunks else "",
                       text=n.text, created_at=n.created_at) for n in notes])


NOTE_ID_MIN, NOTE_ID_MAX = -(2**63), 2**63 - 1  # the database's integer range: outside it no note exists


def _note_writes(request: Request, reader: Reader) -> None:
    """At most `notes_per_minute` note writes a minute from one reader and from one client address
    (F6: 400 cookieless notes in 1.4 s, each under a new anonymous reader); a 429 past it."""
    from .feedback import RateLimit

    limit = getattr(request.app.state, "note_writes", None)
    if limit is None:
        limit = request.app.state.note_writes = RateLimit(_runtime(request).settings.notes_per_minute, 60.0)
    client = request.client.host if request.client else ""
    if not limit.allow(f"reader:{reader.id}", f"client:{client}"):
        raise StarletteHTTPException(429, "too many notes written from here in the last minute; try again shortly",
                                     headers={"Retry-After": "60"})


@router.get("/api/notes", response_model=NotesResponse, responses=ERRORS, summary="The caller's notes")
async def get_notes(request: Request, reader: Annotated[Reader, Depends(api_reader)]) -> NotesResponse:
    return await _study(request, _notes_response, request, reader)


@router.post("/api/notes", response_model=NotesResponse, status_code=201, responses=NOTE_ERRORS,
             summary="Add a note on a card section; returns all of the caller's notes")
async def post_note(body: NoteRequest, request: Request,
                    reader: Annotated[Reader, Depends(api_reader)]) -> NotesResponse:
    from ..study.notes import save_note

    runtime = _runtime(request)
    _note_writes(request, reader)

    def add() -> NotesResponse:
        save_note(_study_store(request), reader.id, body.section, body.text, runtime.tutor.chunks, runtime.settings)
        return _notes_response(request, reader)

    return await _study(request, add)


@router.delete("/api/notes/{note_id}", response_model=NotesResponse,
               responses=ERRORS | {404: {"model": ErrorBody}, 429: {"model": ErrorBody}},
               summary="Delete one of the caller's notes; returns the notes left")
async def delete_note(note_id: int, request: Request,
                      reader: Annotated[Reader, Depends(api_reader)]) -> NotesResponse:
    if not NOTE_ID_MIN <= note_id <= NOTE_ID_MAX:  # SQLite would raise OverflowError (F4c); nothing is written
        raise StarletteHTTPException(404, f"no note {note_id} among yours")
    _note_writes(request, reader)

    def remove() -> NotesResponse:
        # The reader's own notes only: another reader's id is "no such note", never a hint it exists.
        if not (_store_exists(_runtime(request).settings) and _study_store(request).delete_note(reader.id, note_id)):
            raise StarletteHTTPException(404, f"no note {note_id} among yours")
        return _notes_response(request, reader)

    return await _study(request, remove)


@router.get("/api/progress", response_model=ProgressResponse, responses=ERRORS, summary="The caller's quiz summary")
async def get_progress(request: Request, reader: Annotated[Reader, Depends(api_reader)]) -> ProgressResponse:
    def summary() -> ProgressResponse:
        if not _store_exists(_runtime(request).settings):  # reading never creates the database
            return ProgressResponse(reader=reader.id, answered=0, correct=0, partial=0, wrong=0)
        return ProgressResponse(reader=reader.id, **_study_store(request).summary(reader.id))

    return await _study(request, summary)


@router.get("/healthz", response_model=Health, summary="Liveness, index size and the answer workers' state",
            responses={503: {"model": Health, "description": "the answer workers are failing"}})
async def healthz(request: Request) -> Health | JSONResponse:
    runtime = _runtime(request)
    chunks = runtime.tutor.chunks
    ok = await runtime.workers_ok()
    health = Health(status="ok" if ok else "degraded", version=__version__, chunks=len(chunks),
                    cards=len({c.doc_id for c in chunks}), workers=runtime.settings.web_processes,
                    slots=runtime.settings.web_concurrency, busy=runtime.busy,
                    worker_failures=runtime.worker_failures, question_log_dropped=runtime.log_dropped)
    return health if ok else JSONResponse(health.model_dump(), status_code=503)


# --------------------------------------------------------------------------- errors


def _error(status: int, detail: str) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status)


def _validation_message(exc: RequestValidationError) -> tuple[int, str]:
    errors = exc.errors()
    for e in errors:
        if e.get("type") == "json_invalid":
            ctx = e.get("ctx") or {}
            return 400, f"malformed JSON body: {ctx.get('error', 'cannot be parsed')}"
    parts = []
    for e in errors[:5]:
        loc = ".".join(str(p) for p in e.get("loc", ()) if p != "body") or "body"
        parts.append(f"{loc}: {e.get('msg', 'invalid')}")
    return 422, "invalid request: " + "; ".join(parts)


async def _on_validation(request: Request, exc: RequestValidationError) -> JSONResponse:
    return _error(*_validation_message(exc))


async def _on_query_error(request: Request, exc: QueryError) -> JSONResponse:
    return _error(400, str(exc))


async def _on_tutor_error(request: Request, exc: TutorError) -> JSONResponse:
    # Not the caller's fault (index, embedder, templates): which part failed, without a traceback or
    # the error's own text, which names server paths and goes to the log.
    return _error(503, public_message(exc).replace("cannot do this", "cannot answer"))


async def _on_unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unexpected error on %s", request.url.path)
    return _error(500, "internal error: the tutor failed unexpectedly (see the server log)")


async def _on_http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    return JSONResponse({"detail": str(exc.detail)}, status_code=exc.status_code, headers=exc.headers)


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, _on_validation)
    app.add_exception_handler(QueryError, _on_query_error)
    app.add_exception_handler(TutorError, _on_tutor_error)
    app.add_exception_handler(StarletteHTTPException, _on_http_error)
    app.add_exception_handler(Exception, _on_unexpected)


# --------------------------------------------------------------------------- middleware


def allowed_origins(settings: Settings) -> list[str]:
    """The portal origins from Settings, checked, since they go verbatim into response headers."""
    origins = [o.rstrip("/") for o in settings.allowed_origins]
    bad = [o for o in origins if o != "*" and not _ORIGIN.match(o)]
    if bad:
        raise ValueError(f"allowed_origins must look like 'https://host[:port]' or '*': {bad}")
    return origins


def frame_ancestors(settings: Settings) -> str:
    return "frame-ancestors " + " ".join(["'self'", *allowed_origins(settings)])


READER_PATHS = ("/api/notes", "/api/progress")  # answers that belong to the caller (and name their reader id)
PRIVATE = (b"cache-control", b"private, no-store")


def _personal(path: str, headers) -> bool:
    """A response only its caller may see: a reader route's, or one that sets a cookie (R192)."""
    path = path.rstrip("/")
    return path.startswith(READER_PATHS) or any(k.lower() == b"set-cookie" for k, _ in headers)


class SecurityHeaders:
    """Adds `frame-ancestors` (only the portal origins may frame any page) and a few safe defaults to
    every response that does not set its own Content-Security-Policy (the /embed page does).

    A personal response (a reader's notes or progress, or one that sets the anonymous cookie) that says
    nothing about caching gets `Cache-Control: private, no-store` (R192): behind a proxy that caches
    (nginx `proxy_cache_valid 200 1m`, a CDN), keyed by URL as caches are, one reader's `/api/notes`,
    reader id included, was served to the next reader, who could then use that id as their cookie."""

    def __init__(self, app, settings: Settings):
        self.app = app
        self.headers = [
            (b"content-security-policy", frame_ancestors(settings).encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"same-origin"),
        ]

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in self.headers if k not in present]
                if b"cache-control" not in present and _personal(scope["path"], message.get("headers", [])):
                    extra.append(PRIVATE)
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def install_api(app: FastAPI, settings: Settings) -> None:
    """Routes, error handlers and middleware. Call before Gradio is mounted at '/'."""
    install_error_handlers(app)
    app.include_router(router)
    # Added last = outermost: CORS answers preflights before anything else runs.
    app.add_middleware(AnonymousCookie)  # a page load without one gets its own anonymous reader id
    app.add_middleware(SecurityHeaders, settings=settings)
    app.add_middleware(
        CORSMiddleware,
        allow_origins=allowed_origins(settings),
        allow_methods=["GET", "POST", "DELETE"],
        allow_headers=["Content-Type", "Authorization"],  # Authorization: the portal's reader token
        max_age=600,
    )
