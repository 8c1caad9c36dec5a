"""Issue 13's attacks on Gradio's side of the server, replayed against a live `s2r-tutor serve`
process on loopback (R140–R144 in docs/reliability.md): a file reference smuggled into any event
input, Gradio's programmatic routes, bodies and sessions without bounds, slow and piled-up
connections, log floods, and what the server shows of itself (monitoring, Host reflection)."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import httpx
import psutil
import pytest

from reliability_support import gradio_event, serve_process

SECRET_MARK = "s2r-secret-4f1c9a"


@pytest.fixture(scope="module")
def live(tutor, settings, tmp_path_factory):
    """(base URL, process, log path, Gradio cache folder) of a server with small connection limits."""
    var = tmp_path_factory.mktemp("var-sec")
    cache = var / "gradio-cache"
    env = {"GRADIO_TEMP_DIR": str(cache), "S2R_MAX_CONNECTIONS": "60", "S2R_HEADER_TIMEOUT_S": "2",
           "S2R_CHAT_SESSIONS_MAX": "8"}
    with serve_process(settings, var, **env) as (port, proc, log):
        yield f"http://127.0.0.1:{port}", proc, log, cache



def _raw_status(port: int, head: bytes) -> int:
    """Status of a request whose whole head goes out in one send (h11's own limit only bounds a
    head that arrives in pieces)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(head)
        reply = s.recv(4096)
    return int(reply.split(b" ", 2)[1])


@pytest.mark.parametrize("path", ["/api/search", "/card/04-08", "/gradio_api/queue/data", "/"])
def test_every_route_limits_its_request_head(live, path):
    """R162: a 27 kB URL or 20 kB of headers sent in one piece is a 414 / 431 on every route, the
    app's and Gradio's (before: accepted, and handed to the route whole)."""
    base, *_ = live
    port = int(base.rsplit(":", 1)[1])
    host = b"Host: 127.0.0.1\r\n"
    long_url = path.encode() + b"?q=" + b"%E4%BB%BF" * 3_000
    assert _raw_status(port, b"GET " + long_url + b" HTTP/1.1\r\n" + host + b"\r\n") == 414
    fat = b"".join(b"X-Pad-%d: %s\r\n" % (i, b"y" * 1000) for i in range(20))
    assert _raw_status(port, b"GET " + path.encode() + b" HTTP/1.1\r\n" + host + fat + b"\r\n") == 431
    assert httpx.get(base + "/healthz", timeout=10).status_code == 200  # and the server is fine


def config(base: str) -> dict:
    return httpx.get(base + "/config", timeout=30).json()


def file_ref(path: Path) -> list[dict]:
    """The shapes Gradio reads as a file: FileData with meta, the older bare {"path"}, a URL."""
    return [{"path": str(path), "meta": {"_type": "gradio.FileData"}}, {"path": str(path)},
            {"url": f"/gradio_api/file={path}", "path": str(path), "meta": {"_type": "gradio.FileData"}},
            {"type": "file", "file": {"path": str(path), "meta": {"_type": "gradio.FileData"}}}]


def test_no_event_input_carries_a_file(live, tmp_path):
    """R140: a file reference in any input of any event of this app, through `queue/join` and the
    programmatic routes (`run/`, `call/`, `call/v2/`), never makes Gradio copy the file: every
    attempt is a 4xx, no copy of the planted secret appears in Gradio's cache, and `file=` serves
    nothing for it. (Before: `run/respond` copied /etc/hostname, the study database and
    /proc/self/environ into /tmp/gradio/<sha>/ and `file=` served the copy.)"""
    base, _, _, cache = live
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET_MARK)
    deps = config(base)["dependencies"]
    tried = 0
    for dep in deps:
        n = len(dep["inputs"])
        for position in range(max(n, 1)):
            for ref in file_ref(secret):
                data = [None] * n
                if n:
                    data[position] = ref
                    join = {"data": data, "fn_index": dep["id"], "session_hash": f"sec{tried}"}
                    r = httpx.post(base + "/gradio_api/queue/join", json=join, timeout=30)
                    assert r.status_code == 422, (dep.get("api_name"), position, r.status_code, r.text[:200])
                    # nested inside a chat history value, too
                    join["data"][position] = [{"role": "user", "content": [ref]}]
                    assert httpx.post(base + "/gradio_api/queue/join", json=join, timeout=30).status_code == 422
                name = dep.get("api_name") or "x"
                for route in (f"/gradio_api/run/{name}", f"/gradio_api/call/{name}", f"/gradio_api/call/v2/{name}",
                              f"/gradio_api/api/{name}", f"/run/{name}", f"/call/{name}"):
                    r = httpx.post(base + route, json={"data": data}, timeout=30)
                    assert r.status_code == 404, (route, r.status_code, r.text[:200])
                tried += 1
    assert tried >= len(deps)
    copies = [p for p in cache.rglob("*") if p.is_file() and SECRET_MARK in p.read_text(errors="ignore")]
    assert copies == []
    for path in (secret, cache / "x" / "secret.txt", "/etc/hostname", "/proc/self/environ"):
        assert httpx.get(f"{base}/gradio_api/file={path}", timeout=10).status_code == 404


def test_a_legitimate_chat_event_still_runs(live):
    """R140 (the other side): the checks let the page's own events through: a question joined with
    the chat's real input shapes is answered over `queue/data`."""
    base = live[0]
    dep = next(d for d in config(base)["dependencies"] if d.get("api_name") == "respond")
    data = ["什么是 Sim2Real？"] + [[] if i < 2 else {} for i in range(len(dep["inputs"]) - 1)]
    seen = gradio_event(base, {"data": data, "fn_index": dep["id"], "session_hash": "legit1"})
    assert seen is not None and "Sim2Real" in seen


@pytest.mark.parametrize("method,path,body", [
    ("POST", "/gradio_api/call/v2/save_it", {}),
    ("POST", "/gradio_api/call/save_it", {"data": []}),
    ("GET", "/gradio_api/queue/data?session_hash=nope", None),
    ("GET", "/gradio_api/queue/data?session_hash=" + "x" * 5000, None),
    ("POST", "/gradio_api/queue/join", {"data": [], "fn_index": 0, "session_hash": "../../etc"}),
    ("POST", "/gradio_api/queue/join", {"data": "x", "fn_index": 0, "session_hash": "s"}),
    ("POST", "/gradio_api/queue/join", [1, 2]),
    ("GET", "/monitoring/summary", None),
    ("GET", "/gradio_api/monitoring/summary", None),
])
def test_crafted_gradio_requests_fail_quietly(live, method, path, body):
    """R143: the requests that answered 500 or wrote hundreds of traceback lines per call are a 4xx
    with a one-line detail, and the server log stays silent; the monitoring summary is not public."""
    base, _, log, _ = live
    before = log.stat().st_size
    r = httpx.request(method, base + path, json=body, timeout=15)
    assert 400 <= r.status_code < 500, (r.status_code, r.text[:200])
    detail = r.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and "Traceback" not in detail
    time.sleep(0.3)
    assert log.stat().st_size - before < 300, log.read_text()[before:][:1000]


def test_every_route_limits_its_body(live):
    """R141: a 1M-character question is refused by size on Gradio's routes as on /api/ (before: the
    chat took 1M and 20M characters and the process grew by 470 MB, never released)."""
    base, proc, _, _ = live
    rss0 = psutil.Process(proc.pid).memory_info().rss
    dep = next(d for d in config(base)["dependencies"] if d.get("api_name") == "respond")
    big = "x" * 1_000_000
    data = [big] + [None] * (len(dep["inputs"]) - 1)
    for route in ("/gradio_api/queue/join", "/gradio_api/run/respond", "/gradio_api/upload", "/api/ask", "/"):
        for _ in range(5):
            body = {"data": data, "fn_index": dep["id"], "session_hash": "big"} if "gradio" in route else {"question": big}
            r = httpx.post(base + route, json=body, timeout=30)
            assert r.status_code in (403, 404, 405, 413), (route, r.status_code)
    # a chunked body without Content-Length is counted as it arrives
    def chunks():
        for _ in range(40):
            yield b"x" * 32_768
    r = httpx.post(base + "/gradio_api/queue/join", content=chunks(), timeout=30,
                   headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert psutil.Process(proc.pid).memory_info().rss - rss0 < 50 * 2**20


def test_sessions_are_bounded(tutor, settings, tmp_path):
    """R142: the server keeps at most `chat_sessions_max` sessions' state (here 3), the least
    recently used dropped first, and each session's `gr.State` expires (Gradio's default: 10,000
    sessions kept for ever)."""
    from s2r_tutor.web.server import build_app, running

    small = settings.model_copy(update={"chat_sessions_max": 3, "feedback_file": tmp_path / "f.jsonl",
                                        "study_db": tmp_path / "s.sqlite3"})
    app = build_app(small, tutor)
    blocks = app.state.blocks
    with running(app) as base:
        dep = next(d for d in config(base)["dependencies"] if d.get("api_name") == "respond")
        data = ["什么是域随机化？"] + [[] if i < 2 else {} for i in range(len(dep["inputs"]) - 1)]
        for i in range(10):
            assert gradio_event(base, {"data": data, "fn_index": dep["id"], "session_hash": f"many{i}"}) is not None
            assert len(blocks.state_holder.session_data) <= 3
    assert "many9" in blocks.state_holder.session_data and "many0" not in blocks.state_holder.session_data
    ttls = {b.time_to_live for b in blocks.blocks.values() if type(b).__name__ == "State"}
    assert ttls and all(t <= small.chat_state_ttl_s for t in ttls)


def _slow_socket(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # headers never finished
    return s


def _closed_by_server(s: socket.socket, within: float) -> bool:
    s.settimeout(within)
    try:
        return s.recv(1) == b""
    except (socket.timeout, TimeoutError):
        return False
    except OSError:
        return True


def test_slow_and_surplus_connections_are_dropped(live):
    """R141: past `max_connections` (60 here) a new connection evicts the one that has waited
    longest for its headers, so 200 unfinished requests leave at most 60 open, a normal request is
    still answered while they are held, and the process's descriptors stay near the cap; whatever is
    left is closed at `header_timeout_s` (2 s here). (Before: 20,000 slow sockets exhausted the
    descriptors, every request timed out, and the log grew 125 MB.)"""
    base, proc, log, _ = live
    port = int(base.rsplit(":", 1)[1])
    slow = []
    for _ in range(200):
        try:
            slow.append(_slow_socket(port))
        except OSError:
            pass
    t0 = time.monotonic()
    assert httpx.get(base + "/healthz", timeout=5).status_code == 200  # gets in, evicting a slow one
    assert time.monotonic() - t0 < 5
    fds = psutil.Process(proc.pid).num_fds()
    dropped = sum(_closed_by_server(s, 0.05) for s in slow)
    assert dropped >= 200 - 60, dropped
    assert fds < 60 + 80, fds  # the cap plus the process's own files
    assert all(_closed_by_server(s, 5) for s in slow)  # the header deadline takes the rest
    for s in slow:
        s.close()
    assert httpx.get(base + "/healthz", timeout=5).status_code == 200
    assert "Too many open files" not in log.read_text(errors="replace")


def test_host_header_is_never_reflected(live):
    """R144: a foreign Host is a 400, and X-Forwarded-Host/Proto are ignored, so /config and the
    page never carry a client-chosen host (before: `Host: evil.example` came back in both)."""
    base = live[0]
    for headers in ({"Host": "evil.example"}, {"Host": "evil.example:7860"}):
        for path in ("/config", "/", "/embed", "/api/search?q=x"):
            r = httpx.get(base + path, headers=headers, timeout=10)
            assert r.status_code == 400 and "evil" not in r.text, (path, r.status_code)
    for path in ("/config", "/"):
        r = httpx.get(base + path, headers={"X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https"},
                      timeout=10)
        assert r.status_code == 200 and "evil.example" not in r.text
    assert "127.0.0.1" in json.dumps(config(base))


def test_broken_stores_do_not_show_server_paths(tutor, settings, tmp_path):
    """R144: a corrupt study database and a feedback log that cannot be written tell the reader which
    part failed, never its path (before: the absolute path of `study.sqlite3` and `feedback.jsonl`
    was shown in the Notes tab and the like toast); the details go to the server log."""
    from s2r_tutor.web.server import build_app, running
    db = tmp_path / "secret-place" / "study.sqlite3"
    db.parent.mkdir()
    db.write_bytes(b"this is not a database" * 100)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    web = settings.model_copy(update={"study_db": db, "feedback_file": blocker / "feedback.jsonl"})
    with running(build_app(web, tutor)) as base:
        deps = {d.get("api_name"): d for d in config(base)["dependencies"]}
        saved = gradio_event(base, {"data": ["04-08#reality-gap", "my note", "zh"], "fn_index": deps["save_it"]["id"],
                                 "session_hash": "leak1"})
        answered = gradio_event(base, {"data": ["什么是 Sim2Real？", [], [], {}], "fn_index": deps["respond"]["id"],
                                    "session_hash": "leak2"})
        liked = gradio_event(base, {"data": [None], "fn_index": deps["on_like"]["id"], "session_hash": "leak2",
                                 "event_data": {"index": 1, "value": "x", "liked": True}})
    assert saved and "study store" in saved
    assert answered and "process_completed" in answered
    for message in (saved, liked):
        assert message is not None
        assert str(tmp_path) not in message and "secret-place" not in message and "not-a-folder" not in message


def test_events_without_their_event_data_are_refused_before_gradio(live):
    """R143: an event whose handler takes Gradio event data (a select, a like) joined without it
    made Gradio's queue print a traceback per request; now it is a 422 with one line, and every other
    event with null values completes (the module's teardown finds no traceback in the server log)."""
    base, _, log, _ = live
    refused = 0
    for dep in config(base)["dependencies"]:
        body = {"data": [None] * len(dep["inputs"]), "fn_index": dep["id"], "session_hash": f"noev{dep['id']}"}
        r = httpx.post(base + "/gradio_api/queue/join", json=body, timeout=30)
        if r.status_code == 422:
            assert "needs the" in r.json()["detail"] or "takes no files" in r.json()["detail"]
            refused += 1
        else:
            assert r.status_code == 200
            assert gradio_event(base, {**body, "session_hash": f"noev2{dep['id']}"}) is not None
    assert refused >= 2  # the card tab's text selections and the like button
    assert "Traceback" not in log.read_text(errors="replace")
