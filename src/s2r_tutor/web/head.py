"""HEAD answered like GET on every route.

FastAPI registers a GET route for GET only, and the chat mounted at '/' then takes the HEAD and
answers 404, so a link checker or a proxy's HEAD health check saw `/healthz`, `/card/{id}`, `/embed`
and `/docs` as missing. The app below sees a GET; the server (uvicorn, which still holds the request
as HEAD) sends the status and headers and drops the body. The cost is the GET's, never more.
"""

from __future__ import annotations


class HeadAsGet:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] == "HEAD":
            scope = {**scope, "method": "GET"}  # a copy: the server's own scope still says HEAD
        await self.app(scope, receive, send)
