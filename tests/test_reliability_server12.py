"""Round 12's attacks on the server itself (the round-12 attacker findings F1, F2, F3, F4, F9, F11; docs/reliability.md R170-R175), replayed
against a live `s2r-tutor serve` process on loopback with a small connection cap (R170–R175 in
docs/reliability.md): a quadratic Cookie header, event streams that fill every connection, deep
links, JSON nested past the recursion limit, the log limit on child loggers, Gradio's start-up and
schema routes."""

from __future__ import annotations

import io
import json
import logging
import socket
import statistics
import time

import httpx
import pytest
from reliability_support import open_stream, queue_join, serve_process, stream_status

from s2r_tutor.web.cookies import CookieGuard, without_backslash_pairs
from s2r_tutor.web.identity import COOKIE, new_anonymous_id
from s2r_tutor.web.limits import RateLimitedLog, install_log_rate_limit
from s2r_tutor.web.queueguard import _NOT_INT, _as_int
from s2r_tutor.web.streams import max_streams

ATTACK_COOKIE = 's2r_reader="' + '\\"' * 7500 + '"'  # 15,013 bytes: 0.2-0.6 s per request before R170
CAP = 40


@pytest.fixture(scope="module")
def live(settings, tmp_path_factory):
    """(base URL, port, log path, Gradio temp folder) of a server capped at 40 connections."""
    var = tmp_path_factory.mktemp("var-r12")
    gtmp = var / "gradio"
    env = {"GRADIO_TEMP_DIR": str(gtmp), "S2R_MAX_CONNECTIONS": str(CAP), "S2R_HEADER_TIMEOUT_S": "3",
           "S2R_HEARTBEAT_WAIT_S": "1", "S2R_BODY_TIMEOUT_S": "3"}
    with serve_process(settings, var, **env) as (port, _proc, log):
        yield f"http://127.0.0.1:{port}", port, log, gtmp


def _timed(base: str, path: str, **kw) -> tuple[int, float]:
    t0 = time.perf_counter()
    r = httpx.get(base + path, timeout=30, **kw)
    return r.status_code, time.perf_counter() - t0


def _median_cost(base: str, path: str) -> float:
    """The route's own cost right now, without the attack: the baseline an attack is held to."""
    return statistics.median(_timed(base, path)[1] for _ in range(3))


# -- R170: the Cookie header ---------------------------------------------------------------------

def test_backslash_cookie_pairs_are_dropped_and_ours_kept():
    """R170 and R184, the guard alone: a pair holding a backslash goes, every other pair stays as it was,
    and a quoted pair cut open by the split never hides ours."""
    ours = f"{COOKIE}={new_anonymous_id()}"
    assert without_backslash_pairs(f'a=1; b="\\"x\\""; {ours}; c=2'.encode()) == f"a=1; {ours}; c=2".encode()
    # a quoted value holding ';' beside ours: both of its pieces go, ours stays readable (round 13, N2:
    # the unclosed 'x="a' made SimpleCookie stop there, and the reader got a new anonymous cookie)
    kept = without_backslash_pairs(f'x="a;\\"b"; {ours}'.encode()).decode()
    assert kept == ours
    from http.cookies import SimpleCookie

    jar = SimpleCookie()
    jar.load(kept)
    assert jar[COOKIE].value == ours.split("=", 1)[1]
    seen = {}

    async def app(scope, receive, send):
        seen["headers"] = scope["headers"]

    import asyncio

    guard = CookieGuard(app, max_bytes=12 * 1024)
    scope = {"type": "http", "headers": [(b"host", b"x"), (b"cookie", (ATTACK_COOKIE[:9000] + '"; ' + ours).encode())]}
    asyncio.run(guard(scope, None, None))
    assert seen["headers"] == [(b"host", b"x"), (b"cookie", ours.encode())]


def test_a_quadratic_cookie_costs_nothing_on_any_route(live):
    """R170: the attacker's 15 kB cookie is a 431 at once on every route; 11 kB of backslash pairs
    under the cap are dropped and the request answered at a normal cost, our own reader cookie beside
    them still honoured (before: 0.2-0.6 s of event loop per request, on every route)."""
    base = live[0]
    for path in ("/healthz", "/embed", "/api/progress", "/"):
        # Medians against the same route's plain cost, measured now: a loaded CI box slows both alike,
        # while the quadratic parse added 0.2-0.6 s on top of any load.
        normal = _median_cost(base, path)
        attacks = [_timed(base, path, headers={"Cookie": ATTACK_COOKIE}) for _ in range(3)]
        took = statistics.median(t for _, t in attacks)
        assert all(s == 431 for s, _ in attacks) and took < 0.15 + 4 * normal, (path, attacks, normal)
    junk = 'other="' + '\\"' * 5500 + '"'  # 11 kB: under max_cookie_bytes
    reader = new_anonymous_id()
    normal = _median_cost(base, "/healthz")
    costs = [_timed(base, "/healthz", headers={"Cookie": f"{junk}; {COOKIE}={reader}"}) for _ in range(5)]
    took = statistics.median(t for _, t in costs)
    assert all(s == 200 for s, _ in costs) and took < 0.08 + 4 * normal, (costs, normal)
    r = httpx.get(base + "/embed", headers={"Cookie": f"{junk}; {COOKIE}={reader}"}, timeout=30)
    assert r.status_code == 200 and COOKIE not in r.headers.get("set-cookie", "")  # ours was read


# -- R171: event streams -------------------------------------------------------------------------



def test_streams_never_take_every_connection(live):
    """R171: with 40 connections, 40 heartbeats (for no session, then for 40 real ones) leave room:
    an unknown session's heartbeat is a 404 after `heartbeat_wait_s`, at most 30 streams open at once
    (the rest 503), one heartbeat per session (409), and /healthz and /api/search answered while they
    are held (before: the 40 streams held every connection; every later request was refused)."""
    base, port, *_ = live
    assert max_streams(CAP, 0.25) == 30
    t0 = time.monotonic()
    s = open_stream(port, "/gradio_api/heartbeat/nosuchsession")
    assert stream_status(s) == 404 and time.monotonic() - t0 < 5
    s.close()

    held = [open_stream(port, f"/gradio_api/heartbeat/atkHB_{i}") for i in range(CAP)]  # the attacker's script
    time.sleep(0.3)
    status, took = _timed(base, "/healthz")
    assert status == 200 and took < 5, (status, took)
    assert {stream_status(s) for s in held} <= {404, 503, None}
    for s in held:
        s.close()

    deps = httpx.get(base + "/config", timeout=30).json()["dependencies"]
    no_inputs = next(d["id"] for d in deps if d["inputs"] == [])
    sessions = [f"r12sess{i}" for i in range(CAP)]
    assert all(queue_join(base, no_inputs, sh) == 200 for sh in sessions)
    held = [open_stream(port, f"/gradio_api/heartbeat/{sh}") for sh in sessions]
    statuses = [stream_status(s) for s in held]
    # heartbeats take at most 23 of the 30 stream slots: the other 7 are kept for answers (R195)
    assert statuses.count(200) == 23 and statuses.count(503) == CAP - 23, statuses
    for path in ("/healthz", "/api/search?q=域随机化"):
        status, took = _timed(base, path)
        assert status == 200 and took < 5, (path, status, took)
    streaming = sessions[statuses.index(200)]
    again = open_stream(port, f"/gradio_api/heartbeat/{streaming}")
    assert stream_status(again) == 409
    again.close()
    for s in held:
        s.close()
    time.sleep(0.5)
    back = open_stream(port, f"/gradio_api/heartbeat/{sessions[-1]}")
    assert stream_status(back) == 200  # the slots are free again
    back.close()


def test_slow_bodies_never_take_every_connection(live):
    """R171: 40 requests whose headers are complete but whose body never finishes (the other way to
    hold a connection out of the header deadline's reach) are evicted for a new request at the cap,
    and closed `body_timeout_s` (3 s here) after their headers (before: held for ever, not evictable,
    so the 41st connection was refused)."""
    base, port, *_ = live
    slow = []
    for _ in range(CAP):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(b"POST /api/ask HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 1000\r\n\r\n{\"question\": \"")
        slow.append(s)
    time.sleep(0.3)
    status, took = _timed(base, "/healthz")
    assert status == 200 and took < 5, (status, took)
    time.sleep(4)
    assert all(_closed(s) for s in slow)
    for s in slow:
        s.close()


def _closed(s: socket.socket) -> bool:
    s.settimeout(2)
    try:
        return s.recv(4096) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


# -- R172: deep links ----------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/gradio_api/deep_link", "/gradio_api/deep_link/", "//gradio_api/deep_link"])
def test_deep_links_are_neither_made_nor_loaded(live, path):
    """R172: the deep-link route is closed (it wrote a state file per call, never deleted, which
    loaded into the chat of anyone given the link), and a saved one left on disk is not loaded."""
    base, _, _, gtmp = live
    deps = httpx.get(base + "/config", timeout=30).json()["dependencies"]
    no_inputs = next(d["id"] for d in deps if d["inputs"] == [])
    assert queue_join(base, no_inputs, "r12deep") == 200
    r = httpx.get(base + path, params={"session_hash": "r12deep"}, timeout=30)
    assert r.status_code == 404
    saved = gtmp / "deep_links"
    assert not saved.exists() or {p.name for p in saved.iterdir()} <= {"r12planted1"}  # only the test's own
    planted = gtmp / "deep_links" / "r12planted1" / "state.json"
    planted.parent.mkdir(parents=True, exist_ok=True)
    planted.write_text(json.dumps([{"id": 1, "type": "markdown", "props": {"value": "R12-DEEP-MARK"}}]))
    for query in ("?deep_link=r12planted1", "?deep%5Flink=r12planted1&x=1"):
        config = httpx.get(base + "/config" + query, timeout=30).text
        assert "R12-DEEP-MARK" not in config and '"valid"' not in config
        assert "R12-DEEP-MARK" not in httpx.get(base + "/" + query, timeout=30).text


# -- R173: bodies that crashed the join guard; the log limit on child loggers --------------------

@pytest.mark.parametrize("path", ["/gradio_api/queue/join", "/gradio_api/queue/join/", "//gradio_api/queue/join",
                                  "/queue/join"])
def test_joins_nested_too_deep_or_with_huge_numbers_are_4xx(live, path):
    """R173: 100,000 '[' (a RecursionError in json.loads) and an `fn_index` of 5,000 digits (Python's
    int-string limit) are a 422 with one line, under every alias of the route, and the log stays quiet
    (before: 500 and a traceback each)."""
    base, _, log, _ = live
    before = log.stat().st_size
    for body in (b"[" * 100_000, json.dumps({"fn_index": "9" * 5000, "data": [], "session_hash": "s"}).encode()):
        r = httpx.post(base + path, content=body, headers={"content-type": "application/json"}, timeout=30)
        assert r.status_code == 422, (path, r.status_code, r.text[:200])
        assert "\n" not in r.json()["detail"]
    time.sleep(0.3)
    assert log.stat().st_size - before < 300, log.read_text()[before:][:1000]


def test_fn_index_strings_of_any_length_are_read_safely():
    """R173: the join guard's int reading, alone."""
    assert _as_int("12") == 12 and _as_int(" -3 ") == -3 and _as_int(True) == 1
    assert _as_int("9" * 5000) is _NOT_INT and _as_int("9" * 19) is _NOT_INT


def test_the_log_limit_holds_for_child_loggers():
    """R173: 300 copies of one record from a child logger (`s2r_tutor.web.<x>`, as the server's own
    are) write at most `burst` lines (before: the filter sat on the parent logger, which Python does
    not consult for a child's records, so 300 bad requests wrote 756 kB)."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        limiter = install_log_rate_limit(burst=5, window_s=60)
        child = logging.getLogger("s2r_tutor.web.r12child")
        for i in range(300):
            child.error("unexpected error on %s", f"/gradio_api/queue/join/{i}")
        logging.getLogger("asyncio").error("another message")
        lines = out.getvalue().splitlines()
        assert len(lines) == 6, lines[:10]
        assert any(isinstance(f, RateLimitedLog) for f in handler.filters)
    finally:
        root.removeHandler(handler)
        loggers = [root, *(lg for lg in logging.root.manager.loggerDict.values() if isinstance(lg, logging.Logger))]
        for h in [*(h for lg in loggers for h in lg.handlers), logging.lastResort]:
            if h is not None and limiter in h.filters:
                h.removeFilter(limiter)  # this test's limiter must not hold back later tests' logs


# -- R174, R175: Gradio's start-up and schema routes ---------------------------------------------

@pytest.mark.parametrize("path", ["/gradio_api/startup-events", "/gradio_api/startup-events/",
                                  "//gradio_api/startup-events", "/startup-events", "/gradio_api/openapi.json",
                                  "/gradio_api/info", "/gradio_api/info/", "/info"])
def test_startup_and_schema_routes_are_closed(live, path):
    """R174: `startup-events` started Gradio's queue loops a second time for whoever asked first;
    R175: Gradio's OpenAPI schema and API description documented the closed routes (the page carries
    its description inline: tests/test_browser_streams.py). All 404; this app's own /openapi.json (for
    /docs) stays."""
    base = live[0]
    assert httpx.get(base + path, timeout=30).status_code == 404
    assert httpx.get(base + "/openapi.json", timeout=30).status_code == 200


def test_gradio_knows_its_startup_ran(tutor, settings, tmp_path):
    """R174: the app marks Gradio's start-up as done, so the route would do nothing even if reached."""
    from s2r_tutor.web.server import build_app

    app = build_app(settings.model_copy(update={"study_db": tmp_path / "s.sqlite3",
                                                "feedback_file": tmp_path / "f.jsonl"}), tutor)
    flags = [r.app.startup_events_triggered for r in app.routes if hasattr(getattr(r, "app", None),
                                                                              "startup_events_triggered")]
    assert flags == [True]
