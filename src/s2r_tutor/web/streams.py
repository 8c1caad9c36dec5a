"""Event streams, bounded so that they can never take every connection (R171 in docs/reliability.md).

The chat page holds two kinds of never-ending responses: `heartbeat/<session>` (open for as long
as the tab is) and `queue/data?session_hash=` (open while the session's events run; Gradio keeps it
open as long as the client does). Each holds a connection. With `max_connections` 40, 40 sockets on
`heartbeat/<any hash>` filled the cap and every later request, `/healthz` included, was refused.
So, before Gradio sees one:

- at most `max_streams` streams are open at once (`max_connections` less a reserve,
  `stream_reserve_share`): past it a 503, so ordinary requests always find a connection;
- a heartbeat is for a session the server knows (one that has joined an event). The page opens it
  just before its first event, so an unknown session's heartbeat waits `heartbeat_wait_s` for that
  event, holding its stream slot, then is a 404;
- one heartbeat per session (a second is a 409; a reload is a new session), and two `queue/data`
  streams per session (one, plus the moment a finished one takes to close; two closing together made
  Gradio delete the session twice, a traceback each, until `forgive_double_delete`, R190);
- one client address holds at most `stream_client_share` of the stream slots (R185), and of the slots
  the other addresses leave it (R189): an address holding h streams may open another only while h + 1 is
  within that share of h + the free slots. Past it a 503 for that address only, so a client that joins
  sessions just to hold their streams open (or keeps heartbeats on unknown hashes) leaves the rest to
  everyone else: a first address takes at most half the pool, a second half of what is left, and so on,
  so k addresses together leave about 1/2^k of it free (a fixed share let two addresses take it all).
  An address holding fewer than one tab's streams (`TAB_STREAMS`: its heartbeat and two `queue/data`)
  may always take a free slot: a reader's open tab can run its next event however full the pool is.
  The address is the one the rest of the app uses (`scope["client"]`: uvicorn's proxy-headers step
  has already put a trusted proxy's `X-Forwarded-For` there). Addresses in `stream_shared_clients` (by default loopback: a proxy on
  this host that does not pass the client's address, or the operator) stand for many clients and
  only count against the total: a per-address cap on a proxy's address would give every reader
  behind it one client's share.

- heartbeats never take the last `answer_reserve` slots (`stream_answer_share`, R195): those are for
  `queue/data` streams, which carry answers. A heartbeat is held for as long as a tab is open and costs
  its holder nothing, so clients from enough addresses (5 at 30 slots, 9 at the default 750, R189) could
  hold every slot with heartbeats alone and no reader got an answer. An address's share of heartbeats
  (R189's rule) is of the slots heartbeats may take. A page whose heartbeat is refused
  still runs its events (Gradio's client opens the heartbeat once and reads nothing from it); only the
  clean-up when that tab closes waits for the session's state to expire.
- a `queue/data` stream lives only while its session has an event waiting or running, or an answer not yet
  delivered (R195): one whose session has had none for `heartbeat_wait_s` is ended at Gradio's next check
  (within ~20 s), with Gradio's `close_stream` as its last message, as Gradio ends the page's own stream
  after the last answer: the page's client opens a new stream only once it has seen that message. A client
  that opened a second one beside it, or one for an idle session, held a slot for ever. It is not refused at
  open: a join may land just after it opens. So answer streams are bounded by the events in flight, which
  the queue bounds (R193).

No lifetime is put on a heartbeat: Gradio reads the end of a heartbeat as the tab closing and drops the
session's state, so cutting a long-open tab's heartbeat would lose its conversation.
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter

import anyio

from .clientaddr import client_key, client_of
from .guard import deny, request_path
from .queueguard import HEARTBEAT_PREFIXES, SESSION_HASH, SESSION_ROUTES, _query_param

PER_SESSION = {"heartbeat": 1, "data": 2}
TAB_STREAMS = sum(PER_SESSION.values())  # what one open chat tab can hold at once
POLL_S = 0.1
# Gradio's CloseStreamMessage as its queue/data route writes it: the page's client closes its stream on it
CLOSE_STREAM = b'data: {"msg":"close_stream","event_id":null}\n\n'


def max_streams(max_connections: int, reserve_share: float) -> int:
    """Streams allowed at once: the cap less the reserve, at least one, always below the cap."""
    return max(1, min(max_connections - 1, int(max_connections * (1 - reserve_share))))


class StreamGuard:
    """ASGI middleware: counts the open event streams and refuses the ones over the limits above."""

    def __init__(self, app, blocks, max_streams: int, heartbeat_wait_s: float,
                 per_client: int | None = None, shared_clients: frozenset[str] | set[str] = frozenset(),
                 client_share: float = 1.0, answer_reserve: int = 0):
        self.app = app
        self.blocks = blocks
        self.max_streams = max_streams
        self.heartbeat_wait_s = heartbeat_wait_s
        self.per_client_max = max_streams if per_client is None else max(1, min(per_client, max_streams))
        self.shared_clients = frozenset(shared_clients)
        self.client_share = client_share
        self.max_heartbeats = max(1, max_streams - max(0, answer_reserve))  # the rest only for answers (R195)
        self.open = 0
        self.open_kind: Counter[str] = Counter()
        self.per_session: Counter[tuple[str, str]] = Counter()
        self.per_client: Counter[str] = Counter()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        kind, session = stream_of(scope)
        if kind is None or not session or not SESSION_HASH.match(session):
            return await self.app(scope, receive, send)  # not a stream (or a malformed one: Gradio's guard says so)
        key = (kind, session)
        if self.per_session[key] >= PER_SESSION[kind]:
            return await deny(409, f"this chat session already has an open {kind} stream")(scope, receive, send)
        address = client_of(scope)
        capped = bool(address) and address not in self.shared_clients  # no address: nothing to share by
        client = client_key(address)
        if capped and self.per_client[client] >= self.client_limit(self.per_client[client], kind):
            return await deny(503, "too many open chat streams from your address; close a tab or try again "
                              "shortly")(scope, receive, send)
        if self.open >= self.max_streams or (kind == "heartbeat" and self.open_kind[kind] >= self.max_heartbeats):
            return await deny(503, "too many open chat streams; try again shortly")(scope, receive, send)
        self.open += 1
        self.open_kind[kind] += 1
        self.per_session[key] += 1
        if capped:
            self.per_client[client] += 1
        try:
            if kind == "heartbeat" and not await self.joined(session):
                return await deny(404, "no such chat session (reload the page)")(scope, receive, send)
            if kind == "data":
                receive, send = self.ended_when_idle(session, receive, send)
            return await self.app(scope, receive, send)
        finally:
            self.open -= 1
            _release(self.open_kind, kind)
            _release(self.per_session, key)
            if capped:
                _release(self.per_client, client)

    def client_limit(self, held: int, kind: str = "data") -> int:
        """Streams an address holding `held` may hold now: its share of what the others leave it (its own
        plus the slots free for this kind: a heartbeat counts only the slots heartbeats may take, R195),
        within the fixed share; one tab's worth is always allowed."""
        if kind == "heartbeat":
            free = self.max_heartbeats - self.open_kind["heartbeat"]
        else:
            free = self.max_streams - self.open
        fair = int(self.client_share * (held + free))
        return max(min(TAB_STREAMS, self.per_client_max), min(self.per_client_max, fair))

    def idle(self, session: str) -> bool:
        """True when `session` has nothing for a stream to deliver: no event of it waiting or running, and no
        message (an answer) queued for it. Gradio's own record of the session's events is not enough: an
        event whose client left while it ran keeps its id there for good, its answer dropped."""
        queue = getattr(self.blocks, "_queue", None)
        live = getattr(queue, "event_ids_to_events", {})
        if any(event_id in live for event_id in list(getattr(queue, "pending_event_ids_session", {}).get(session, ()))):
            return False
        messages = getattr(queue, "pending_messages_per_session", {}).get(session)
        return messages is None or messages.empty()

    def ended_when_idle(self, session: str, receive, send):
        """`receive` and `send` for a session's `queue/data` stream that end it once the session has had
        nothing to answer for `heartbeat_wait_s`. A poll for a disconnect (Gradio asks before each wait for a
        message: Starlette's `is_disconnected`, a receive in an already-cancelled scope) is answered
        "disconnected" then, so Gradio ends the stream as for a client that left, without deleting the
        session; a waiting receive is the client's own. Not at once: a join may land just after the stream
        opens, so only a stream idle across two polls that far apart is ended.

        The stream's last message is then Gradio's own `close_stream`. Gradio's page marks its stream closed
        only on that message; a stream that just ended left the page believing it open, so it never opened
        another and every later answer of that tab was lost (a CI run: the first question after page load
        never answered). With `close_stream` the page opens a new stream at its next event."""
        idle_since: float | None = None
        ended = False

        async def receive_or_idle():
            nonlocal idle_since, ended
            if anyio.current_effective_deadline() == -math.inf:
                now = asyncio.get_running_loop().time()
                if not self.idle(session):
                    idle_since = None
                elif idle_since is None:
                    idle_since = now
                elif now - idle_since >= self.heartbeat_wait_s:
                    ended = True
                    return {"type": "http.disconnect"}
            return await receive()

        async def send_closing(message):
            if ended and message["type"] == "http.response.body" and not message.get("more_body", False):
                await send({"type": "http.response.body", "body": CLOSE_STREAM, "more_body": True})
            await send(message)

        return receive_or_idle, send_closing

    def known(self, session: str) -> bool:
        queue = getattr(self.blocks, "_queue", None)
        return session in getattr(queue, "pending_messages_per_session", {})

    async def joined(self, session: str) -> bool:
        """True once `session` has joined an event, waiting at most `heartbeat_wait_s`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.heartbeat_wait_s
        while not self.known(session):
            if loop.time() >= deadline:
                return False
            await asyncio.sleep(POLL_S)
        return True


def forgive_double_delete(queue) -> None:
    """Make the queue's per-session message store forget a session quietly when it already has (R190).

    Gradio's `queue/data` handler deletes the session's entry with `del` when its stream is cancelled
    (the client went away). Two streams of one session waiting at once (the guard allows two, above)
    and closed together both run that `del`; so does a stream whose session the store's own LRU bound
    (2,000) has already dropped. The second `del` raised `KeyError` out of the response: one ~19 kB
    "Exception in ASGI application" traceback per such session, on demand for any client. Deleting
    what is gone is what both callers want, so the store's `del` of a missing key does nothing;
    everything else about it (its LRU bound, its order) is Gradio's own class, unchanged."""
    store = getattr(queue, "pending_messages_per_session", None)
    if store is None or isinstance(store, _Forgiving):
        return
    forgiving = type(f"Forgiving{type(store).__name__}", (_Forgiving, type(store)), {})
    replacement = forgiving.__new__(forgiving)
    replacement.__dict__.update(getattr(store, "__dict__", {}))  # LRUCache's max_size
    for key, value in store.items():  # the same order; within the bound, so the LRU step drops nothing
        replacement[key] = value
    queue.pending_messages_per_session = replacement


class _Forgiving:
    def __delitem__(self, key) -> None:
        if key in self:
            super().__delitem__(key)


def _release(counter: Counter, key) -> None:
    """One stream of `key` closed; a key with none left is dropped, so the counters stay as small as
    the number of open streams."""
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]


def per_client_streams(max_streams: int, client_share: float) -> int:
    """Streams one client address may hold: its share of `max_streams`, at least one."""
    return max(1, int(max_streams * client_share))


def stream_of(scope) -> tuple[str | None, str | None]:
    """('heartbeat' | 'data' | None, session hash) for a request, under every alias of its route."""
    path = request_path(scope).rstrip("/") or "/"
    if path.startswith(HEARTBEAT_PREFIXES):
        return "heartbeat", path.rsplit("/", 1)[-1]
    if path in SESSION_ROUTES:
        return "data", _query_param(scope, "session_hash")
    return None, None
