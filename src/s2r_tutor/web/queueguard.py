"""Gradio's event routes, narrowed to what the browser chat needs (R100, R140–R142 in
docs/reliability.md).

The chat page talks to Gradio through three routes: `queue/join` (run an event), `queue/data` (its
results, as server-sent events) and `heartbeat/<session>`. Everything else Gradio mounts for its own
Python and JS clients (`run/<name>`, `call/<name>`, `call/v2/<name>`, `api/<name>`, `stream/`,
`proxy=`, monitoring, profiling, run history, vibe editing, ...) is an unauthenticated second API
with weaker checks; this app's programmatic API is `/api/`. So those routes are closed (404), and
what stays open is checked before Gradio sees it:

- a join must name an event of this app (`fn_index`; Gradio looks it up unguarded: 500 and a
  traceback) with exactly as many `data` values as the event has inputs (fewer: a traceback when it
  runs), and no value may be, or contain, a file reference. This app has no file inputs, but Gradio
  copies any `{"path": ...}` it finds in an event's inputs into its cache and then serves the copy:
  `/etc/passwd`, the study database and `/proc/self/environ` were readable that way. A radio, dropdown
  or checkbox-group value must be one of the choices that session's page shows (R194): Gradio refuses
  one that is not, but prints a traceback to stderr for each (`quiet_input_errors` stops that for a
  value whose choices change after its join).
- one client address may have at most `queue_client_share` of Gradio's queue (`queue_max_size`) waiting,
  and of the places the other addresses leave it (R193, the same rule as the event streams' R189): past
  it a 503 for that address only. Before, one address's 64 waiting joins filled the queue and every
  other reader's chat event was "Queue is full" for as long as it kept them coming.
- a join (and a `cancel` or `reset`) may open at most `max_event_containers` JSON arrays and objects,
  counted on the bytes before anything parses them (R197): 240 kB of empty lists cost 385 ms of the event
  loop in the parses, against 17 ms for a join. A radio or one-choice dropdown takes one value, never a
  list, and a multi-choice one at most one item per choice (R196).
- `queue/data` must name a session the queue knows (an unknown one: 242 lines of traceback per
  request); `heartbeat/<session>`, which the page opens before its first event, a well-formed one.
"""

from __future__ import annotations

import json
import re

from .clientaddr import client_key, client_of
from .guard import deny, gradio_routes, request_path

JOIN_ROUTES = gradio_routes(("/queue/join",))
# Gradio's other JSON routes the page may call (stopping an event); their bodies get the same count (R197)
CANCEL_ROUTES = gradio_routes(("/cancel", "/reset"))
SESSION_ROUTES = gradio_routes(("/queue/data",))
HEARTBEAT_PREFIXES = gradio_routes(("/heartbeat/",))
# Gradio's programmatic and developer routes; the page never calls them.
CLOSED_PREFIXES = ("/gradio_api/api/", *gradio_routes((
    "/run/", "/call/", "/stream/", "/proxy=", "/monitoring", "/profiling", "/run-history",
    "/runs", "/vibe-", "/undo-vibe-edit", "/dev/", "/custom_component/", "/mcp",
    # R172, R174, R175: deep links (the app makes none; each call wrote a state file, never deleted, that
    # anyone with the link loaded into their chat), the queue's start-up (a second set of queue
    # loops for anyone who asks first), and Gradio's API description and OpenAPI schema (they
    # document the closed routes; the page has its API description inline and never fetches it).
    "/deep_link", "/startup-events", "/info",
)), "/gradio_api/openapi.json")  # not /openapi.json: that one is this app's API schema, for /docs
DROPPED_QUERY = ("deep_link",)  # page and /config load a saved deep link from disk: none is honoured
SESSION_HASH = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_DEPTH = 12  # chat history values are a few levels deep; deeper is not a value of this app


class GradioEventGuard:
    """ASGI middleware: closes Gradio's unused event routes and checks the ones the page uses."""

    def __init__(self, app, blocks, client_share: float = 1.0, shared_clients: frozenset[str] | set[str] = frozenset(),
                 max_containers: int | None = None):
        self.app = app
        self.blocks = blocks
        self.max_containers = max_containers  # JSON arrays and objects in one join (R197); None: no limit
        self.client_share = client_share
        self.shared_clients = frozenset(shared_clients)  # a proxy that passes no address: never capped (R185)
        self._kinds: dict[int, list[type]] = {}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = request_path(scope).rstrip("/") or "/"
        scope = _without_query(scope, DROPPED_QUERY)
        if self.closed(path):
            return await deny(404, "not found")(scope, receive, send)
        if path in SESSION_ROUTES and not self.known_session(_query_param(scope, "session_hash")):
            return await deny(404, "no such chat session (reload the page)")(scope, receive, send)
        if path.startswith(HEARTBEAT_PREFIXES) and not SESSION_HASH.match(path.rsplit("/", 1)[-1]):
            return await deny(404, "no such chat session (reload the page)")(scope, receive, send)
        if scope["method"] != "POST" or (path not in JOIN_ROUTES and path not in CANCEL_ROUTES):
            return await self.app(scope, receive, send)
        chunks, more = [], True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        problem = self.too_many_containers(body) if path in CANCEL_ROUTES else self.problem(body)
        if problem is not None:
            return await deny(422, problem)(scope, receive, send)
        if path in JOIN_ROUTES and self.over_share(client_of(scope)):
            return await deny(503, "too many chat events waiting from your address; wait for the answers you asked "
                              "for")(scope, receive, send)
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: wait for the disconnect, as the server would

        return await self.app(scope, replay, send)

    def over_share(self, address: str) -> bool:
        """True when `address` already has its share of the queue waiting: `client_share` of its own waiting
        events plus the free places, within that share of the whole queue (at least one place)."""
        queue = getattr(self.blocks, "_queue", None)
        size = getattr(queue, "max_size", None)
        if not size or self.client_share >= 1 or not address or address in self.shared_clients:
            return False
        client = client_key(address)
        waiting = [e for q in list(queue.event_queue_per_concurrency_id.values()) for e in list(q.queue)]
        mine = sum(1 for e in waiting if _event_client(e) == client)
        fair = int(self.client_share * (mine + size - len(waiting)))
        return mine >= max(1, min(int(size * self.client_share), fair))

    @staticmethod
    def closed(path: str) -> bool:
        return path.startswith(CLOSED_PREFIXES) or path + "/" in CLOSED_PREFIXES

    def known_session(self, session: str | None) -> bool:
        if not session or not SESSION_HASH.match(session):
            return False
        queue = getattr(self.blocks, "_queue", None)
        pending = getattr(queue, "pending_messages_per_session", {})
        return session in pending

    def problem(self, body: bytes) -> str | None:
        """Why this join cannot run, or None to let Gradio handle it."""
        too_many = self.too_many_containers(body)
        if too_many is not None:
            return too_many
        try:
            join = json.loads(body)
        except (ValueError, UnicodeDecodeError, RecursionError):  # R173: 100,000 '[' was a 500 + traceback
            return "the body is not JSON (or nested too deep)"
        if not isinstance(join, dict):
            return "the body must be a JSON object"
        session = join.get("session_hash")
        if session is not None and not (isinstance(session, str) and SESSION_HASH.match(session)):
            return "session_hash must be 1-64 letters, digits, '_' or '-'"
        fn_index, data = _as_int(join.get("fn_index")), join.get("data")
        if fn_index is _NOT_INT or fn_index is None:
            return "fn_index must be the number of one of this app's events"
        fn = self.blocks.fns.get(fn_index)
        if fn is None:
            return f"no event with fn_index {json.dumps(join['fn_index'])[:40]} in this app"
        if not isinstance(data, list):
            return "data must be a list of the event's input values"
        if len(data) != len(fn.inputs):
            return f"event {fn_index} takes {len(fn.inputs)} input values, got {len(data)}"
        if any(_has_file(value, 0) for value in data):
            return "this app takes no files"
        outside = self.outside_choices(fn, data, session)
        if outside is not None:
            return f"input {outside} of event {fn_index} is not one of its choices (reload the page)"
        for kind in self.event_data_kinds(fn_index):
            try:  # what Gradio will do with it (a missing "index" was a traceback per request)
                kind(None, join.get("event_data"))
            except Exception:  # noqa: BLE001 - any failure here would be Gradio's crash
                return f"event {fn_index} needs the {kind.__name__} the page sends with it"
        return None

    def too_many_containers(self, body: bytes) -> str | None:
        if self.max_containers is not None and _containers(body, self.max_containers) > self.max_containers:
            return f"the body holds more than {self.max_containers} JSON arrays and objects"
        return None

    def outside_choices(self, fn, data: list, session: str | None) -> int | None:
        """The position of the first radio, dropdown or checkbox-group value that Gradio will reject as
        outside its choices (R194), or None. Gradio checks it when the event runs, answers the client
        cleanly and prints the error's traceback to stderr, outside `logging` and its limit; so the guard
        runs the same check first, on the component Gradio will use: the session's own copy when an
        earlier event of that session updated it (the quiz's options are the question on screen;
        the notes' starters follow the language), else the app's."""
        from gradio.components import CheckboxGroup, Dropdown, Radio

        if not fn.preprocess:
            return None  # Gradio passes the values through unchecked
        own = getattr(getattr(self.blocks, "state_holder", None), "session_data", {}).get(session)  # no new session
        for pos, block in enumerate(fn.inputs):
            if not isinstance(block, (Radio, Dropdown, CheckboxGroup)):
                continue
            block = own.blocks_config.blocks.get(block._id, block) if own is not None else block
            value = data[pos]
            if pos in fn.component_prop_inputs and isinstance(value, dict):  # a component's props as input
                value = value.get("value")
            if isinstance(value, list) and not _many_valued(block, value):
                return pos  # R196: Gradio checks each item of a list, so a one-choice dropdown took ["a"]
            try:
                block.preprocess(value)  # pure for these three: the choice check, then the value or its index
            except Exception:  # noqa: BLE001 - Gradio's Error, or a TypeError it would wrap in another
                return pos
        return None

    def event_data_kinds(self, fn_index: int) -> list[type]:
        """The gr.EventData subclasses (SelectData, LikeData, ...) the event's handler takes, which
        Gradio builds from the join's `event_data` without checking it."""
        if fn_index not in self._kinds:
            from gradio.events import EventData
            from gradio.utils import get_type_hints

            hints = get_type_hints(self.blocks.fns[fn_index].fn) if self.blocks.fns[fn_index].fn else {}
            self._kinds[fn_index] = [t for t in hints.values()
                                     if isinstance(t, type) and issubclass(t, EventData) and t is not EventData]
        return self._kinds[fn_index]


def quiet_input_errors(blocks) -> None:
    """Gradio's refusal of an event's input value (a `gr.Error` from a component's `preprocess`) still
    reaches the client, but no longer prints its traceback to stderr (R194).

    The guard refuses a value outside the session's choices at the join; what it cannot see is the
    choices changing between the join and the run: an event that changes them (the language switch, the
    next question), joined after events of the same session that pass the check and still wait in the
    queue. Such a value is the client's, not a fault of this server, so errors raised while Gradio reads
    the inputs say not to print. Errors from the handlers, and every other exception, print as before;
    only this app's Blocks is changed, not Gradio's class."""
    from gradio.exceptions import Error

    read = blocks.preprocess_data

    async def preprocess_data(*args, **kwargs):
        try:
            return await read(*args, **kwargs)
        except Error as err:
            err.print_exception = False
            raise

    blocks.preprocess_data = preprocess_data


_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')


def _containers(body: bytes, limit: int) -> int:
    """How many JSON arrays and objects `body` opens, counted on the bytes without parsing (R197): parsing
    is what costs. A 240 kB join of 60,000 empty lists took 385 ms of the event loop (json.loads, then
    Gradio's own parse and walk) against 17 ms for a join; a body with few brackets is counted as it is,
    one with more has its strings (which may hold brackets: Markdown, citations) left out first."""
    raw = body.count(b"[") + body.count(b"{")
    if raw <= limit:
        return raw
    stripped = _JSON_STRING.sub(b"", body)
    return stripped.count(b"[") + stripped.count(b"{")


def _many_valued(block, value: list) -> bool:
    """True when `value` may be a list for `block`: a checkbox group or a multiselect dropdown, with at most
    one item per choice (Gradio checks each item against every choice: 17,000 copies of one were accepted).
    A radio or a one-choice dropdown takes one value: Gradio's dropdown accepted a list of its choices and
    handed the handler a list where it expects a string (R196: a traceback per event)."""
    from gradio.components import CheckboxGroup

    multi = isinstance(block, CheckboxGroup) or bool(getattr(block, "multiselect", False))
    if not multi:
        return False
    return len(value) <= len(getattr(block, "choices", None) or ()) or bool(getattr(block, "allow_custom_value", False))


def _event_client(event) -> str:
    """The client a queued Gradio event came from, keyed as the per-address shares key it."""
    request = getattr(event, "request", None)
    client = getattr(request, "client", None)
    return client_key(str(client.host)) if client else ""


def _has_file(value, depth: int) -> bool:
    """True for anything Gradio's preprocessing would treat as a file reference (a dict with a
    `path`, `url` or FileData `meta`), at any depth; too deep counts as one (refuse, don't recurse)."""
    if depth > MAX_DEPTH:
        return True
    if isinstance(value, dict):
        if "path" in value or "url" in value or "meta" in value or "file" in value:
            return True
        return any(_has_file(v, depth + 1) for v in value.values() if isinstance(v, (dict, list)))
    if isinstance(value, list):  # only containers can hold a reference: 100,000 numbers took 20 ms of calls
        return any(_has_file(v, depth + 1) for v in value if isinstance(v, (dict, list)))
    return False


def _without_query(scope, names: tuple[str, ...]):
    """The scope without the query parameters `names`, byte for byte otherwise (the same scope when
    it has none of them)."""
    from urllib.parse import unquote_plus

    query = scope.get("query_string", b"")
    if not any(n.encode() in query for n in names) and b"%" not in query:
        return scope
    pairs = query.split(b"&")
    kept = [p for p in pairs if unquote_plus(p.partition(b"=")[0].decode("latin-1")) not in names]
    return scope if len(kept) == len(pairs) else {**scope, "query_string": b"&".join(kept)}


def _query_param(scope, name: str) -> str | None:
    from urllib.parse import parse_qs

    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get(name)
    return values[0] if values else None


_NOT_INT = object()


def _as_int(value):
    """The int Gradio's request model would read (pydantic's lax mode: 12, 12.0, "12", true), None
    for null, _NOT_INT for anything else."""
    if value is None or isinstance(value, int):  # bool included, as pydantic reads it
        return None if value is None else int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d{1,18}\s*", value):  # R173: 5,000 digits was a
        return int(value)                                                       # ValueError, a 500
    return _NOT_INT
