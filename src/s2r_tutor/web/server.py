"""One process serves everything: the HTTP API, /embed, /docs, and the Gradio chat mounted at '/'.

    build_app(settings, tutor=None) -> FastAPI     # for tests and ASGI servers
    serve(host=None, port=None)                    # `python app.py`, `s2r-tutor serve`
"""

from __future__ import annotations

import contextlib
import logging
import os

from fastapi import FastAPI

from .. import __version__
from ..settings import Settings
from ..tutor import Tutor
from .clientaddr import log_startup_notes
from .limits import install_log_rate_limit, protocol_class, raise_fd_limit

log = logging.getLogger("s2r_tutor.web")

WARM_UP_QUESTION = "什么是 Sim2Real？"


def build_app(settings: Settings | None = None, tutor: Tutor | None = None) -> FastAPI:
    """The whole app. The Tutor is loaded here, once, when none is given: the chat's card tab and
    the study tabs need it while the UI is built, which happens before the server starts."""
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    # Gradio rebuilds a pandas summary of up to 10,000 past events after every event, on the worker
    # threads the answers need: under load that made chat events cost more than API calls (#15).
    # Keep the record short and the summary rare (it only feeds Gradio's /monitoring page).
    os.environ.setdefault("GRADIO_ANALYTICS_MAX_EVENTS", "200")
    os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", "100")
    import anyio
    import gradio as gr

    from ..store import open_store
    from .admin import install_admin
    from .api import frame_ancestors, install_api
    from .apidocs import install_docs
    from .chat import CSS, build_chat, chat_js, theme
    from .clientaddr import ClientAddressCheck
    from .cookies import CookieGuard
    from .embed import install_embed
    from .feedback import FeedbackLog
    from .guard import GradioFileGuard, gradio_file_settings
    from .head import HeadAsGet
    from .hosts import HostGuard, default_hosts
    from .limits import BodyLimit
    from .queueguard import GradioEventGuard, quiet_input_errors
    from .runtime import Runtime
    from .streams import StreamGuard, forgive_double_delete, max_streams, per_client_streams

    settings = settings or Settings()
    owns_tutor = tutor is None  # a caller's tutor outlives this app: the caller closes it
    tutor = tutor or Tutor.load(settings, progress=False)
    runtime = Runtime(settings, tutor)

    # The answerer (templates, card lookups) loads now: a TemplateError or CorpusError stops start-up
    # with one clear line (the CLI prints it) instead of a server that answers 503 to every ask.
    tutor.prepare()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        # The first ask warms the embedder and the answer path; pay that before the first user does.
        # A failure here is a question's failure (an LLM that is down), not a broken server.
        try:
            await runtime.ask(WARM_UP_QUESTION, source="warmup")
        except Exception as exc:  # noqa: BLE001
            log.warning("warm-up question failed: %s", exc)
        # Migrations (and the first-start import of the old var/ files) run now, under their lock,
        # rather than inside a reader's first request. A broken store is logged, not fatal: the
        # answers do not need it, and the parts that do say so.
        try:
            await anyio.to_thread.run_sync(open_store(settings).migrate)
        except Exception as exc:  # noqa: BLE001
            log.warning("the store is not usable: %s", exc)
        yield
        if owns_tutor:
            tutor.close()

    app = FastAPI(
        title="s2r-tutor",
        version=__version__,
        description="Cited answers about the Sim2Real concept card. Errors are `{\"detail\": \"...\"}` with a 4xx status.",
        docs_url=None,  # Swagger UI and ReDoc load from a CDN; /docs is served offline instead
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.runtime = runtime
    blocks = build_chat(runtime, FeedbackLog(open_store(settings)))
    app.state.blocks = blocks
    # First added = innermost: the API's body limit, security headers and CORS wrap its refusals too.
    app.add_middleware(GradioFileGuard, blocks=blocks)
    app.add_middleware(GradioEventGuard, blocks=blocks, client_share=settings.queue_client_share,
                       shared_clients=frozenset(settings.stream_shared_clients),
                       max_containers=settings.max_event_containers)
    # Outside the event checks, so a stream refused there (a malformed session) takes no stream slot.
    streams = max_streams(settings.max_connections, settings.stream_reserve_share)
    app.add_middleware(StreamGuard, blocks=blocks, heartbeat_wait_s=settings.heartbeat_wait_s, max_streams=streams,
                       per_client=per_client_streams(streams, settings.stream_client_share),
                       shared_clients=frozenset(settings.stream_shared_clients),
                       client_share=settings.stream_client_share,
                       answer_reserve=int(streams * settings.stream_answer_share))
    install_api(app, settings)
    install_docs(app, frame_ancestors(settings))
    install_embed(app, settings)
    install_admin(app, settings, embedder=tutor.embedder)
    app.add_middleware(HeadAsGet)
    # Outermost of all: no route, Gradio's included, reads a body over its limit or a foreign Host.
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes, max_event_bytes=settings.max_event_body_bytes,
                       max_head_bytes=settings.max_head_bytes)
    hosts = None if settings.public_url else {h.lower() for h in settings.allowed_hosts} or default_hosts(settings.host)
    app.add_middleware(HostGuard, allowed=hosts)
    # Outermost of all (inside only Starlette's error catcher, which reads no cookie): nothing
    # parses a Cookie header before its backslash pairs are gone (R170).
    app.add_middleware(CookieGuard, max_bytes=settings.max_cookie_bytes)
    # Reads only: says (bounded) when requests show a proxy that is not trusted or passes no address (R191).
    app.add_middleware(ClientAddressCheck, behind_proxy=bool(settings.public_url))

    # Chat handlers await the same bounded pool as the API, so the queue lets through as many events
    # as that pool has workers; the rest wait in the queue (up to queue_max_size) and see their position.
    blocks.queue(default_concurrency_limit=settings.web_concurrency, max_size=settings.queue_max_size)
    forgive_double_delete(blocks._queue)  # a stream's session deleted twice was a traceback (R190)
    quiet_input_errors(blocks)  # an input value Gradio refuses is the client's: no traceback (R194)
    # Bounded memory per client: Gradio keeps 10,000 sessions' state by default, for ever.
    blocks.state_session_capacity = settings.chat_sessions_max
    for block in blocks.blocks.values():  # and no session's state lives for ever
        if isinstance(block, gr.State) and block.time_to_live > settings.chat_state_ttl_s:
            block.time_to_live = settings.chat_state_ttl_s
    blocks.delete_cache = (min(600, settings.chat_cache_ttl_s), settings.chat_cache_ttl_s)
    gr.mount_gradio_app(
        app,
        blocks,
        path="/",
        theme=theme(),
        css=CSS,
        js=chat_js(),
        footer_links=["settings"],
        run_history=False,
        ssr_mode=False,
        mcp_server=False,
        enable_monitoring=False,  # /monitoring/summary was public
        root_path=settings.public_url,  # when set, Gradio never builds URLs from request headers
        show_error=False,  # an unexpected exception's text (server paths) is not for users; gr.Error still shows
        **gradio_file_settings(settings),
    )
    # Our lifespan (mount_gradio_app's) starts Gradio's queue; without this flag the public
    # /startup-events route started it a second time for whoever asked first (R174; also closed).
    for route in app.routes:
        if hasattr(getattr(route, "app", None), "startup_events_triggered"):
            route.app.startup_events_triggered = True
    return app


def serve(host: str | None = None, port: int | None = None, settings: Settings | None = None) -> None:
    """Build the app and run it with uvicorn until interrupted (None: use Settings). `settings` carries
    the CLI's global flags (`--corpus`, `--index-dir`), so a bad corpus fails here instead of
    silently serving the default card."""
    import uvicorn

    # Parallelism comes from the `web_concurrency` worker threads, one query each. An OpenMP team
    # inside every embedding call as well oversubscribes the cores, and on a busy machine each of its
    # barriers waits for a descheduled thread (measured: one worker 5-15x slower; bench/API_RESULTS.md).
    # Must be set before the embedder's library starts its thread pool; an explicit value wins.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("s2r_tutor").setLevel(logging.INFO)
    settings = settings or Settings()
    host = settings.host if host is None else host
    port = settings.port if port is None else port
    app = build_app(settings)
    raise_fd_limit()
    config = uvicorn.Config(app, host=host, port=port, log_level="info", access_log=False, **uvicorn_options(settings))
    install_log_rate_limit()  # after uvicorn has set up its handlers: the filter goes on every handler
    log_startup_notes(settings, host, config.forwarded_allow_ips, config.proxy_headers)  # R191
    log.info("chat on http://%s:%d/  widget on /embed  API docs on /docs", host, port)
    server = uvicorn.Server(config)
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    if not server.started:  # as uvicorn.run does: a start-up failure is exit status 3
        raise SystemExit(3)


def uvicorn_options(settings: Settings) -> dict:
    """Connection limits uvicorn lacks or leaves open (docs/reliability.md R141)."""
    return {
        "http": protocol_class(settings.max_connections, settings.header_timeout_s, settings.body_timeout_s),
        "timeout_keep_alive": settings.keep_alive_s,
        "h11_max_incomplete_event_size": 16 * 1024,  # request line + headers
    }


@contextlib.contextmanager
def running(app: FastAPI, host: str = "127.0.0.1", port: int = 0, timeout_s: float = 120.0):
    """Run `app` with uvicorn in a background thread, with the same connection limits as `serve`;
    yields its base URL. Port 0 picks a free one. For tests and notebooks; stops the server on exit."""
    import threading
    import time

    import uvicorn

    options = uvicorn_options(app.state.runtime.settings) if hasattr(app.state, "runtime") else {}
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                                           **options))
    thread = threading.Thread(target=server.run, name="s2r-web", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout_s
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError("the web server did not start")
        time.sleep(0.05)
    bound = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{bound}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
