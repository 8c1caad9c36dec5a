"""Round 27: a whole-server attacker pass after R194, against a live `s2r-tutor serve` process on loopback
(R195-R197). Clients come from loopback addresses of their own (127.0.0.2, 127.0.0.3, ...: a socket bound
to that source address), so each is a separate client to every per-address limit, as readers on the
internet would be; the server trusts X-Forwarded-For from 127.0.0.1 only, and none is sent."""

from __future__ import annotations

import json
import socket
import time

import httpx
import pytest
from reliability_support import open_stream, serve_process, stream_status

CAP = 40  # 30 stream slots (R171); stream_answer_share 0.25 keeps 7 of them from heartbeats (R195)
QUESTION = "什么是域随机化？"


@pytest.fixture(scope="module")
def live(settings, tmp_path_factory):
    """(base URL, port, log path) of a server capped at 40 connections."""
    var = tmp_path_factory.mktemp("var-sec27")
    env = {"GRADIO_TEMP_DIR": str(var / "gradio"), "S2R_MAX_CONNECTIONS": str(CAP), "S2R_HEADER_TIMEOUT_S": "3",
           "S2R_HEARTBEAT_WAIT_S": "2"}
    with serve_process(settings, var, **env) as (port, _proc, log):
        yield f"http://127.0.0.1:{port}", port, log


def _client(address: str) -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=60)


def _stream(port: int, path: str, address: str = "127.0.0.1") -> socket.socket:
    return open_stream(port, path, source=address, timeout=20)


def _events(base: str) -> dict[str, dict]:
    deps = httpx.get(base + "/config", timeout=30).json()["dependencies"]
    return {d["api_name"]: d for d in deps if d.get("backend_fn")}


def _body(dep: dict, data: list, session: str) -> dict:
    return {"data": data, "fn_index": dep["id"], "session_hash": session, "event_data": None, "trigger_id": None}


def _answered(client: httpx.Client, base: str, respond: dict, session: str) -> bool:
    """A reader's question, as the page asks it: join, then read the session's stream to the answer."""
    data = [None] * len(respond["inputs"])
    data[0] = QUESTION
    if client.post(base + "/gradio_api/queue/join", json=_body(respond, data, session)).status_code != 200:
        return False
    with client.stream("GET", base + "/gradio_api/queue/data", params={"session_hash": session}) as r:
        if r.status_code != 200:
            return False
        for line in r.iter_lines():
            if '"process_completed"' in line:
                return json.loads(line.removeprefix("data:"))["success"] is True
    return False


def _read_to_end(s: socket.socket, seconds: float) -> bytes | None:
    """What the server sent on `s` when it ends the response within `seconds` (the chunked body's last
    chunk, or EOF); None when it is still open then."""
    s.settimeout(seconds)
    deadline, seen = time.monotonic() + seconds, b""
    try:
        while time.monotonic() < deadline:
            data = s.recv(65536)
            seen += data
            if not data or seen.endswith(b"0\r\n\r\n"):
                return seen
    except (socket.timeout, OSError):
        return None
    return None


def _last_event(raw: bytes) -> str:
    """The `msg` of the last server-sent event in a raw chunked response."""
    events = [line for line in raw.decode(errors="replace").splitlines() if line.startswith("data:")]
    return json.loads(events[-1].removeprefix("data:"))["msg"] if events else ""


def test_r195_heartbeats_from_many_addresses_leave_answers_a_way_through(live):
    """R195 (open since R189: "that many addresses together still can"): 12 addresses each join sessions and
    hold their heartbeats until refused (11, 6, 3, 3 of them); then 5 readers, each from its own address, ask a question.
    Heartbeats never take the slots kept for answers, so the attackers hold at most 23 of the 30 and every
    reader is answered. Before (the same script at cap 40, 40 addresses): 5 addresses held all 30 slots
    (15, 7, 4, 3, 1) and 0 of 10 readers got an answer: each reader's `queue/data` was a 503."""
    base, port, _log = live
    events = _events(base)
    noinput = next(d for d in events.values() if d["inputs"] == [])
    held: list[socket.socket] = []
    try:
        for a in range(12):
            address = f"127.0.0.{a + 2}"
            with _client(address) as c:
                for i in range(16):
                    session = f"r195a{a}x{i}"
                    assert c.post(base + "/gradio_api/queue/join", json=_body(noinput, [], session)).status_code == 200
                    s = _stream(port, f"/gradio_api/heartbeat/{session}", address)
                    if stream_status(s) != 200:
                        s.close()
                        break
                    held.append(s)
        assert 20 <= len(held) <= 23, len(held)  # 30 slots less the 7 kept for answers
        answered = 0
        for r in range(5):
            with _client(f"127.0.0.{100 + r}") as reader:
                answered += _answered(reader, base, events["respond"], f"r195reader{r}")
        assert answered == 5
    finally:
        for s in held:
            s.close()
    time.sleep(0.5)


def test_r195_an_answer_stream_lives_only_while_it_has_something_to_answer(live):
    """R195: a `queue/data` stream for a session whose events have all been read (it would wait for ever:
    Gradio closes it only after an answer), and of two opened while one answer was unread the one that did
    not get it, is ended by the server once idle for heartbeat_wait_s (10 s) across Gradio's 10 s checks. It
    is not refused at open: a CI run through the proxy met a page that opened it just before its join landed. Before: both were a 200 and
    the spare one stayed open for as long as the client kept it, so 40 addresses held 30 streams this way
    (readers answered 0/10; now 2 of 469 were still open 12 s later, and 10/10). A session whose client left
    mid-answer has nothing to answer either."""
    base, port, _log = live
    noinput = next(d for d in _events(base).values() if d["inputs"] == [])
    with _client("127.0.0.60") as c:
        assert c.post(base + "/gradio_api/queue/join", json=_body(noinput, [], "r195idle")).status_code == 200
        with c.stream("GET", base + "/gradio_api/queue/data", params={"session_hash": "r195idle"}) as r:
            assert r.status_code == 200 and any("close_stream" in line for line in r.iter_lines())
        assert c.post(base + "/gradio_api/queue/join", json=_body(noinput, [], "r195pair")).status_code == 200
    # not refused at open (the page may open it just before its join lands), but ended once idle for
    # heartbeat_wait_s across Gradio's 10 s checks
    idle = _stream(port, "/gradio_api/queue/data?session_hash=r195idle", "127.0.0.60")
    pair = [_stream(port, "/gradio_api/queue/data?session_hash=r195pair", "127.0.0.60") for _ in range(2)]
    try:
        assert [stream_status(s) for s in [idle, *pair]] == [200, 200, 200]
        ended = [_read_to_end(s, 40) for s in [idle, *pair]]
        assert all(raw is not None for raw in ended)
        # ended with Gradio's own close_stream: the page's client marks its stream closed only on that, and
        # one ended without it never opened another, so the tab's later answers were all lost (a CI run)
        assert [_last_event(raw) for raw in ended] == ["close_stream"] * 3
    finally:
        for s in [idle, *pair]:
            s.close()
    # a client that leaves while its answer runs: Gradio drops the answer but keeps the event's id for the
    # session, which looked like "an answer to come" and let a later stream wait for ever (3 of 6 sessions
    # in the attacker's run); now such a stream is refused or ends
    respond = _events(base)["respond"]
    data = [None] * len(respond["inputs"])
    data[0] = QUESTION
    for n in range(3):
        assert httpx.post(base + "/gradio_api/queue/join", json=_body(respond, data, f"r195left{n}"), timeout=30).status_code == 200
        s = _stream(port, f"/gradio_api/queue/data?session_hash=r195left{n}")
        assert stream_status(s) == 200
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.close()
    time.sleep(2)
    for n in range(3):
        r = httpx.get(base + "/gradio_api/queue/data", params={"session_hash": f"r195left{n}"}, timeout=15)
        assert r.status_code in (200, 404, 409), r.text[:200]  # an answer still queued, a session gone, or none
    assert httpx.get(base + "/healthz", timeout=10).status_code == 200


def test_r196_a_one_choice_dropdown_takes_no_list(live):
    """R196: Gradio's dropdown checks each item of a list against its choices even when it takes one value,
    so `save_it` with the section `["04-08#intro"]` (or 17,000 copies of a choice) was accepted and its
    handler met a list where it reads a string: an AttributeError traceback (~3 kB) on stderr per event, 10
    in the attacker's run. Now a 422 with one line at the join, and the log has no traceback (the fixture
    checks the whole log when the server stops); a real section still saves."""
    base, _port, log = live
    save = _events(base)["save_it"]
    for n, section in enumerate([["04-08#intro"], ["04-08#notes"] * 17_000, [["04-08#intro"]]]):
        r = httpx.post(base + "/gradio_api/queue/join", json=_body(save, [section, "note", "zh"], f"r196x{n}"), timeout=30)
        assert r.status_code == 422 and r.json() == {
            "detail": f"input 0 of event {save['id']} is not one of its choices (reload the page)"}, r.text[:200]
    with _client("127.0.0.61") as c:
        r = c.post(base + "/gradio_api/queue/join", json=_body(save, ["04-08#intro", "a real note", "zh"], "r196ok"))
        assert r.status_code == 200
        with c.stream("GET", base + "/gradio_api/queue/data", params={"session_hash": "r196ok"}) as s:
            done = next(json.loads(line.removeprefix("data:")) for line in s.iter_lines() if "process_completed" in line)
        assert done["success"] is True
    time.sleep(0.5)
    assert "Traceback" not in log.read_text(errors="replace")


@pytest.mark.reliability("R196")
def test_many_valued_choices_take_at_most_one_item_per_choice():
    """A checkbox group or multiselect dropdown takes a list, but no longer than its choices (Gradio checks
    every item against every choice); a radio or a one-choice dropdown never takes one."""
    import gradio as gr

    from s2r_tutor.web.queueguard import _many_valued

    choices = ["a", "b", "c"]
    assert _many_valued(gr.CheckboxGroup(choices), ["a", "c"])
    assert not _many_valued(gr.CheckboxGroup(choices), ["a"] * 4)
    assert _many_valued(gr.Dropdown(choices, multiselect=True), ["b"])
    assert not _many_valued(gr.Dropdown(choices), ["a"])
    assert not _many_valued(gr.Radio(choices), ["a"])


def test_r197_a_body_of_many_json_containers_is_refused_before_it_is_parsed(live):
    """R197: a chat event (or Gradio's cancel and reset) of 240 kB of empty lists was parsed whole on the
    event loop, by the guard and again by Gradio: 385 ms per join against 17 ms for a normal one (cancel
    and reset: 280 ms, a 422 from FastAPI), and 4 clients sending them kept `/healthz` at a median of
    303 ms (max 1.1 s). Now the guard counts JSON arrays and objects on the bytes (strings left out) and
    refuses past `max_event_containers` (2,000): 422 in ~3 ms, and /healthz stayed at 11 ms under the
    same flood. A real kept conversation (60 messages and their records) is far below the limit and still
    joins."""
    from s2r_tutor.settings import Settings
    from s2r_tutor.web.chat import SAVED_MESSAGES, saved_conversation
    from s2r_tutor.web.queueguard import _containers

    base, _port, _log = live
    events = _events(base)
    limit = Settings().max_event_containers
    refused = {"detail": f"the body holds more than {limit} JSON arrays and objects"}
    keep = events["keep_conversation"]
    for path, body in [("/gradio_api/queue/join", _body(keep, [[[]] * 60_000, None, None], "r197x")),
                       ("/gradio_api/queue/join", _body(keep, [json.loads("[" * 11 + "]" * 11)] * 300, "r197y")),
                       ("/gradio_api/cancel", {"session_hash": "r197x", "fn_index": 0, "event_id": "e", "p": [{}] * 60_000}),
                       ("/gradio_api/reset", [[]] * 60_000)]:
        r = httpx.post(base + path, content=json.dumps(body), headers={"content-type": "application/json"}, timeout=30)
        assert r.status_code == 422 and r.json() == refused, (path, r.status_code, r.text[:200])
    # brackets inside strings are text, not containers: a question full of them still runs
    with _client("127.0.0.62") as reader:
        assert _answered(reader, base, events["respond"], "r197q") is True
        data = [None] * len(events["respond"]["inputs"])
        data[0] = "[[{" * 1000
        assert reader.post(base + "/gradio_api/queue/join", json=_body(events["respond"], data, "r197b")).status_code == 200
    # the largest conversation the page keeps: well within the limit
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": "答「域随机化」[1](#04-08) " * 40}
                for i in range(SAVED_MESSAGES)]
    records = {str(i): {"id": f"id{i}", "question": "q", "answer": "a", "intent": "define", "backend": "template",
                        "citations": ["04-08#intro", "04-08#summary", "04-08#notes"], "sig": "0" * 64}
               for i in range(1, SAVED_MESSAGES, 2)}
    kept = saved_conversation(messages, [{"q": "q", "topic": ["a"]}] * 10, records)
    body = _body(events["restore"], [kept, None], "r197kept")
    assert _containers(json.dumps(body).encode(), limit) < limit / 4
    assert httpx.post(base + "/gradio_api/queue/join", json=body, timeout=30).status_code == 200
