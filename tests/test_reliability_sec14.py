"""Round-13 re-attack findings still open after round 13 (docs/reliability.md "What is not covered":
N1, N5, N3), replayed against a live `s2r-tutor serve` process on loopback and then closed (R185-R187).
Several client addresses come from one loopback socket the way they do behind the documented proxy:
uvicorn trusts 127.0.0.1's `X-Forwarded-For` (its default FORWARDED_ALLOW_IPS), so each header value
is a client address to the app, exactly as the rest of the app reads it."""

from __future__ import annotations

import socket
import time

import httpx
import pytest
from reliability_support import open_stream, queue_join, serve_process, stream_status

CAP = 40
ADMIN = "admin-token-sec14-0123456789"
ATTACKER = "203.0.113.66"


@pytest.fixture(scope="module")
def live(settings, tmp_path_factory):
    """(base URL, port, var folder, log path) of a server capped at 40 connections, with /admin on."""
    var = tmp_path_factory.mktemp("var-sec14")
    env = {"GRADIO_TEMP_DIR": str(var / "gradio"), "S2R_MAX_CONNECTIONS": str(CAP), "S2R_HEADER_TIMEOUT_S": "3",
           "S2R_HEARTBEAT_WAIT_S": "2", "S2R_ADMIN_TOKEN": ADMIN}
    with serve_process(settings, var, **env) as (port, _proc, log):
        yield f"http://127.0.0.1:{port}", port, var, log


# -- R185: one client address takes every stream slot (N1) ---------------------------------------



def stream_attack(base: str, port: int, real: int = 10) -> dict:
    """The round-13 N1 script: one address joins 30 sessions with the no-input event and holds their
    heartbeats, then opens heartbeats on 30 unknown hashes; then `real` readers, each from their own
    address, join and open their heartbeat. Returns the status counts of each group (sockets closed)."""
    deps = httpx.get(base + "/config", timeout=30).json()["dependencies"]
    no_inputs = next(d["id"] for d in deps if d["inputs"] == [])
    tag = str(time.monotonic_ns())[-6:]
    held: list[socket.socket] = []
    try:
        atk = [f"n1atk{tag}x{i}" for i in range(30)]
        assert all(queue_join(base, no_inputs, sh, ATTACKER) == 200 for sh in atk)
        held += [open_stream(port, f"/gradio_api/heartbeat/{sh}", ATTACKER) for sh in atk]
        attacker = [stream_status(s) for s in held]
        unknown = [open_stream(port, f"/gradio_api/heartbeat/n1unk{tag}x{i}", ATTACKER) for i in range(30)]
        held += unknown
        time.sleep(0.3)
        # an unknown hash is answered at once when refused (503), else after heartbeat_wait_s (404)
        unknown_status = [stream_status(s) for s in unknown]
        readers = [f"n1real{tag}x{i}" for i in range(real)]
        for i, sh in enumerate(readers):
            assert queue_join(base, no_inputs, sh, f"198.51.100.{i + 1}") == 200
        mine = [open_stream(port, f"/gradio_api/heartbeat/{sh}", f"198.51.100.{i + 1}") for i, sh in enumerate(readers)]
        held += mine
        real_status = [stream_status(s) for s in mine]
        health = httpx.get(base + "/healthz", timeout=30).status_code
    finally:
        for s in held:
            s.close()
    count = lambda xs: {str(k): xs.count(k) for k in sorted(set(xs), key=str)}
    return {"attacker": count(attacker), "attacker_unknown": count(unknown_status), "real": count(real_status),
            "healthz": health}


def test_one_address_cannot_take_every_stream_slot(live):
    """R185 (round-13 re-attack N1): at a cap of 40 connections (30 stream slots), one address that
    joins 30 sessions and holds their heartbeats, then opens 30 heartbeats on unknown hashes, gets its
    share (15; 11 of the 23 heartbeat slots since R195) and a 503 for the rest; 10 real readers from other addresses then all get their stream
    (before: the attacker held all 30 slots and every real reader's stream was a 503)."""
    from s2r_tutor.web.streams import max_streams, per_client_streams

    base, port, *_ = live
    assert max_streams(CAP, 0.25) == 30 and per_client_streams(30, 0.5) == 15
    got = stream_attack(base, port, real=10)
    # its share of the 23 slots heartbeats may take (R195: 7 of the 30 are kept for answers); 15 before
    assert got["attacker"] == {"200": 11, "503": 19}, got
    # refused at once (503), or, past the 40 connections its 60 sockets try to hold, closed unanswered
    assert set(got["attacker_unknown"]) <= {"503", "None"} and got["attacker_unknown"].get("503", 0) >= 20, got
    assert got["real"] == {"200": 10}, got
    assert got["healthz"] == 200
    time.sleep(0.5)  # the slots are free again once the sockets close
    again = open_stream(port, "/gradio_api/heartbeat/nosuchhash", ATTACKER)
    assert stream_status(again) == 404  # waited heartbeat_wait_s for a session, not refused
    again.close()


def test_a_proxy_address_is_shared_not_capped(live):
    """R185, the proxy case (N4): requests that reach the server with the address of a proxy that
    passes no client address (loopback by default, `stream_shared_clients`) stand for many readers:
    only the total stream cap applies to them, so 20 readers behind it (over one address's share of 15)
    all get their streams; a client behind the same proxy can still fill the total (documented)."""
    base, port, *_ = live
    deps = httpx.get(base + "/config", timeout=30).json()["dependencies"]
    no_inputs = next(d["id"] for d in deps if d["inputs"] == [])
    sessions = [f"n4proxy{i}" for i in range(20)]
    assert all(queue_join(base, no_inputs, sh) == 200 for sh in sessions)
    held = [open_stream(port, f"/gradio_api/heartbeat/{sh}") for sh in sessions]
    try:
        assert [stream_status(s) for s in held] == [200] * 20
    finally:
        for s in held:
            s.close()


def _heartbeats_from(base: str, port: int, addresses: list[str], per_address: int, tag: str) -> dict[str, int]:
    """Join `per_address` sessions from each address and hold their heartbeats; the status counts."""
    deps = httpx.get(base + "/config", timeout=30).json()["dependencies"]
    no_inputs = next(d["id"] for d in deps if d["inputs"] == [])
    held: list[socket.socket] = []
    try:
        for a, address in enumerate(addresses):
            sessions = [f"{tag}{a}x{i}" for i in range(per_address)]
            assert all(queue_join(base, no_inputs, sh, address) == 200 for sh in sessions)
            held += [open_stream(port, f"/gradio_api/heartbeat/{sh}", address) for sh in sessions]
        statuses = [stream_status(s) for s in held]
    finally:
        for s in held:
            s.close()
    time.sleep(0.5)  # the slots are free again once the sockets close
    return {str(k): statuses.count(k) for k in set(statuses)}


def test_one_client_written_other_ways_or_from_its_ipv6_block_holds_one_share(live):
    """R188 (round-14 re-attack F2): the per-address share was keyed on the address as written, so one
    IPv4 client written three ways (203.0.113.77, ::ffff:203.0.113.77, ::ffff:cb00:714d) held three
    shares, and an IPv6 client could take a share per address of the /64 it holds. Now an IPv4-mapped
    address counts as its IPv4 address and IPv6 addresses count by /64: 30 heartbeats get the one share
    (11 of the 23 heartbeat slots since R195)."""
    from s2r_tutor.web.streams import client_key

    assert {client_key(a) for a in ("203.0.113.77", "::ffff:203.0.113.77", "::ffff:cb00:714d")} == {"203.0.113.77"}
    assert client_key("2001:db8:1::a") == client_key("2001:db8:1::b") != client_key("2001:db8:2::a")
    base, port, *_ = live
    spellings = _heartbeats_from(base, port, ["203.0.113.77", "::ffff:203.0.113.77", "::ffff:cb00:714d"], 10, "r188v4")
    one_share = {"200": 11, "503": 19}  # of the 23 slots heartbeats may take (R195)
    assert spellings == one_share, spellings
    block = _heartbeats_from(base, port, ["2001:db8:1::a", "2001:db8:1::b", "2001:db8:1::c"], 10, "r188v6")
    assert block == one_share, block


# -- R186: an /admin logout on one replica, or before a restart (N5) -----------------------------

def admin_logout_scenario(settings, base: str, var, tmp_path) -> dict:
    """Log in on replica A (`base`), check the cookie on a second replica B on the same store, log out
    on A, then try the cookie on A, on B, and on B restarted. Returns the /admin status of each step."""
    env = {"S2R_ADMIN_TOKEN": ADMIN, "S2R_STUDY_DB": str(var / "study.sqlite3"),
           "S2R_FEEDBACK_FILE": str(var / "feedback.jsonl")}
    admin = lambda url, cookie: httpx.get(url + "/admin", headers={"Cookie": f"s2r_admin={cookie}"},
                                          timeout=120).status_code
    r = httpx.post(base + "/admin/login", data={"token": ADMIN}, follow_redirects=False, timeout=60)
    assert r.status_code == 303
    cookie = r.cookies["s2r_admin"]
    out = {}
    (tmp_path / "b1").mkdir()
    (tmp_path / "b2").mkdir()
    with serve_process(settings, tmp_path / "b1", GRADIO_TEMP_DIR=str(tmp_path / "g1"), **env) as (port, _, _log):
        other = f"http://127.0.0.1:{port}"
        out["B before logout"] = admin(other, cookie)
        httpx.post(base + "/admin/logout", headers={"Cookie": f"s2r_admin={cookie}"}, timeout=30)
        out["A after logout"] = admin(base, cookie)
        out["B after logout"] = admin(other, cookie)
    with serve_process(settings, tmp_path / "b2", GRADIO_TEMP_DIR=str(tmp_path / "g2"), **env) as (port, _, _log):
        restarted = f"http://127.0.0.1:{port}"
        out["B restarted"] = admin(restarted, cookie)
        fresh = httpx.post(restarted + "/admin/login", data={"token": ADMIN}, follow_redirects=False, timeout=60)
        out["a new login on B"] = admin(restarted, fresh.cookies["s2r_admin"])
    return out


def test_admin_logout_holds_on_every_replica_and_across_a_restart(live, settings, tmp_path):
    """R186 (round-13 re-attack N5): a logged-out /admin cookie is refused by the replica that served
    the logout, by another replica on the same store, and by a replica started after the logout (before:
    the revocation lived in the one process's memory, so B and any restarted replica still let it in
    until it expired, `admin_session_s`); a new login still works. The ended-session rows expire."""
    base, _port, var, _log = live
    got = admin_logout_scenario(settings, base, var, tmp_path)
    assert got == {"B before logout": 200, "A after logout": 401, "B after logout": 401, "B restarted": 401,
                   "a new login on B": 200}, got


def test_ended_admin_sessions_are_bounded(tmp_path):
    """R186: the table of ended sessions keeps a row only until that session would have expired; each
    logout sweeps the expired ones, and a store that cannot be read refuses the cookie (no 500)."""
    from pydantic import SecretStr

    from s2r_tutor.settings import Settings
    from s2r_tutor.store import Store
    from s2r_tutor.store.admin import ended_count
    from s2r_tutor.web.admin import Sessions

    store = Store(f"sqlite:///{tmp_path / 's.sqlite3'}")
    now = [1_000_000.0]
    web = Settings(admin_token=SecretStr(ADMIN), admin_session_s=100, study_db=tmp_path / "s.sqlite3")
    sessions = Sessions(web, ADMIN, clock=lambda: now[0], store=store)
    cookies = [sessions.issue() for _ in range(5)]
    for c in cookies:
        sessions.end(c)
    assert ended_count(store) == 5 and not any(sessions.valid(c) for c in cookies)
    restarted = Sessions(web, ADMIN, clock=lambda: now[0], store=store)  # no memory of the logouts
    assert not any(restarted.valid(c) for c in cookies)
    now[0] += 101  # they have all expired: the next logout sweeps them
    later = restarted.issue()
    restarted.end(later)
    assert ended_count(store) == 1 and not restarted.valid(later)
    broken = Sessions(web, ADMIN, clock=lambda: now[0], store=Store(f"sqlite:///{tmp_path / 'no' / 'dir' / 'x'}"))
    (tmp_path / "no").write_text("a file where the folder should be")
    assert broken.valid(broken.issue()) is False


# -- R187: one kept answer voted on again under other sessions (N3) -------------------------------

def _event(base: str, api_name: str, data: list, session: str, event_data=None) -> dict | None:
    import json

    from reliability_support import gradio_event

    found = {d.get("api_name") or "": d for d in httpx.get(base + "/config", timeout=30).json()["dependencies"]}
    line = gradio_event(base, {"data": data, "fn_index": found[api_name]["id"], "session_hash": session,
                               "event_data": event_data, "trigger_id": None})
    return None if line is None else json.loads(line.removeprefix("data:").strip())


def _feedback(var):
    from s2r_tutor.store import Store
    from s2r_tutor.web.feedback import FeedbackLog

    return FeedbackLog(Store(f"sqlite:///{var / 'study.sqlite3'}"))


def replayed_votes(base: str, var, question: str, replays: int = 4) -> tuple[int, int, list[bool]]:
    """A cookieless reader asks, keeps the conversation, likes the answer; the kept conversation is then
    restored in `replays` new sessions (each a new anonymous reader: a reload, or the attacker's replay)
    and liked in each, and disliked in the last. Returns (rows written, votes counted, counted likes)."""
    tag = str(time.monotonic_ns())[-6:]
    first = f"n3ask{tag}"
    assert _event(base, "respond", [question, None, None, None], first)["success"]
    kept = _event(base, "keep_conversation", [None, None, None], first)["output"]["data"][0]
    index = int(next(iter(kept["records"])))
    log = _feedback(var)
    rows_before, counted_before = len(log.read()), len(log.votes())
    like = lambda session, liked: _event(base, "on_like", [None], session,
                                         event_data={"index": index, "value": "x", "liked": liked})
    like(first, True)
    for i in range(replays):
        session = f"n3replay{tag}x{i}"
        restored = _event(base, "restore", [kept, None], session)["output"]["data"]
        assert restored[0] and len(restored[0]) == len(kept["messages"])  # the reload still restores it
        like(session, i < replays - 1)
    mine = [r for r in log.votes() if r["question"] == question]
    return len(log.read()) - rows_before, len(log.votes()) - counted_before, [r["liked"] for r in mine]


def test_a_kept_answer_counts_one_vote_however_often_it_is_restored(live):
    """R187 (round-13 re-attack N3): a cookieless reader's kept conversation, restored under 4 new
    sessions (4 new anonymous readers) and liked in each, counts one vote for its answer; the last
    session's dislike changes that vote rather than adding one (before: 1 + 4 counted votes, 5 likes
    from one answer). The reload itself still restores the conversation and a vote on it still counts."""
    base, _port, var, _log = live
    written, counted, likes = replayed_votes(base, var, "什么是域随机化？", replays=4)
    assert counted == 1 and likes == [False], (written, counted, likes)
    assert written == 2  # the first like, then the change; the 3 repeated likes wrote nothing
