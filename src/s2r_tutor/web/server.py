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

log = logging.getLogger("s2r_tutor.web")

WARM_UP_QUESTION = "什么是 Sim2Real？"


def build_app(settings: Settings | None = None, tutor: Tutor | None = None) -> FastAPI:
    """The whole app. The Tutor is loaded here, once, when none is given: the chat's card tab and
    the study tabs need it while the UI is built, which happens before the server starts."""
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    import gradio as gr

    from ..store import open_store
    from .admin import install_admin
    from .api import install_api
    from .apidocs import install_docs
    from .chat import CSS, build_chat, theme
    from .embed import install_embed
    from .feedback import FeedbackLog
    from .guard import GradioFileGuard, gradio_file_settings
    from .queueguard import QueueJoinGuard
    from .runtime import Runtime

    settings = settings or Settings()
    tutor = tutor or Tutor.load(settings, progress=False)
    runtime = Runtime(settings, tutor)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        # The first ask loads the answerer and its templates; pay that before the first user does.
        try:
            await runtime.ask(WARM_UP_QUESTION, source="warmup")
        except Exception as exc:  # a broken answerer must not stop /api/search and /healthz
            log.warning("warm-up question failed: %s", exc)
        yield

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
    # First added = innermost: the API's body limit, security headers and CORS wrap its refusals too.
    app.add_middleware(GradioFileGuard, blocks=blocks)
    app.add_middleware(QueueJoinGuard, blocks=blocks)
    install_api(app, settings)
    install_docs(app)
    install_embed(app, settings)
    install_admin(app, settings, embedder=tutor.embedder)

    # Chat handlers await the same bounded pool as the API, so the queue lets through as many events
    # as that pool has workers; the rest wait in the queue (up to queue_max_size) and see their position.
    blocks.queue(default_concurrency_limit=settings.web_concurrency, max_size=settings.queue_max_size)
    gr.mount_gradio_app(
        app,
        blocks,
        path="/",
        theme=theme(),
        css=CSS,
        footer_links=["settings"],
        run_history=False,
        ssr_mode=False,
        mcp_server=False,
        show_error=True,
        **gradio_file_settings(settings),
    )
    return app


def serve(host: str | None = None, port: int | None = None) -> None:
    """Build the app and run it with uvicorn until interrupted (None: use Settings)."""
    import uvicorn

    # Parallelism comes from the `web_concurrency` worker threads, one query each. An OpenMP team
    # inside every embedding call as well oversubscribes the cores, and on a busy machine each of its
    # barriers waits for a descheduled thread (measured: one worker 5-15x slower; bench/API_RESULTS.md).
    # Must be set before the embedder's library starts its thread pool; an explicit value wins.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("s2r_tutor").setLevel(logging.INFO)
    settings = Settings()
    host = settings.host if host is None else host
    port = settings.port if port is None else port
    app = build_app(settings)
    log.info("chat on http://%s:%d/  widget on /embed  API docs on /docs", host, port)
    uvicorn.run(app, host=host, port=port, log_level="info", access_log=False)


@contextlib.contextmanager
def running(app: FastAPI, host: str = "127.0.0.1", port: int = 0, timeout_s: float = 120.0):
    """Run `app` with uvicorn in a background thread; yields its base URL. Port 0 picks a free one.
    For tests and notebooks; stops the server on exit."""
    import threading
    import time

    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False))
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
