"""The HTTP API on a live loopback server: every route, the 4xx cases, CORS and framing headers.

The server is the real app (`build_app`) over the session's real Tutor (tmp index), started with
uvicorn on a free loopback port in a background thread.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time

import httpx
import pytest

from s2r_tutor.models import Answer, Citation, Hit
from s2r_tutor.settings import PROJECT_ROOT
from s2r_tutor.web.api import allowed_origins
from s2r_tutor.web.feedback import Feedback, FeedbackLog
from s2r_tutor.web.render import answer_markdown, sources_markdown, user_text
from s2r_tutor.web.server import build_app, running

PORTAL = "http://localhost:8080"
XSS = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def web_settings(settings, tmp_path_factory):
    return settings.model_copy(update={"feedback_file": tmp_path_factory.mktemp("var") / "feedback.jsonl",
                                       "allowed_origins": [PORTAL]})


@pytest.fixture(scope="module")
def base_url(web_settings, tutor):
    with running(build_app(web_settings, tutor)) as url:
        yield url


@pytest.fixture(scope="module")
def client(base_url):
    with httpx.Client(base_url=base_url, timeout=60) as c:
        yield c


# --------------------------------------------------------------------------- routes

def test_healthz(client):
    r = client.get("/healthz")
    assert r.status_code == 200
    body = r.json()
    assert body["status"] == "ok" and body["chunks"] > 10 and body["cards"] >= 1
    # the answer path's state, for a proxy or an operator: threads here, no failures, nothing dropped
    assert body["workers"] == 0 and body["slots"] >= 1 and 0 <= body["busy"] <= body["slots"]
    assert body["worker_failures"] == 0 and body["question_log_dropped"] == 0


@pytest.mark.reliability("R168")
@pytest.mark.parametrize("path", ["/healthz", "/card/04-08?section=summary", "/embed", "/docs", "/"])
def test_head_is_answered_like_get_without_a_body(client, path):
    """R168: HEAD on a GET route (a link checker, a proxy's HEAD health check) gets the GET's status and
    headers and no body. Before, every FastAPI route answered HEAD with the chat's 404."""
    get, head = client.get(path), client.head(path)
    assert get.status_code == head.status_code == 200 and head.content == b""
    assert head.headers["content-type"] == get.headers["content-type"]


def test_head_on_a_post_route_answers_as_get_does(client):
    get, head = client.get("/api/ask"), client.head("/api/ask")
    assert head.status_code == get.status_code >= 400 and head.content == b""


def test_ask_returns_a_cited_answer(client):
    r = client.post("/api/ask", json={"question": "什么是 Sim2Real？"})
    assert r.status_code == 200, r.text
    answer = Answer.model_validate(r.json())
    assert answer.language == "zh" and not answer.refused
    assert answer.citations and "[1]" in answer.answer
    assert all(c.quote in c.text for c in answer.citations)


def test_ask_english_with_history(client):
    history = [{"role": "user", "content": "什么是 Sim2Real？"}, {"role": "assistant", "content": "Sim2Real ... [1]"}]
    r = client.post("/api/ask", json={"question": "What is the reality gap?", "history": history})
    assert r.status_code == 200, r.text
    answer = Answer.model_validate(r.json())
    assert answer.language == "en" and answer.citations


def test_search(client):
    r = client.get("/api/search", params={"q": "什么是域随机化", "k": 3})
    assert r.status_code == 200
    hits = [Hit.model_validate(h) for h in r.json()["hits"]]
    assert len(hits) == 3
    assert any("domain-randomization" in h.chunk_id for h in hits)


def test_search_default_k(client):
    assert len(client.get("/api/search", params={"q": "reality gap"}).json()["hits"]) == 5


def test_docs_are_offline(client):
    spec = client.get("/openapi.json").json()
    assert {"/api/ask", "/api/search", "/healthz"} <= set(spec["paths"])
    page = client.get("/docs")
    assert page.status_code == 200 and "/api/ask" in page.text
    assert "cdn" not in page.text.lower()
    # one same-origin script (the try-it forms), nothing inline, examples per route (#15)
    assert page.text.count("<script") == 1 and '<script src="docs/try.js"></script>' in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.text.count("Example request") == 3 and "Example response" in page.text
    assert client.get("/docs/try.js").status_code == 200


def test_chat_page_is_served(client):
    r = client.get("/")
    assert r.status_code == 200 and "Sim2Real" in r.text


def test_embed_page_and_assets(client):
    r = client.get("/embed")
    assert r.status_code == 200 and 'id="s2r-input"' in r.text
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and f"frame-ancestors 'self' {PORTAL}" in csp
    js = client.get("/embed/static/embed.js")
    assert js.status_code == 200 and "textContent" in js.text
    assert not re.search(r"\.(inner|outer)HTML|insertAdjacentHTML|document\.write|eval\(", js.text)
    assert client.get("/embed/static/embed.css").status_code == 200
    assert "http" not in r.text.replace("http-equiv", "")  # nothing from another host


# --------------------------------------------------------------------------- bad input -> 4xx

@pytest.mark.parametrize(
    "payload, status, words",
    [
        ({"question": ""}, 400, "empty"),
        ({"question": "   \n\t "}, 400, "empty"),
        ({"question": 42}, 422, "question"),
        ({"question": ["a"]}, 422, "question"),
        ({}, 422, "question"),
        ({"question": "hi", "history": "no"}, 422, "history"),
        ({"question": "hi", "history": [{"role": "robot", "content": "x"}]}, 422, "role"),
        ({"question": "hi", "history": [{"role": "user"}]}, 422, "content"),
        ({"question": "hi", "history": [{"role": "user", "content": "x"}] * 51}, 422, "history"),
        ({"question": "hi", "questoin": "typo"}, 422, "questoin"),
        ([1, 2], 422, "body"),
    ],
)
def test_ask_bad_json_is_4xx(client, payload, status, words):
    r = client.post("/api/ask", json=payload)
    assert r.status_code == status, r.text
    assert words in r.json()["detail"]


@pytest.mark.parametrize("raw", [b'{"question":', b"not json", b'{"question": "a",}', b"\xff\xfe"])
def test_ask_malformed_json_is_400(client, raw):
    r = client.post("/api/ask", content=raw, headers={"Content-Type": "application/json"})
    assert r.status_code == 400, r.text
    assert "malformed JSON" in r.json()["detail"]


def test_ask_oversized_body_is_413(client, web_settings):
    big = json.dumps({"question": "a" * (web_settings.max_body_bytes + 10)}).encode()
    r = client.post("/api/ask", content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and "larger than" in r.json()["detail"]


def test_ask_oversized_chunked_body_is_413(client, web_settings):
    big = json.dumps({"question": "a" * (web_settings.max_body_bytes + 10)}).encode()

    def chunks():  # a generator body is sent chunked, with no Content-Length
        for i in range(0, len(big), 8192):
            yield big[i:i + 8192]

    r = client.post("/api/ask", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413


def test_long_question_is_truncated_not_rejected(client):
    r = client.post("/api/ask", json={"question": "Sim2Real 是什么？" * 200})
    assert r.status_code == 200


@pytest.mark.parametrize(
    "params, status",
    [({}, 422), ({"q": ""}, 400), ({"q": "  "}, 400), ({"q": "x", "k": 0}, 422),
     ({"q": "x", "k": 51}, 422), ({"q": "x", "k": "three"}, 422)],
)
def test_search_bad_params_are_4xx(client, params, status):
    r = client.get("/api/search", params=params)
    assert r.status_code == status, r.text
    assert isinstance(r.json()["detail"], str)


def test_wrong_method_and_unknown_api_route(client):
    # Starlette falls through to the Gradio mount at '/', which answers 404 rather than 405.
    assert client.get("/api/ask").status_code in (404, 405)
    assert client.post("/api/nope", json={}).status_code == 404


# --------------------------------------------------------------------------- CORS and framing

def test_cors_preflight_allows_the_portal(client):
    r = client.options("/api/ask", headers={"Origin": PORTAL, "Access-Control-Request-Method": "POST",
                                            "Access-Control-Request-Headers": "content-type"})
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == PORTAL


def test_cors_refuses_other_origins(client):
    r = client.options("/api/ask", headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"})
    assert "access-control-allow-origin" not in r.headers
    r = client.post("/api/ask", json={"question": "什么是 Sim2Real？"}, headers={"Origin": "http://evil.example"})
    assert "access-control-allow-origin" not in r.headers


def test_simple_cors_request_from_portal(client):
    r = client.get("/api/search", params={"q": "reality gap"}, headers={"Origin": PORTAL})
    assert r.headers["access-control-allow-origin"] == PORTAL


@pytest.mark.parametrize("path", ["/", "/embed", "/healthz", "/docs"])
def test_every_page_limits_who_may_frame_it(client, path):
    csp = client.get(path).headers["content-security-policy"]
    assert f"frame-ancestors 'self' {PORTAL}" in csp
    assert "http://evil" not in csp


def test_bad_origin_setting_is_refused(settings):
    with pytest.raises(ValueError):
        allowed_origins(settings.model_copy(update={"allowed_origins": ["http://x; script-src *"]}))


# --------------------------------------------------------------------------- escaping, feedback

def test_user_text_and_corpus_text_are_escaped():
    assert "<img" not in user_text(XSS) and "&lt;img" in user_text(XSS)
    assert "<script" not in answer_markdown("a <script>alert(1)</script> **b** [1]")
    assert "](" not in answer_markdown("[x](javascript:alert(1)) ![i](http://evil.example/p.png) [1]")
    c = Citation(marker=1, chunk_id="04-08#x", section="卡 > <b>章节</b>", quote=XSS, text=XSS, source="a.md")
    block = sources_markdown([c], "zh")
    # Markdown, so every '<' is backslash-escaped: it renders as text, never as a tag
    assert not re.search(r"(?<!\\)<", block) and block.startswith("1. ") and "img src" in block


def test_xss_question_round_trips_as_text(client):
    r = client.post("/api/ask", json={"question": XSS})
    assert r.status_code in (200, 400)
    assert r.headers["content-type"].startswith("application/json")


def test_feedback_log_appends_whole_lines(tmp_path):
    log = FeedbackLog(tmp_path / "sub" / "store.sqlite3")
    rec = Feedback(liked=True, question="什么是 Sim2Real？", answer="x [1]", citations=["04-08#summary"])
    threads = [threading.Thread(target=lambda: [log.append(rec) for _ in range(25)]) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rows = log.read()
    assert len(rows) == 100 and all(r["question"] == "什么是 Sim2Real？" and r["liked"] for r in rows)


# --------------------------------------------------------------------------- the README path

def test_python_app_py_serves_the_chat(settings, tmp_path):
    """`python app.py` as a newcomer runs it (own process, Settings from the environment)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "S2R_PORT": str(port), "S2R_INDEX_DIR": str(settings.index_dir),
           "S2R_FEEDBACK_FILE": str(tmp_path / "feedback.jsonl"), "S2R_STUDY_DB": str(tmp_path / "study.sqlite3")}
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=PROJECT_ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while True:
            assert proc.poll() is None, proc.stderr.read()
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "app.py did not start serving"
            time.sleep(0.5)
        assert "Sim2Real" in httpx.get(f"http://127.0.0.1:{port}/", timeout=30).text
        r = httpx.post(f"http://127.0.0.1:{port}/api/ask", json={"question": "什么是 Sim2Real？"}, timeout=60)
        assert r.status_code == 200 and r.json()["citations"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stderr.close()
