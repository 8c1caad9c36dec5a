"""Round-17 re-attack: what was still open after round 16 (docs/reliability.md "What is not covered"),
replayed against a live `s2r-tutor serve` process on loopback and then closed (R189-). Client addresses
come from one loopback socket the way they do behind the documented proxy: uvicorn trusts 127.0.0.1's
`X-Forwarded-For`, so each header value is a client address to the app."""

from __future__ import annotations

import socket
import time

import httpx
import pytest
from reliability_support import open_stream, queue_join, serve_process, stream_status

CAP = 40  # 30 stream slots (R171), one address's fixed share 15 (R185)
PUBLIC = "http://tutor.example.test"


@pytest.fixture(scope="module")
def live(settings, tmp_path_factory):
    """(base URL, port, var folder, log path) of a server capped at 40 connections."""
    var = tmp_path_factory.mktemp("var-sec17")
    env = {"GRADIO_TEMP_DIR": str(var / "gradio"), "S2R_MAX_CONNECTIONS": str(CAP), "S2R_HEADER_TIMEOUT_S": "3",
           "S2R_HEARTBEAT_WAIT_S": "2", "S2R_PUBLIC_URL": PUBLIC,  # behind a proxy, as far as the server knows
           "S2R_STREAM_SHARED_CLIENTS": '["127.0.0.1", "::1", "192.0.2.9"]'}  # and one that passes no address (R191)
    with serve_process(settings, var, **env) as (port, _proc, log):
        yield f"http://127.0.0.1:{port}", port, var, log


def _no_input_event(base: str) -> int:
    deps = httpx.get(base + "/config", timeout=30).json()["dependencies"]
    return next(d["id"] for d in deps if d["inputs"] == [])


def hold_heartbeats(base: str, port: int, groups: list[tuple[str, int]], tag: str) -> list[dict[str, int]]:
    """For each (address, n) in order: join n sessions from that address and open their heartbeats,
    keeping the ones answered 200 open (a refused one is closed at once, as a browser would). Returns
    each group's status counts; every socket is closed before it returns."""
    event = _no_input_event(base)
    held: list[socket.socket] = []
    counts = []
    try:
        for g, (address, n) in enumerate(groups):
            sessions = [f"{tag}{g}x{i}" for i in range(n)]
            assert all(queue_join(base, event, sh, address) == 200 for sh in sessions)
            got = []
            for sh in sessions:
                s = open_stream(port, f"/gradio_api/heartbeat/{sh}", address)
                status = stream_status(s)
                got.append(status)
                (held.append if status == 200 else lambda x: x.close())(s)
            counts.append({str(k): got.count(k) for k in sorted(set(got), key=str)})
    finally:
        for s in held:
            s.close()
    time.sleep(0.5)  # the slots are free again once the sockets close
    return counts


def test_two_addresses_cannot_take_every_stream_slot(live):
    """R189 (round-16 open item): one address's fixed share was half the slots, so two addresses
    together held all 30 and every later reader's stream was a 503. Each address now gets its share of
    what the others leave it: the first 15, the second 7 of the 15 left, and 8 readers of the next 10
    (each from its own address) get their stream; readers 9 and 10 meet the full pool. Before: 15, 15
    and 0 of 10."""
    base, port, *_ = live
    a, b, *readers = hold_heartbeats(base, port, [("203.0.113.10", 18), ("203.0.113.20", 18)]
                                     + [(f"198.51.100.{i + 1}", 1) for i in range(10)], "r189")
    # Since R195 heartbeats may take 23 of the 30 slots (the rest are kept for answers), and the shares
    # are of those 23: 11, then 6 of the 12 left, and 6 readers get a heartbeat (every reader still gets
    # its answers, test_reliability_sec27.py). Before R195: 15, 7 and 8 of 10 (with no slot left for an answer).
    assert a == {"200": 11, "503": 7}, a
    assert b == {"200": 6, "503": 12}, b
    assert sum(r.get("200", 0) for r in readers) == 6, readers
    assert httpx.get(base + "/healthz", timeout=30).status_code == 200


def test_a_readers_tab_runs_its_next_event_when_the_pool_is_nearly_full(live):
    """R189, the cost side: a reader holding fewer than one tab's streams (heartbeat + two queue/data)
    may always take a free slot, so an open tab can run its next event when attackers have left only
    a few slots free."""
    from s2r_tutor.web.streams import TAB_STREAMS, StreamGuard

    guard = StreamGuard(None, None, max_streams=30, heartbeat_wait_s=1, per_client=15, client_share=0.5)
    guard.open = 29  # one slot free
    assert TAB_STREAMS == 3 and guard.client_limit(1) == 3 and guard.client_limit(2) == 3
    guard.open = 0
    assert guard.client_limit(14) == 15  # alone, the fixed share (R185) still holds
    guard.open = 15
    assert guard.client_limit(0) == 7  # a second address: half of the 15 left


def double_close(base: str, port: int, sessions: int, tag: str) -> list[int | None]:
    """Each session joins a chat answer and, while it runs, opens two `queue/data` streams (the guard
    allows two per session), which both wait; then both sockets are reset at the same instant. The
    statuses the streams were answered with. (Before R195 the streams waited on a session whose event
    had been read to the end; such a stream is now refused, so the answer keeps the session busy.)"""
    deps = httpx.get(base + "/config", timeout=30).json()["dependencies"]
    respond = next(d for d in deps if d.get("api_name") == "respond")
    statuses = []
    for i in range(sessions):
        sh = f"{tag}x{i}"
        data = [None] * len(respond["inputs"])
        data[0] = "为什么需要域随机化？"
        body = {"data": data, "fn_index": respond["id"], "session_hash": sh, "event_data": None, "trigger_id": None}
        assert httpx.post(base + "/gradio_api/queue/join", json=body, timeout=30).status_code == 200
        pair = [open_stream(port, f"/gradio_api/queue/data?session_hash={sh}") for _ in range(2)]
        statuses += [stream_status(s) for s in pair]
        for s in pair:  # RST, not FIN: both disconnects reach the server together
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            s.close()
    time.sleep(1)
    return statuses


def test_a_session_deleted_twice_logs_no_traceback(live):
    """R190 (round-16 open item, Gradio's "double delete"): two waiting `queue/data` streams of one
    session closed together both ran Gradio's `del pending_messages_per_session[session]`; the second
    raised KeyError out of the response, an "Exception in ASGI application" traceback (~19 kB) for
    every such session, on demand. Measured with this script, 5 sessions: 5 tracebacks before, 0 now
    (the log's own limit hid all but 5 a minute of the 20 the round-17 script caused)."""
    base, port, _var, log = live
    before = log.read_text(errors="replace")
    assert double_close(base, port, 5, "r190") == [200] * 10
    new = log.read_text(errors="replace")[len(before):]
    assert "Traceback" not in new and "KeyError" not in new, new[-3000:]
    # the session is gone, as Gradio meant: its next stream is refused, not served from a stale entry
    # (404: deleted; since R195, if its delete did not run, a session left with nothing to answer has its
    # stream served and then ended once idle: the GET returning at all, within the timeout, shows that)
    assert httpx.get(base + "/gradio_api/queue/data", params={"session_hash": "r190x0"}, timeout=40).status_code in (200, 404)
    assert httpx.get(base + "/healthz", timeout=10).status_code == 200


@pytest.mark.reliability("R190")
def test_the_forgiving_store_is_gradios_lru_otherwise():
    """R190: the replacement keeps Gradio's class (an LRU of 2,000 sessions: a stream whose session it
    dropped was the other way to the same traceback), its order and its bound; only `del` of a missing
    session does nothing."""
    from gradio.utils import LRUCache

    from s2r_tutor.web.streams import forgive_double_delete

    class Queue:
        pending_messages_per_session = LRUCache(3)

    queue = Queue()
    for key in "abc":
        queue.pending_messages_per_session[key] = key
    forgive_double_delete(queue)
    store = queue.pending_messages_per_session
    assert isinstance(store, LRUCache) and list(store) == ["a", "b", "c"] and store.max_size == 3
    del store["a"]
    del store["a"]  # the second delete: nothing, no KeyError
    store["x"], store["y"] = 1, 2  # over the bound: the oldest goes, as before
    assert list(store) == ["c", "x", "y"]
    forgive_double_delete(queue)
    assert queue.pending_messages_per_session is store  # applied once


# -- R191: per-address limits behind a proxy that passes no client address (round-13 N4) ----------

def test_the_server_says_when_a_proxy_passes_no_client_address(live):
    """R191 (round-13 re-attack N4): behind a proxy that is not trusted or sends no X-Forwarded-For,
    every reader has the proxy's address and per-address limits count them as one client; nothing
    failed, so nothing said so. Now the start-up log says which peers are believed, warns when the
    configuration says a proxy passes no address (here `stream_shared_clients` names 192.0.2.9), and the
    first request from a trusted peer without X-Forwarded-For while `public_url` says a proxy is in
    front (here the fixture's own /healthz polls) gets one warning, once."""
    base, _port, _var, log = live
    for _ in range(5):
        assert httpx.get(base + "/healthz", timeout=10).status_code == 200
    text = log.read_text(errors="replace")
    assert "client addresses: X-Forwarded-For is believed from 127.0.0.1,::1 (FORWARDED_ALLOW_IPS)" in text
    assert "stream_shared_clients lists 192.0.2.9: a proxy that passes no client address" in text
    assert text.count("carried no X-Forwarded-For although public_url says a proxy is in front") == 1, text[-3000:]


@pytest.mark.reliability("R191")
@pytest.mark.parametrize(("public_url", "host", "allow", "shared", "warning"), [
    ("https://t.example", "0.0.0.0", "127.0.0.1,::1", [], "a proxy on another host is not trusted"),
    ("https://t.example", "0.0.0.0", "10.0.0.5", [], None),  # the proxy's address is trusted
    ("https://t.example", "127.0.0.1", "127.0.0.1", [], None),  # the proxy is on this host
    (None, "0.0.0.0", "*", [], "FORWARDED_ALLOW_IPS=* on a server listening on 0.0.0.0"),
    (None, "127.0.0.1", "127.0.0.1", ["10.0.0.5"], "stream_shared_clients lists 10.0.0.5"),
    (None, "0.0.0.0", "127.0.0.1,::1", ["::1", "::ffff:127.0.0.1"], None),  # the defaults: nothing to say
], ids=["remote-proxy-untrusted", "remote-proxy-trusted", "local-proxy", "trust-anyone", "shared-proxy", "defaults"])
def test_start_up_notes(settings, public_url, host, allow, shared, warning):
    import logging

    from s2r_tutor.web.clientaddr import startup_notes

    shared_clients = ["127.0.0.1", *shared]
    notes = startup_notes(settings.model_copy(update={"public_url": public_url, "stream_shared_clients": shared_clients}),
                          host, allow)
    warnings = [line for level, line in notes if level == logging.WARNING]
    assert notes[0][0] == logging.INFO and allow.split(",")[0] in notes[0][1]
    assert (warnings == []) if warning is None else (len(warnings) == 1 and warning in warnings[0]), warnings


@pytest.mark.reliability("R191")
def test_an_untrusted_proxys_forwarded_address_is_reported_a_bounded_number_of_times(caplog):
    """A peer that sends X-Forwarded-For but is not trusted keeps its own address (uvicorn ignores the
    header): one warning per such peer, at most MAX_WARNINGS in all, so forged headers cannot flood the log."""
    import asyncio
    import logging

    from s2r_tutor.web.clientaddr import MAX_WARNINGS, ClientAddressCheck

    async def app(scope, receive, send):
        return None

    check = ClientAddressCheck(app, behind_proxy=False, trusted=["127.0.0.1"])

    def request(peer: str, forwarded: str | None):
        headers = [(b"x-forwarded-for", forwarded.encode())] if forwarded else []
        return {"type": "http", "client": (peer, 1234), "headers": headers}

    with caplog.at_level(logging.WARNING, logger="s2r_tutor.web.clientaddr"):
        asyncio.run(check(request("198.51.100.8", "10.9.9.9, 198.51.100.8"), None, None))  # believed: its own entry
        for peer in ["10.0.0.5"] * 5 + [f"10.0.0.{i}" for i in range(6, 20)]:
            asyncio.run(check(request(peer, "198.51.100.7"), None, None))
    lines = [r.getMessage() for r in caplog.records if "not believed" in r.getMessage()]
    assert len(lines) == MAX_WARNINGS and "requests from 10.0.0.5 carry X-Forwarded-For" in lines[0]


# -- R192: a caching proxy in front served one reader's notes to the next ---------------------------

def test_personal_responses_are_never_stored_by_a_shared_cache(live):
    """R192: `/api/notes` and `/api/progress` (the caller's notes and quiz summary, their reader id
    included) and any response setting the anonymous cookie said nothing about caching, so a proxy that
    caches by URL (nginx `proxy_cache_valid 200 1m`, measured in the round-17 re-attack: reader B got
    reader A's note and A's reader id, a HIT) served them to the next reader. They now carry
    `Cache-Control: private, no-store`; answers that are the same for everyone keep no such header."""
    base, *_ = live
    with httpx.Client(base_url=base, timeout=30) as reader:
        first = reader.get("/embed")  # sets the cookie: its own no-cache stays
        page = httpx.get(base + "/", timeout=30)  # no cookie yet: the chat page sets one
        assert "s2r_reader=" in page.headers.get("set-cookie", "")
        assert page.headers.get("cache-control") == "private, no-store"
        assert first.headers.get("cache-control") == "no-cache"
        assert reader.post("/api/notes", json={"section": "04-08#summary", "text": "r192"}).status_code == 201
        for path in ("/api/notes", "/api/progress"):
            r = reader.get(path)
            assert r.status_code == 200 and r.headers.get("cache-control") == "private, no-store", (path, r.headers)
        shared = reader.get("/api/search", params={"q": "sim2real", "k": 1})
        assert shared.status_code == 200 and "cache-control" not in shared.headers


# -- R193: one address filled Gradio's queue and every other reader's chat event was "Queue is full" --

def test_one_address_gets_its_share_of_the_chat_queue():
    """R193: Gradio's queue holds `queue_max_size` (64) waiting events for everyone, with no per-client
    bound, so one address that pushes events it never reads fills it and every other reader's next chat
    event is a 503 "Queue is full" (R96) for as long as it keeps them coming. Measured on a live server
    (round-17 script: 150 joins from one address through 30 connections, 10 readers' joins among them):
    **readers accepted 3/10 → 10/10, the address's joins accepted 100 → 62**. The guard's rule, on
    Gradio's own queue objects: an address may have `queue_client_share` of its own waiting events plus
    the free places (R189's rule), within that share of the queue; loopback (a proxy that passes no
    address) is not capped."""
    from types import SimpleNamespace as NS

    from s2r_tutor.web.queueguard import GradioEventGuard

    def event(host: str):
        return NS(request=NS(client=NS(host=host)))

    waiting: list = []
    queue = NS(max_size=64, event_queue_per_concurrency_id={"respond": NS(queue=waiting)})
    guard = GradioEventGuard(None, NS(_queue=queue), client_share=0.5, shared_clients={"127.0.0.1"})
    accepted = 0
    while not guard.over_share("203.0.113.50"):
        waiting.append(event("203.0.113.50"))
        accepted += 1
    assert accepted == 32  # its half of the queue
    assert not guard.over_share("::ffff:203.0.113.51")  # another address still has room
    second = 0
    while not guard.over_share("203.0.113.51"):
        waiting.append(event("203.0.113.51"))
        second += 1
    assert second == 16  # half of what the first left
    assert not guard.over_share("198.51.100.1")  # a reader with nothing waiting: 16 places left
    assert guard.over_share("::ffff:203.0.113.50")  # the same client written another way: one share
    waiting.extend(event("127.0.0.1") for _ in range(16))  # the queue is full, but only Gradio says so
    assert not guard.over_share("127.0.0.1")
    assert not GradioEventGuard(None, NS(_queue=queue), client_share=1.0).over_share("203.0.113.50")  # off
