"""Gradio's `queue/join`, checked before Gradio sees it (R100 in docs/reliability.md).

Gradio trusts two fields of a join: `fn_index` is looked up unguarded (an unknown one is a 500 and
a traceback per request) and `data` is only found too short once the event runs (a traceback per
request in the server log). Anonymous clients could flood the log or the 5xx count with either, so
a join that names no event of this app, or gives fewer values than the event has inputs, is
refused here with a 422 and one line. Everything else, malformed JSON included (Gradio answers
that with its own 422), passes through with its body untouched.
"""

from __future__ import annotations

import json
import re

from .guard import deny, gradio_routes, request_path

JOIN_ROUTES = gradio_routes(("/queue/join",))


class QueueJoinGuard:
    """ASGI middleware: reads a join's body, checks it against `blocks.fns`, then replays it."""

    def __init__(self, app, blocks):
        self.app = app
        self.blocks = blocks

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST" or request_path(scope).rstrip("/") not in JOIN_ROUTES:
            return await self.app(scope, receive, send)
        chunks, more = [], True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        problem = self.problem(body)
        if problem is not None:
            return await deny(422, problem)(scope, receive, send)
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: wait for the disconnect, as the server would

        return await self.app(scope, replay, send)

    def problem(self, body: bytes) -> str | None:
        """Why this join cannot run, or None to let Gradio handle it."""
        try:
            join = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return None
        if not isinstance(join, dict) or "fn_index" not in join:
            return None
        fn_index, data = _as_int(join["fn_index"]), join.get("data")
        if fn_index is _NOT_INT:
            return None  # Gradio's own 422 names the type error
        fn = self.blocks.fns.get(fn_index)
        if fn is None:
            return f"no event with fn_index {json.dumps(join['fn_index'])[:40]} in this app"
        if isinstance(data, list) and len(data) < len(fn.inputs):
            return f"event {fn_index} takes {len(fn.inputs)} input values, got {len(data)}"
        return None


_NOT_INT = object()


def _as_int(value):
    """The int Gradio's request model would read (pydantic's lax mode: 12, 12.0, "12", true), None
    for null (Gradio then fails on a lookup of None), _NOT_INT for what it rejects itself."""
    if value is None or isinstance(value, int):  # bool included, as pydantic reads it
        return None if value is None else int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+\s*", value):
        return int(value)
    return _NOT_INT
