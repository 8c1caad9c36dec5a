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


@pytest.fixture(scope="module")
def live(settings, tmp_path_factory):
    """(base URL, port, var folder, log path) of a server capped at 40 connections."""
    var = tmp_path_factory.mktemp("var-sec17")
    env = {"GRADIO_TEMP_DIR": str(var / "gradio"), "S2R_MAX_CONNECTIONS": str(CAP), "S2R_HEADER_TIMEOUT_S": "3",
           "S2R_HEARTBEAT_WAIT_S": "2"}
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
    assert a == {"200": 15, "503": 3}, a
    assert b == {"200": 7, "503": 11}, b
    assert sum(r.get("200", 0) for r in readers) == 8, readers
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
    """Each session runs an event and reads it to the end, then opens two `queue/data` streams (the guard
    allows two per session), which both wait; then both sockets are reset at the same instant. The
    statuses the streams were answered with."""
    event = _no_input_event(base)
    statuses = []
    for i in range(sessions):
        sh = f"{tag}x{i}"
        assert queue_join(base, event, sh) == 200
        with httpx.stream("GET", base + "/gradio_api/queue/data", params={"session_hash": sh}, timeout=30) as r:
            for line in r.iter_lines():
                if "close_stream" in line:
                    break
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
    assert httpx.get(base + "/gradio_api/queue/data", params={"session_hash": "r190x0"}, timeout=10).status_code == 404
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
