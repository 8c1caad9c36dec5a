"""Each reader's data is their own (issue 13): signed reader tokens, anonymous per-browser ids, the
notes and progress routes, note caps, notes-export cleanup and one vote per answer.

Two real apps on loopback servers: one with `reader_secret` set (small caps, so the limits are
reached in a few requests) and one without. Gradio events are sent the way the page sends them:
`POST /gradio_api/queue/join` (with the page's query string, and the browser's cookie), then the
result is read from `/gradio_api/queue/data`. Case ids (R130-R139) are in docs/reliability.md."""

from __future__ import annotations

import json
import tempfile
import time

import httpx
import jwt
import pytest

from reliability_support import gradio_event
from s2r_tutor.cli import main
from s2r_tutor.study.bank import Question
from s2r_tutor.study.exports import ExportFolder
from s2r_tutor.study.progress import StudyStore
from s2r_tutor.web.feedback import (
    CHANGED,
    LIMITED,
    RECORDED,
    UNCHANGED,
    Feedback,
    FeedbackLog,
    Votes,
)
from s2r_tutor.web.identity import (
    COOKIE,
    ReaderTokenError,
    is_anonymous_id,
    issue_token,
    parse_ttl,
    session_anonymous_id,
    verify_token,
)
from s2r_tutor.web.server import build_app, running

SECRET = "test-secret-0123456789-abcdefghijklmnop"
OTHER_SECRET = "another-secret-0123456789-abcdefghijklm"
SECTION = "04-08#reality-gap"


# --------------------------------------------------------------------------- servers

def with_secret(settings, secret: str, **update):
    """`settings` with `update` and `reader_secret` (validated, so it is a SecretStr as from the env)."""
    return type(settings).model_validate({**settings.model_dump(), **update, "reader_secret": secret})


@pytest.fixture(scope="module")
def signed(settings, tutor, tmp_path_factory):
    """(base url, settings) of an app with a reader secret, 3 notes a reader, 100 characters a note,
    6 votes a minute, and exports kept at most 2 at a time for 2 s, in a temp folder of its own."""
    var = tmp_path_factory.mktemp("var")
    web = with_secret(settings, SECRET, feedback_file=var / "feedback.jsonl", study_db=var / "study.sqlite3",
                      max_notes_per_reader=3, max_note_chars=100, feedback_per_minute=6, notes_exports_kept=2,
                      notes_export_ttl_s=2)
    tmp = tmp_path_factory.mktemp("tmp")
    saved, tempfile.tempdir = tempfile.tempdir, str(tmp)  # the app's export folder lands here
    try:
        with running(build_app(web, tutor)) as url:
            yield url, web, tmp
    finally:
        tempfile.tempdir = saved


@pytest.fixture(scope="module")
def open_app(settings, tutor, tmp_path_factory):
    """(base url, settings) of an app without a reader secret (one person on a laptop)."""
    var = tmp_path_factory.mktemp("var")
    web = settings.model_copy(update={"feedback_file": var / "feedback.jsonl", "study_db": var / "study.sqlite3"})
    with running(build_app(web, tutor)) as url:
        yield url, web


def token(web, reader: str, ttl_s: int = 600, **kw) -> str:
    return issue_token(web, reader, ttl_s, **kw)


def bearer(tok: str) -> dict:
    return {"Authorization": f"Bearer {tok}"}


def event(base: str, api_name: str, data: list, session: str, *, query: str = "", cookies=None,
          event_data=None) -> dict:
    """Send one Gradio event as the page does; its `process_completed` message."""
    config = httpx.get(base + "/config", timeout=30).json()
    dep = next(d for d in config["dependencies"] if d.get("api_name") == api_name)
    body = {"data": data, "fn_index": dep["id"], "session_hash": session, "event_data": event_data,
            "trigger_id": None}
    line = gradio_event(base, body, query=query, cookies=cookies)
    assert line is not None, "the event was refused or never completed"
    return json.loads(line.removeprefix("data:").strip())


def outputs(msg: dict) -> list:
    assert msg.get("success"), msg
    return msg["output"]["data"]


# --------------------------------------------------------------------------- tokens (R130)

def test_token_round_trip_and_every_bad_token_is_refused(settings):
    """R130: a token names its reader; expired, forged, unsigned (alg none), without exp, with an
    anonymous-looking or invalid sub, or garbage is a ReaderTokenError with a one-line reason."""
    web, other = with_secret(settings, SECRET), with_secret(settings, OTHER_SECRET)
    assert verify_token(web, token(web, "alice")) == "alice"
    now = time.time()
    bad = {
        "expired": token(web, "alice", ttl_s=10, now=now - 3600),
        "forged": token(other, "alice"),
        "none": jwt.encode({"sub": "alice", "exp": int(now) + 600}, None, algorithm="none"),
        "no exp": jwt.encode({"sub": "alice"}, SECRET, algorithm="HS256"),
        "anon sub": jwt.encode({"sub": "anon-" + "a" * 22, "exp": int(now) + 600}, SECRET, algorithm="HS256"),
        "bad sub": jwt.encode({"sub": "a b/../c", "exp": int(now) + 600}, SECRET, algorithm="HS256"),
        "garbage": "not.a.token",
        "huge": "x" * 10_000,
    }
    for name, tok in bad.items():
        with pytest.raises(ReaderTokenError) as info:
            verify_token(web, tok)
        assert "\n" not in str(info.value), name
    with pytest.raises(ReaderTokenError, match="expired"):
        verify_token(web, bad["expired"])
    # within the leeway (30 s) a just-expired token still passes: clocks differ a little
    assert verify_token(web, token(web, "alice", ttl_s=10, now=now - 15)) == "alice"
    assert parse_ttl("8h") == 28800 and parse_ttl("90") == 90 and parse_ttl("2d") == 172800
    for ttl in ("0", "-1h", "8x", ""):
        with pytest.raises(ReaderTokenError):
            parse_ttl(ttl)


def test_reader_token_cli(monkeypatch, capsys):
    """R130: `s2r-tutor reader-token ID --ttl 8h` prints a valid token as stdout's last line; without
    a secret, or with one too short (never echoed), a one-line error and a non-zero exit."""
    from s2r_tutor.settings import Settings

    monkeypatch.setenv("S2R_READER_SECRET", SECRET)
    assert main(["reader-token", "alice", "--ttl", "8h"]) == 0
    out = capsys.readouterr().out.strip().splitlines()[-1]
    claims = jwt.decode(out, SECRET, algorithms=["HS256"])
    assert claims["sub"] == "alice" and 8 * 3600 - 60 <= claims["exp"] - time.time() <= 8 * 3600
    assert verify_token(Settings(), out) == "alice"
    monkeypatch.delenv("S2R_READER_SECRET")
    assert main(["reader-token", "alice"]) == 1
    assert "S2R_READER_SECRET" in capsys.readouterr().err
    monkeypatch.setenv("S2R_READER_SECRET", "too-short-secret")
    assert main(["reader-token", "alice"]) == 2
    err = capsys.readouterr().err
    assert "at least 32 bytes" in err and "too-short-secret" not in err


# --------------------------------------------------------------------------- API with a secret (R131, R132)

@pytest.mark.parametrize("route", [("GET", "/api/notes"), ("POST", "/api/notes"), ("GET", "/api/progress"),
                                   ("POST", "/api/ask"), ("GET", "/api/search?q=sim2real")])
def test_api_without_a_valid_token_is_401(signed, route):
    """R131: with a secret set, every /api/ route answers 401 `{"detail": ...}` with a WWW-Authenticate
    challenge for no token, a forged, expired or unsigned one, or an unsigned `?reader=`/`X-Reader-Id`."""
    base, web, _ = signed
    other = with_secret(web, OTHER_SECRET)
    method, path = route
    body = {"section": SECTION, "text": "x"} if path == "/api/notes" else {"question": "什么是 Sim2Real？"}
    tries = {
        "none": {},
        "forged": bearer(token(other, "alice")),
        "expired": bearer(token(web, "alice", ttl_s=1, now=time.time() - 3600)),
        "unsigned": bearer(jwt.encode({"sub": "alice", "exp": int(time.time()) + 600}, None, algorithm="none")),
        "header id": {"X-Reader-Id": "alice"},
        "basic": {"Authorization": "Basic YWxpY2U6eA=="},
    }
    for name, headers in tries.items():
        sep = "&" if "?" in path else "?"
        r = httpx.request(method, base + path + (sep + "reader=alice" if name == "none" else ""), headers=headers,
                          json=body if method == "POST" else None, timeout=60)
        assert r.status_code == 401, (name, r.status_code, r.text)
        assert set(r.json()) == {"detail"} and r.json()["detail"], name
        assert r.headers["www-authenticate"].startswith("Bearer"), name
    r = httpx.request(method, base + path, headers=bearer(token(web, "carol")),
                      json=body if method == "POST" else None, timeout=60)
    assert r.status_code in (200, 201), r.text


def test_reader_a_notes_are_never_visible_to_anyone_else(signed):
    """R132: alice's note is in alice's list only: not bob's, not with `?reader=alice` or
    `X-Reader-Id: alice` beside bob's token, and nothing without a valid token (401)."""
    base, web, _ = signed
    with httpx.Client(base_url=base, timeout=60) as c:
        r = c.post("/api/notes", json={"section": SECTION, "text": "alice 的秘密笔记"}, headers=bearer(token(web, "alice")))
        assert r.status_code == 201, r.text
        mine = r.json()
        assert mine["reader"] == "alice" and any(n["text"] == "alice 的秘密笔记" for n in mine["notes"])
        assert mine["notes"][-1]["chunk_id"] == SECTION and mine["notes"][-1]["section"]
        bob = bearer(token(web, "bob"))
        for params, headers in [({}, bob), ({"reader": "alice"}, bob), ({}, {**bob, "X-Reader-Id": "alice"})]:
            r = c.get("/api/notes", params=params, headers=headers)
            assert r.status_code == 200 and r.json()["reader"] == "bob"
            assert "alice 的秘密笔记" not in r.text
        r = c.get("/api/notes", params={"reader": "alice"})
        assert r.status_code == 401 and "alice 的秘密笔记" not in r.text


def test_a_note_is_deleted_only_by_its_reader(signed):
    """R132: `DELETE /api/notes/{id}` removes the caller's own note; another reader's id (with or
    without `?reader=`), no token, or an unknown id is a 404 / 401 and deletes nothing."""
    base, web, _ = signed
    with httpx.Client(base_url=base, timeout=60) as c:
        fay = bearer(token(web, "fay"))
        notes = c.post("/api/notes", json={"section": SECTION, "text": "fay 的笔记"}, headers=fay).json()["notes"]
        note_id = notes[-1]["id"]
        gus = bearer(token(web, "gus"))
        assert c.delete(f"/api/notes/{note_id}", headers=gus).status_code == 404
        assert c.delete(f"/api/notes/{note_id}", params={"reader": "fay"}, headers=gus).status_code == 404
        assert c.delete(f"/api/notes/{note_id}").status_code == 401
        assert any(n["id"] == note_id for n in c.get("/api/notes", headers=fay).json()["notes"])
        r = c.delete(f"/api/notes/{note_id}", headers=fay)
        assert r.status_code == 200 and all(n["id"] != note_id for n in r.json()["notes"])
        assert c.delete(f"/api/notes/{note_id}", headers=fay).status_code == 404


def test_progress_is_the_callers_own(signed, tutor):
    """R132: `/api/progress` counts the caller's graded answers only."""
    base, web, _ = signed
    q = Question(id="q-progress", kind="term", template="cloze", question="?", answer="x", chunk_id=SECTION,
                 section="s", quote="x")
    StudyStore(web.study_db).record("dora", q, "correct", 1.0, "x")
    r = httpx.get(base + "/api/progress", headers=bearer(token(web, "dora")), timeout=60)
    assert r.status_code == 200 and r.json() == {"reader": "dora", "answered": 1, "correct": 1, "partial": 0,
                                                  "wrong": 0}
    r = httpx.get(base + "/api/progress", headers=bearer(token(web, "erin")), timeout=60)
    assert r.json()["answered"] == 0


# --------------------------------------------------------------------------- caps and validation (R133)

def test_note_caps_and_validation(signed):
    """R133: a section must exist (chunk id or anchor); an empty note, one over `max_note_chars`
    and a lone surrogate are 422; the note after `max_notes_per_reader` is 409; a body over the
    limit is 413. Each with a one-line `detail`, and nothing stored by a refused request."""
    base, web, _ = signed
    h = bearer(token(web, "frank"))
    with httpx.Client(base_url=base, timeout=60, headers=h) as c:
        cases = [({"section": "no-such-section", "text": "x"}, 422, "unknown section"),
                 ({"section": "../../etc/passwd", "text": "x"}, 422, "unknown section"),
                 ({"section": SECTION, "text": "   "}, 422, "empty"),
                 ({"section": SECTION, "text": "长" * 101}, 422, "100"),
                 ({"section": SECTION, "text": "ok", "reader": "alice"}, 422, "reader"),
                 ({"section": SECTION}, 422, "text")]
        for body, status, words in cases:
            r = c.post("/api/notes", json=body)
            assert r.status_code == status and words in r.json()["detail"], (body, r.text)
        r = c.post("/api/notes", content=b'{"section": "04-08#reality-gap", "text": "\\ud800"}',
                   headers={"Content-Type": "application/json"})
        assert r.status_code == 422 and "surrogate" in r.json()["detail"]
        r = c.post("/api/notes", content=json.dumps({"section": SECTION, "text": "x" * 70_000}),
                   headers={"Content-Type": "application/json"})
        assert r.status_code == 413
        assert c.get("/api/notes").json()["count"] == 0
        anchor = SECTION.split("#", 1)[1]
        for i in range(3):
            r = c.post("/api/notes", json={"section": anchor if i else SECTION, "text": f"第 {i} 条"})
            assert r.status_code == 201 and r.json()["count"] == i + 1
        r = c.post("/api/notes", json={"section": SECTION, "text": "one too many"})
        assert r.status_code == 409 and "3" in r.json()["detail"]
        assert c.get("/api/notes").json()["count"] == 3


def test_openapi_documents_the_reader_routes(signed):
    """R133: the new routes are in OpenAPI with response models, examples, 401 and the Bearer scheme."""
    base, _, _ = signed
    spec = httpx.get(base + "/openapi.json", timeout=30).json()
    notes = spec["paths"]["/api/notes"]
    assert {"get", "post"} <= set(notes)
    assert {"401", "409", "413", "422"} <= set(notes["post"]["responses"])
    assert "401" in spec["paths"]["/api/progress"]["get"]["responses"]
    assert "401" in spec["paths"]["/api/ask"]["post"]["responses"]
    assert any("HTTPBearer" in s for sec in notes["get"].get("security", []) for s in sec)
    schemas = spec["components"]["schemas"]
    assert schemas["NoteRequest"].get("examples") and schemas["NotesResponse"].get("examples")


# --------------------------------------------------------------------------- without a secret (R134)

def test_without_a_secret_each_client_is_its_own_anonymous_reader(open_app):
    """R134: no secret: a client is the anonymous id in its `s2r_reader` cookie (minted by the server,
    HttpOnly); another client, one naming the first by `?reader=`/`X-Reader-Id`, or one sending a
    made-up cookie value sees none of its notes. Page loads mint distinct ids, never 'default'."""
    base, _ = open_app
    with httpx.Client(base_url=base, timeout=60) as a, httpx.Client(base_url=base, timeout=60) as b:
        r = a.post("/api/notes", json={"section": SECTION, "text": "匿名 A 的笔记"})
        assert r.status_code == 201, r.text
        a_id = r.json()["reader"]
        assert is_anonymous_id(a_id) and "httponly" in r.headers["set-cookie"].lower()
        assert a.get("/api/notes").json()["reader"] == a_id  # the cookie keeps the reader
        for kwargs in [{}, {"params": {"reader": a_id}}, {"headers": {"X-Reader-Id": a_id}},
                       {"headers": {"Cookie": f"{COOKIE}=default"}}, {"headers": {"Cookie": f"{COOKIE}=alice"}}]:
            b.cookies.clear()
            r = b.get("/api/notes", **kwargs)
            assert r.status_code == 200 and r.json()["reader"] != a_id and "匿名 A 的笔记" not in r.text, kwargs
            assert is_anonymous_id(r.json()["reader"])
    ids = set()
    for _ in range(2):
        r = httpx.get(base + "/", timeout=60)
        ids.add(httpx.Cookies(r.cookies).get(COOKIE))
    assert len(ids) == 2 and all(is_anonymous_id(i) for i in ids)
    r = httpx.get(base + "/", cookies={COOKIE: next(iter(ids))}, timeout=60)
    assert "set-cookie" not in r.headers  # a valid cookie is kept, not replaced


# --------------------------------------------------------------------------- the page's reader (R135)

def test_page_reader_from_token_else_anonymous(signed):
    """R135: in the chat's Notes tab, a note saved with `?reader_token=` (as the page forwards its
    query string) is the token's reader's; without a token (or with `?reader=`) the browser gets an
    anonymous session that does not see it; a forged token is an anonymous session too."""
    base, web, _ = signed
    tok = token(web, "gina")
    saved = event(base, "save_it", [SECTION, "gina 的页面笔记", "zh"], "page-gina", query=f"?reader_token={tok}")
    assert "gina 的页面笔记" in outputs(saved)[1]
    r = httpx.get(base + "/api/notes", headers=bearer(tok), timeout=60)
    assert [n["text"] for n in r.json()["notes"]] == ["gina 的页面笔记"]
    other = with_secret(web, OTHER_SECRET)
    for session, query in [("page-anon", "?reader=gina"), ("page-forged", f"?reader_token={token(other, 'gina')}")]:
        shown = outputs(event(base, "show", ["zh"], session, query=query))[0]
        assert "gina 的页面笔记" not in shown and "anonymous" in shown


def test_page_without_cookie_or_token_is_a_session_of_its_own(open_app):
    """R135: no secret, no cookie (a frame whose browser keeps none): each Gradio session is its own
    anonymous reader; a browser's cookie keeps its reader across sessions (page loads)."""
    base, _ = open_app
    event(base, "save_it", [SECTION, "会话一的笔记", "zh"], "sess-one")
    assert "会话一的笔记" not in outputs(event(base, "show", ["zh"], "sess-two"))[0]
    cookie = {COOKIE: session_anonymous_id("x")}  # any minted-shaped id: this browser's
    event(base, "save_it", [SECTION, "浏览器的笔记", "zh"], "sess-three", cookies=cookie)
    assert "浏览器的笔记" in outputs(event(base, "show", ["zh"], "sess-four", cookies=cookie))[0]
    assert "浏览器的笔记" not in outputs(event(base, "show", ["zh"], "sess-five"))[0]


# --------------------------------------------------------------------------- export cleanup (R136)

def test_notes_exports_are_removed_and_bounded(signed):
    """R136: twelve exports leave at most `notes_exports_kept` (2) files in one `s2r-notes-*` folder,
    and none once `notes_export_ttl_s` (2 s) has passed (finding 5: every export left a folder)."""
    base, web, tmp = signed
    q = f"?reader_token={token(web, 'hank')}"
    event(base, "save_it", [SECTION, "导出用的笔记", "zh"], "export-hank", query=q)
    for _ in range(12):
        out = outputs(event(base, "export_it", ["zh"], "export-hank", query=q))
        assert out[0]["value"]["path"].endswith("notes.md")
        roots = list(tmp.glob("s2r-notes-*"))
        assert len(roots) == 1 and len(list(roots[0].iterdir())) <= 2
    deadline = time.monotonic() + 15
    while list(roots[0].iterdir()) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not list(roots[0].iterdir())


def test_export_folder_unit(tmp_path):
    """R136: ExportFolder keeps the newest `keep`, drops expired ones on prune, and close() removes all."""
    folder = ExportFolder(keep=3, ttl_s=60, parent=tmp_path)
    paths = [folder.write("notes.md", f"# {i}\n") for i in range(5)]
    assert [p.exists() for p in paths] == [False, False, True, True, True]
    assert folder.prune(now=time.time() + 61) == 3 and not folder.files()
    root = folder.root
    folder.write("notes.md", "x")
    folder.close()
    assert not root.exists()


# --------------------------------------------------------------------------- votes (R137, R138)

def test_votes_unit(tmp_path):
    """R137: a vote is recorded once; the same again writes nothing; the other choice changes it (the
    log keeps one counted record per answer); over the rate limit nothing is written; a restart
    still knows the vote."""
    log = FeedbackLog(tmp_path / "store.sqlite3")
    votes = Votes(log, per_minute=5)
    vote = lambda liked, key="s1:1", reader="r1": votes.cast(
        Feedback(liked=liked, question="q", answer="a", reader=reader, vote=key), client="10.0.0.1")
    assert [vote(True), vote(True), vote(False), vote(False)] == [RECORDED, UNCHANGED, CHANGED, UNCHANGED]
    assert len(log.read()) == 2 and [r["liked"] for r in log.votes()] == [False]
    assert vote(True, key="s1:3") == RECORDED
    assert vote(True, key="s1:5") == LIMITED  # 6th click this minute from this reader and address
    assert vote(True, key="s1:5", reader="r2") == LIMITED  # same address
    assert len(log.votes()) == 2
    assert Votes(log, per_minute=5).cast(Feedback(liked=False, question="q", answer="a", reader="r1", vote="s1:1"),
                                         client="10.0.0.2") == UNCHANGED


def test_chat_votes_are_one_per_answer_and_rate_limited(signed):
    """R138: on the live chat, a like clicked again and again on one answer counts once, a dislike
    changes it, and clicks beyond `feedback_per_minute` (6) are refused; each record names the
    verified reader (finding 9: 2,057 likes for one answer in 20 s)."""
    base, web, _ = signed
    q = f"?reader_token={token(web, 'ivan')}"
    session = "vote-ivan"
    event(base, "respond", ["什么是 Sim2Real？", None, None, None], session, query=q)
    like = lambda liked: event(base, "on_like", [None], session, query=q,
                               event_data={"index": 1, "value": "x", "liked": liked})
    for liked in (True, True, True, False, True, True, True, True):
        like(liked)
    from s2r_tutor.store import open_store

    log = FeedbackLog(open_store(web))
    rows = log.read()
    assert [r["liked"] for r in rows] == [True, False, True]  # recorded, changed, changed; the rest unchanged/limited
    counted = log.votes()
    assert len(counted) == 1 and counted[0]["liked"] is True and counted[0]["reader"] == "ivan"


# --------------------------------------------------------------------------- the widget (R139)

@pytest.mark.browser
def test_embed_widget_sends_the_pages_reader_token(signed):
    """R139: `/embed?reader_token=` answers (the widget sends the token as a Bearer header on its own
    calls); the same widget without a token shows the API's 401 detail, not a broken page."""
    from pathlib import Path

    from conftest import CHROMIUM, CHROMIUM_ARGS

    if not Path(CHROMIUM).exists():
        pytest.skip(f"Debian's chromium is not installed at {CHROMIUM}")
    sync_api = pytest.importorskip("playwright.sync_api")
    base, web, _ = signed
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            for query, expect in [(f"?reader_token={token(web, 'jill')}", "details.s2r-sources"), ("", ".s2r-error")]:
                page = browser.new_page()
                page.set_default_timeout(90_000)
                page.goto(base + "/embed" + query, wait_until="load")
                page.locator("#s2r-input").fill("什么是 Sim2Real？")
                page.locator("#s2r-input").press("Enter")
                page.locator(expect).first.wait_for()
                if not query:
                    assert "reader token is required" in page.locator(".s2r-error").first.inner_text()
                page.close()
        finally:
            browser.close()


def test_corrupt_study_database_is_a_503_without_its_path(settings, tutor, tmp_path):
    """R133: the notes and progress routes over a corrupt study database: 503 with one line that
    names no server path (the full error goes to the log)."""
    from types import SimpleNamespace

    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from s2r_tutor.web.api import install_api

    web = with_secret(settings, SECRET, study_db=tmp_path / "study.sqlite3")
    web.study_db.write_bytes(b"not a database at all" * 100)
    app = FastAPI()
    app.state.runtime = SimpleNamespace(settings=web, tutor=SimpleNamespace(chunks=tutor.chunks))
    install_api(app, web)
    with TestClient(app) as c:
        for method, path, body in [("GET", "/api/notes", None), ("GET", "/api/progress", None),
                                   ("POST", "/api/notes", {"section": SECTION, "text": "x"})]:
            r = c.request(method, path, json=body, headers=bearer(token(web, "kim")))
            assert r.status_code == 503 and "study database" in r.json()["detail"], r.text
            assert str(tmp_path) not in r.text
