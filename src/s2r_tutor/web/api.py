"""The HTTP API: routes, error mapping, request-size limit, CORS and framing headers.

Routes are thin: parse the request once (pydantic), hand the work to `Runtime`, return the models.
Every bad request ends as a 4xx with `{"detail": "<one clear sentence>"}`, never a traceback.
"""

from __future__ import annotations

import logging
import re

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..errors import CorpusError, EmbedderError, IndexCorruptError, LLMError, QueryError, TemplateError, TutorError
from ..models import Answer, Hit, Turn
from ..settings import Settings
from .runtime import Runtime

log = logging.getLogger("s2r_tutor.web")

API_PREFIX = "/api/"
_ORIGIN = re.compile(r"^https?://[A-Za-z0-9.\-]+(:\d{1,5})?$")


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(description="the question, Chinese or English (longer than 500 characters is truncated)")
    history: list[Turn] = Field(default_factory=list, max_length=50, description="earlier turns, oldest first")


class SearchResponse(BaseModel):
    hits: list[Hit]


class Health(BaseModel):
    status: str
    version: str
    chunks: int = Field(description="indexed chunks")
    cards: int = Field(description="indexed concept cards")


class ErrorBody(BaseModel):
    detail: str


ERRORS = {code: {"model": ErrorBody} for code in (400, 413, 422, 503)}


# --------------------------------------------------------------------------- routes

router = APIRouter()


def _runtime(request: Request) -> Runtime:
    return request.app.state.runtime


@router.post("/api/ask", response_model=Answer, responses=ERRORS, summary="Ask a question; a cited answer")
async def ask(body: AskRequest, request: Request) -> Answer:
    # The widget (/embed) calls this route too; its page is the referrer. Only the path is looked at.
    source = "widget" if "/embed" in request.headers.get("referer", "") else "api"
    return await _runtime(request).ask(body.question, body.history, source=source)


@router.get("/api/search", response_model=SearchResponse, responses=ERRORS, summary="Best card sections for a query")
async def search(
    request: Request,
    q: str = Query(description="the query text"),
    k: int = Query(5, ge=1, le=50, description="how many hits"),
) -> SearchResponse:
    return SearchResponse(hits=await _runtime(request).search(q, k))


@router.get("/healthz", response_model=Health, summary="Liveness and index size")
async def healthz(request: Request) -> Health:
    chunks = _runtime(request).tutor.chunks
    return Health(status="ok", version=__version__, chunks=len(chunks), cards=len({c.doc_id for c in chunks}))


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


# What failed, in words a portal user may see. The error's own text stays in the server log: it
# names server paths (the index folder, a card's file) that a client has no business learning.
_FAILED_PART = {CorpusError: "the card corpus", IndexCorruptError: "the search index",
                EmbedderError: "the embedding model", TemplateError: "the answer templates", LLMError: "the LLM"}


async def _on_tutor_error(request: Request, exc: TutorError) -> JSONResponse:
    # Not the caller's fault (index, embedder, templates): say so without a traceback.
    log.error("tutor error on %s: %s", request.url.path, exc)
    part = next((name for kind, name in _FAILED_PART.items() if isinstance(exc, kind)), "the tutor")
    return _error(503, f"the tutor cannot answer right now: a problem with {part} (details are in the server log)")


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


class BodyLimit:
    """413 for an /api/ request body over `max_bytes`: by Content-Length up front, or counted while
    a chunked body streams in. Gradio's own routes are left alone (a long chat history is large)."""

    def __init__(self, app, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not scope["path"].startswith(API_PREFIX):
            return await self.app(scope, receive, send)
        too_large = f"request body is larger than {self.max_bytes} bytes"
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None:
            if not length.isdigit():
                return await _error(400, "invalid Content-Length header")(scope, receive, send)
            if int(length) > self.max_bytes:
                return await _error(413, too_large)(scope, receive, send)
        seen = 0

        async def counting_receive():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise StarletteHTTPException(413, too_large)
            return message

        await self.app(scope, counting_receive, send)


def allowed_origins(settings: Settings) -> list[str]:
    """The portal origins from Settings, checked, since they go verbatim into response headers."""
    origins = [o.rstrip("/") for o in settings.allowed_origins]
    bad = [o for o in origins if o != "*" and not _ORIGIN.match(o)]
    if bad:
        raise ValueError(f"allowed_origins must look like 'https://host[:port]' or '*': {bad}")
    return origins


def frame_ancestors(settings: Settings) -> str:
    return "frame-ancestors " + " ".join(["'self'", *allowed_origins(settings)])


class SecurityHeaders:
    """Adds `frame-ancestors` (only the portal origins may frame any page) and a few safe defaults to
    every response that does not set its own Content-Security-Policy (the /embed page does)."""

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
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def install_api(app: FastAPI, settings: Settings) -> None:
    """Routes, error handlers and middleware. Call before Gradio is mounted at '/'."""
    install_error_handlers(app)
    app.include_router(router)
    # Added last = outermost: CORS answers preflights before anything else runs.
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(SecurityHeaders, settings=settings)
    app.add_middleware(
        CORSMiddleware,
        allow_origins=allowed_origins(settings),
        allow_methods=["GET", "POST"],
        allow_headers=["Content-Type"],
        max_age=600,
    )
