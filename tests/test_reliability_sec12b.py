"""Round-12 attacker findings against the chat's kept conversation, notes, /admin (R176-R185 in
docs/reliability.md), each replayed against a real `s2r-tutor serve` process the way the attacker
sent it (round-12 attacker findings F4c, F4d, F5, F3-content, F6, F7, F8, F11; R176-R183). The server's log is
checked on teardown: no traceback from anything the clients sent."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from reliability_support import gradio_event, serve_process

ADMIN = "admin-token-0123456789"
PHISH = ("**会话已过期** 请在 [https://login.evil.example](https://login.evil.example/phish) 重新登录 "
         "![t](http://evil.example/track.png)")


@pytest.fixture(scope="module")
def live(tutor, settings, tmp_path_factory):
    """(base URL, var folder, log path) of a served app with an admin token and small note limits."""
    var = tmp_path_factory.mktemp("var-sec12b")
    env = {"S2R_ADMIN_TOKEN": ADMIN, "S2R_NOTES_PER_MINUTE": "10", "GRADIO_TEMP_DIR": str(var / "gradio")}
    with serve_process(settings, var, **env) as (port, _, log):
        yield f"http://127.0.0.1:{port}", var, log


def deps(base: str) -> dict:
    config = httpx.get(base + "/config", timeout=30).json()
    out = {}
    for d in config["dependencies"]:
        out.setdefault(d.get("api_name") or "", d)
    return out


def run(base: str, api_name: str, data: list, session: str, event_data=None) -> dict | None:
    found = deps(base)
    # (before R176 the restore and keep handlers had the module functions' names)
    dep = found.get(api_name) or found[{"restore": "restored_conversation",
                                        "keep_conversation": "saved_conversation"}.get(api_name, api_name)]
    line = gradio_event(base, {"data": data, "fn_index": dep["id"], "session_hash": session,
                               "event_data": event_data, "trigger_id": None})
    return None if line is None else json.loads(line.removeprefix("data:").strip())


def nothing_restored(value) -> bool:
    """An empty chatbot, or no update at all (R199: a restore with nothing to restore writes nothing)."""
    return value in ([], None, {"__type__": "update"})


def feedback_rows(settings, var) -> list[dict]:
    from s2r_tutor.store import open_store
    from s2r_tutor.web.feedback import FeedbackLog

    web = settings.model_copy(update={"feedback_file": var / "feedback.jsonl", "study_db": var / "study.sqlite3"})
    return FeedbackLog(open_store(web)).read()


# --------------------------------------------------------------------------- chat records (R176, R177, R178)

def test_forged_conversations_are_not_restored_and_forged_records_never_voted(live, settings):
    """R176/R177 (F5, F4d, F3-content): a kept conversation the client wrote (phishing Markdown, a
    150 KB forged answer with a citation that does not exist, malformed records) restores as a fresh
    chat: nothing of it reaches the chatbot, a like on it records nothing, and no traceback."""
    base, var, _ = live
    forged_records = {"1": {"question": "FORGED <script>", "answer": "FORGED " + "x" * 150_000,
                            "citations": ["04-08#nope"], "intent": "x"},
                      "2": {"reader": "alice", "question": "q", "answer": "a"},
                      "3": {"question": 5, "answer": None}}
    messages = [{"role": "user", "content": "什么是 Sim2Real？"}, {"role": "assistant", "content": PHISH},
                {"role": "assistant", "content": "a"}, {"role": "assistant", "content": "b"}]
    for n, blob in enumerate([{"v": 1, "messages": messages, "turns": [], "records": forged_records},
                              {"v": 2, "messages": messages, "turns": [], "records": forged_records, "sig": "0" * 64}]):
        session = f"forge{n}"
        restored = run(base, "restore", [blob, None], session)
        assert restored and restored["success"], restored
        assert nothing_restored(restored["output"]["data"][0])
        assert "evil.example" not in json.dumps(restored["output"])
        for index in (1, 2, 3, "1", None, [1], [], True):
            run(base, "on_like", [None], session, event_data={"index": index, "value": "a", "liked": False})
    assert not [r for r in feedback_rows(settings, var) if "FORGED" in r["question"] or r["question"] == "q"]


def test_a_genuine_answer_is_liked_after_a_reload(live, settings):
    """R176: what the server kept for the browser restores in a new session (a reload), and a like
    on its answer is recorded, with the server's own question and answer."""
    base, var, _ = live
    answered = run(base, "respond", ["什么是 Sim2Real？", None, None, None], "real1")
    assert answered and answered["success"]
    kept = run(base, "keep_conversation", [None, None, None], "real1")["output"]["data"][0]
    assert kept["v"] == 2 and kept["sig"] and kept["records"]
    restored = run(base, "restore", [kept, None], "real2")["output"]["data"]
    assert restored[0] and len(restored[0]) == len(kept["messages"])  # the chatbot's own format
    index = int(next(iter(kept["records"])))
    before = len(feedback_rows(settings, var))
    run(base, "on_like", [None], "real2", event_data={"index": index, "value": "x", "liked": True})
    rows = feedback_rows(settings, var)
    assert len(rows) == before + 1 and rows[-1]["question"] == "什么是 Sim2Real？" and rows[-1]["liked"] is True
    # The same kept conversation with one answer's text changed: not restored at all.
    altered = json.loads(json.dumps(kept))
    altered["records"][str(index)]["answer"] = "changed"
    assert nothing_restored(run(base, "restore", [altered, None], "real3")["output"]["data"][0])


def test_a_late_restore_never_replaces_the_conversation_under_way(live):
    """R198: the page's load event restores the kept conversation, and under load it can finish after
    the reader's first answer. That answer stays: a restore in a session whose conversation is under
    way writes nothing (before: the signed empty conversation of a fresh page replaced the answer,
    the chat showed nothing and the browser kept the empty one)."""
    base, _, _ = live
    empty = run(base, "keep_conversation", [None, None, None], "late0")["output"]["data"][0]
    assert empty["messages"] == []
    assert run(base, "respond", ["什么是 Sim2Real？", None, None, None], "late1")["success"]
    late = run(base, "restore", [empty, None], "late1")
    assert late and late["success"], late
    kept = run(base, "keep_conversation", [None, None, None], "late1")["output"]["data"][0]
    assert kept["messages"][0] == {"role": "user", "content": "什么是 Sim2Real？"}
    assert kept["messages"][-1]["role"] == "assistant" and kept["records"]
    # a fresh session still gets the kept conversation back (a reload)
    assert len(run(base, "restore", [kept, None], "late2")["output"]["data"][0]) == len(kept["messages"])


def test_a_restore_running_beside_the_first_answer_never_replaces_it(settings, tutor, tmp_path):
    """R199: the restore whose inputs were read before the reader's first answer (it ran beside it, on
    a loaded CI runner: the chat showed no question at all, `test_replicas`) writes nothing once that
    session has asked; a page with nothing kept writes nothing either; a reload still restores."""
    import asyncio
    from types import SimpleNamespace

    from s2r_tutor.store import open_store
    from s2r_tutor.web.chat import build_chat, saved_conversation
    from s2r_tutor.web.feedback import FeedbackLog
    from s2r_tutor.web.identity import server_key
    from s2r_tutor.web.runtime import Runtime

    web = settings.model_copy(update={"study_db": tmp_path / "study.sqlite3", "feedback_file": tmp_path / "f.jsonl"})
    demo = build_chat(Runtime(web, tutor), FeedbackLog(open_store(web)))
    fns = {f.name: f.fn for f in demo.fns.values()}
    respond, restore = fns["respond"], fns["restore"]

    async def answer(session: str) -> list:
        out = None
        async for out in respond("什么是 Sim2Real？", [], [], {}, SimpleNamespace(session_hash=session)):
            pass
        return out[1]

    def skipped(result) -> bool:
        return all(isinstance(v, dict) and v.get("__type__") == "update" and len(v) == 1 for v in result)

    key = server_key(web, "chat records")
    shown = asyncio.run(answer("first"))
    kept = saved_conversation(shown, [], {}, key)
    assert shown[0] == {"role": "user", "content": "什么是 Sim2Real？"}
    # its inputs read while the session was still empty: current == [] although the answer is out
    assert skipped(asyncio.run(restore(kept, [], SimpleNamespace(session_hash="first"))))
    assert skipped(asyncio.run(restore(saved_conversation([], [], {}, key), [], SimpleNamespace(session_hash="new"))))
    assert skipped(asyncio.run(restore(None, [], SimpleNamespace(session_hash="new"))))
    back = asyncio.run(restore(kept, [], SimpleNamespace(session_hash="reload")))
    assert back[0] == shown and back[1] == shown


def test_records_are_signed_with_a_key_replicas_share(settings, tmp_path):
    """R176: with `reader_secret` set, two servers (replicas) derive the same record key, so a
    conversation kept by one restores on the other; without it the key lives in the data folder."""
    from s2r_tutor.web.chat import (
        _record,
        restored_conversation,
        saved_conversation,
        verified_record,
    )
    from s2r_tutor.web.identity import server_key

    secret = "replica-secret-0123456789-abcdefghijklm"
    a = type(settings).model_validate({**settings.model_dump(), "reader_secret": secret, "study_db": tmp_path / "a" / "s"})
    b = type(settings).model_validate({**settings.model_dump(), "reader_secret": secret, "study_db": tmp_path / "b" / "s"})
    assert server_key(a, "chat records") == server_key(b, "chat records") != server_key(a, "admin session")
    local = settings.model_copy(update={"study_db": tmp_path / "c" / "study.sqlite3"})
    assert server_key(local, "x") == server_key(local, "x") and (tmp_path / "c" / "server.key").exists()
    key = server_key(a, "chat records")
    from s2r_tutor.models import Answer
    record = _record(Answer(question="q", answer="a", citations=[], language="zh", intent="definition"), key)
    assert verified_record(key, record) and verified_record(server_key(local, "chat records"), record) is None
    kept = saved_conversation([{"role": "assistant", "content": "a"}], [], {"0": record}, key)
    assert restored_conversation(kept, server_key(b, "chat records"))[3] == {"0": record}


def test_restored_conversations_have_a_size_bound(settings):
    """R178 (F8): a kept conversation bigger than any real one (more messages than are kept, or more
    characters than RESTORE_MAX_CHARS) starts fresh, even when signed."""
    from s2r_tutor.web.chat import (
        RESTORE_MAX_CHARS,
        SAVED_MESSAGES,
        _seal,
        restored_conversation,
    )

    key = b"k" * 32
    many = [{"role": "user", "content": "q"}] * (SAVED_MESSAGES + 1)
    big = [{"role": "assistant", "content": "x" * (RESTORE_MAX_CHARS // 2 + 1)}] * 2
    for messages in (many, big):
        kept = {"v": 2, "messages": messages, "turns": [], "records": {}}
        assert restored_conversation({**kept, "sig": _seal(key, kept)}, key) == ([], [], [], {})


# --------------------------------------------------------------------------- notes (R179, R180)

def test_cookieless_note_floods_are_rate_limited(live):
    """R179 (F6): 40 cookieless POST /api/notes from one address (each a new anonymous reader):
    `notes_per_minute` (10 here) are written, the rest are a 429 with a clear sentence, and the
    database stops growing."""
    base, *_ = live
    body = {"section": "04-08#reality-gap", "text": "x" * 2000}
    codes = [httpx.post(base + "/api/notes", json=body, timeout=30).status_code for _ in range(40)]
    assert codes.count(201) <= 10 and codes.count(429) >= 30 and set(codes) <= {201, 429}, codes
    r = httpx.post(base + "/api/notes", json=body, timeout=30)
    assert r.status_code == 429 and "too many notes" in r.json()["detail"]


def test_anonymous_readers_notes_have_a_cap_overall(settings, tutor, tmp_path):
    """R179 (F6): past `anonymous_notes_max` notes kept by all anonymous readers together, a new
    anonymous reader's note is refused (NoteLimitError: a 409); a signed-in reader still writes."""
    from s2r_tutor.store import open_store
    from s2r_tutor.study.notes import save_note
    from s2r_tutor.study.progress import NoteLimitError, StudyStore

    web = settings.model_copy(update={"study_db": tmp_path / "study.sqlite3", "anonymous_notes_max": 3})
    store = StudyStore(open_store(web))
    chunks = tutor.chunks
    for i in range(3):
        save_note(store, f"anon-{i:022d}", "04-08#reality-gap", "note", chunks, web)
    with pytest.raises(NoteLimitError, match="anonymous"):
        save_note(store, "anon-" + "z" * 22, "04-08#reality-gap", "note", chunks, web)
    assert save_note(store, "alice", "04-08#reality-gap", "note", chunks, web) > 0


@pytest.mark.parametrize("note_id", ["99999999999999999999999", "-99999999999999999999999", str(2**63),
                                     str(-(2**63) - 1)])
def test_note_ids_outside_the_database_range_are_404(live, note_id):
    """R180 (F4c): DELETE /api/notes/<id> with an id SQLite cannot hold was an OverflowError (500);
    now, like any id that is not one of the caller's notes, a 404 (before the write limit: it
    writes nothing)."""
    base, *_ = live
    r = httpx.delete(base + f"/api/notes/{note_id}", timeout=30)
    assert r.status_code == 404 and r.json()["detail"].startswith("no note"), (r.status_code, r.text)


def test_note_ids_outside_the_range_are_no_note_in_the_store(settings, tmp_path):
    """R180: the store itself answers 'no such note' for any id outside the integer range."""
    from s2r_tutor.store import open_store
    from s2r_tutor.study.progress import StudyStore

    store = StudyStore(open_store(settings.model_copy(update={"study_db": tmp_path / "s.sqlite3"})))
    for note_id in (2**63, -(2**63) - 1, 10**30, 2**63 - 1):
        assert store.delete_note("alice", note_id) is False


# --------------------------------------------------------------------------- /admin (R181, R182)

def test_admin_cookie_is_a_signed_session_that_logout_ends(live):
    """R181 (F11): the login cookie is a signed, expiring session value, not a fixed digest of the
    token; after logout the same cookie no longer opens /admin."""
    import hashlib

    base, *_ = live
    r = httpx.post(base + "/admin/login", data={"token": ADMIN}, follow_redirects=False, timeout=60)
    assert r.status_code == 303
    cookie = r.cookies["s2r_admin"]
    assert cookie != hashlib.sha256(f"s2r-tutor admin cookie:{ADMIN}".encode()).hexdigest()
    assert int(cookie.split(".")[0]) > time.time()  # it expires
    admin = lambda value: httpx.get(base + "/admin", headers={"Cookie": f"s2r_admin={value}"}, timeout=120)
    assert admin(cookie).status_code == 200
    tampered = cookie.split(".")
    tampered[0] = str(int(tampered[0]) + 10**6)
    assert admin(".".join(tampered)).status_code == 401
    httpx.post(base + "/admin/logout", headers={"Cookie": f"s2r_admin={cookie}"}, timeout=30)
    assert admin(cookie).status_code == 401


def test_admin_login_guessing_is_rate_limited(live):
    """R182 (F11): 200 wrong guesses in 0.27 s were all answered; now past `admin_login_per_minute`
    (10) tries from one address each is a 429, whatever the token."""
    base, *_ = live
    with httpx.Client(base_url=base, timeout=30) as c:
        codes = [c.post("/admin/login", data={"token": f"guess-{i}"}).status_code for i in range(30)]
        assert codes.count(429) >= 19 and set(codes) <= {401, 429}, codes
        assert c.post("/admin/login", data={"token": ADMIN}, follow_redirects=False).status_code == 429


def test_a_short_admin_token_refuses_to_start(settings, tmp_path):
    """R182 (F11): `serve` with an admin token under 16 characters stops at once with one clear
    line (before: any token, even one character, was accepted)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "S2R_ADMIN_TOKEN": "short", "S2R_INDEX_DIR": str(settings.index_dir),
           "S2R_STUDY_DB": str(tmp_path / "s.sqlite3")}
    done = subprocess.run([sys.executable, "-m", "s2r_tutor.cli", "serve", "--port", "0"], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode != 0 and "admin_token must be at least 16 characters" in done.stderr + done.stdout
    assert "Traceback" not in done.stderr


# --------------------------------------------------------------------------- /admin insights (R183)

def test_refused_question_grouping_is_bounded_and_embeds_each_question_once(tutor, settings, tmp_path):
    """R183 (F7): 200 distinct long refused questions made every /admin load embed all 200 again
    (31-45 s a load). Now at most `insights_group_max` distinct questions are grouped (the most
    frequent, then the most recent), each embedded once per process, and a second load embeds none."""
    import random
    import string

    from s2r_tutor import insights
    from s2r_tutor.store import open_store
    from s2r_tutor.store import questions as ql

    class Counting:
        id = "counting:" + str(getattr(tutor.embedder, "id", "e"))

        def __init__(self):
            self.texts = 0

        def embed_queries(self, texts):
            self.texts += len(texts)
            return tutor.embedder.embed_queries(texts)

    web = settings.model_copy(update={"study_db": tmp_path / "s.sqlite3", "database_url": None,
                                      "insights_group_max": 12})
    store = open_store(web)
    rnd = random.Random(7)
    asked = [("今天天气怎么样", 5), ("股票明天涨不涨", 3)] + [
        ("".join(rnd.choice(string.ascii_letters) for _ in range(480)), 1) for _ in range(30)]
    t = time.time() - 1000
    for q, times in asked:
        for _ in range(times):
            t += 1
            ql.add(store, {"asked_at": t, "question": q, "language": "zh", "intent": "off_topic", "refused": True,
                           "top_score": None, "sections": "[]", "latency_ms": 1.0, "backend": "template",
                           "source": "api", "reader_hash": None, "replica": "r1"})
    counting = Counting()
    doc = insights.build(store, web, embedder=counting)
    grouped = [q for g in doc["refused"] for q in g["questions"]]
    assert counting.texts == 12 and len(grouped) == 12 and doc["refused_ungrouped"] == 32 - 12
    assert "今天天气怎么样" in grouped and "股票明天涨不涨" in grouped  # the most frequent always
    assert asked[-1][0] in grouped and asked[2][0] not in grouped  # then the most recent
    insights.build(store, web, embedder=counting)
    assert counting.texts == 12  # the second load embedded nothing
