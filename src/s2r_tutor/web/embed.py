"""`/embed`: a compact chat widget for an <iframe> in the internal portal.

Plain HTML + JS + CSS from `static/` (no framework, no CDN) calling `POST /api/ask` on the same
origin. The page carries a strict Content-Security-Policy: scripts and styles only from this
server, no inline script, and `frame-ancestors` limited to the portal origins in Settings.
Each source in the widget links to `/card/{card_id}` (web/cardpage.py), the card with the quote marked.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from starlette.staticfiles import StaticFiles

from ..i18n import widget_labels_json
from ..settings import Settings
from .api import frame_ancestors
from .cardpage import install_card_page

STATIC = Path(__file__).parent / "static"


def embed_csp(settings: Settings) -> str:
    return "; ".join([
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        frame_ancestors(settings),
    ])


def install_embed(app: FastAPI, settings: Settings) -> None:
    """The /embed page and its assets. Call before Gradio is mounted at '/'."""
    page = (STATIC / "embed.html").read_text(encoding="utf-8")
    # the chat's own labels (s2r_tutor/i18n.py) for the widget's script: a JSON data block, which the
    # CSP's script-src does not apply to since it is never executed (issue 17)
    labels = f'<script type="application/json" id="s2r-labels">{widget_labels_json()}</script>\n'
    page = page.replace('<script src="embed/static/embed.js">', labels + '  <script src="embed/static/embed.js">', 1)
    headers = {"Content-Security-Policy": embed_csp(settings), "Cache-Control": "no-cache"}

    @app.get("/embed", include_in_schema=False)
    async def embed() -> HTMLResponse:
        return HTMLResponse(page, headers=headers)

    # The widget's sources link to a read-only card page (#15); same CSP (it needs no script at all).
    install_card_page(app, settings, embed_csp(settings))
    app.mount("/embed/static", StaticFiles(directory=STATIC), name="embed-static")
