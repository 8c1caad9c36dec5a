"""Two `s2r-tutor serve` replicas sharing one PostgreSQL, nginx (docs/deploy/nginx.conf) in front.

- State written through one replica (a note, a quiz answer, a like) is read through the other.
- /api/ask through the proxy is spread over both; `insights --json` lists questions from both,
  and a refused question appears under `refused`.
- The Gradio chat works through the proxy for several sessions, each pinned to one replica.
"""

from __future__ import annotations

import json
import time
from collections import Counter, defaultdict

import httpx
import pytest
from cluster import Cluster, nginx_bin
from conftest import ARTIFACTS, BROWSER_MARKS

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
TIMEOUT_MS = 90_000
REFUSED = "今天天气怎么样？"


def browser_test(fn):
    for mark in BROWSER_MARKS:
        fn = mark(fn)
    return fn


@pytest.fixture(scope="module")
def cluster(postgres, tmp_path_factory):
    from pgserver import fresh_name

    if nginx_bin() is None:
        pytest.fail("nginx is not installed: run scripts/test (it installs `nginx`) or apt-get install nginx")
    c = Cluster(tmp_path_factory.mktemp("cluster"), postgres.create_database(fresh_name("replicas")))
    try:
        c.build_index()
        c.start()
        c.proxy = c.start_nginx()
        yield c
    finally:
        c.stop()


def test_api_notes_written_through_one_replica_are_read_through_the_other(cluster):
    a, b = cluster.urls
    auth = {"Authorization": f"Bearer {cluster.token('api-bob')}"}
    r = httpx.post(a + "/api/notes", json={"section": "04-08#intro", "text": "written through A"}, headers=auth,
                   timeout=60)
    assert r.status_code == 201, r.text
    r = httpx.get(b + "/api/notes", headers=auth, timeout=60)
    assert r.status_code == 200 and [n["text"] for n in r.json()["notes"]] == ["written through A"]
    assert httpx.get(b + "/api/progress", headers=auth, timeout=60).json()["answered"] == 0


def test_api_is_spread_over_both_and_insights_lists_both(cluster):
    questions = ["什么是 Sim2Real？", "What is domain randomization?", REFUSED, "域随机化怎么调？"] * 5
    auth = {"Authorization": f"Bearer {cluster.token('api-client')}"}
    with httpx.Client(base_url=cluster.proxy, timeout=120, headers=auth) as client:
        assert client.post("/api/ask", json={"question": "x"}, headers={"Authorization": ""}).status_code == 401
        for q in questions:
            r = client.post("/api/ask", json={"question": q})
            assert r.status_code == 200, r.text
    upstreams = Counter(up for method, path, status, up, _ in cluster.access_log() if path == "/api/ask")
    assert len(upstreams) == 2 and min(upstreams.values()) >= 8, upstreams

    result = cluster.cli("insights", "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert len(doc["replicas"]) == 2 and doc["total"] >= len(questions)
    assert any("天气" in g["example"] and g["count"] >= 5 for g in doc["refused"]), doc["refused"]
    assert {q["question"] for q in doc["questions"]} >= set(questions)


@browser_test
def test_state_written_through_one_replica_is_read_through_the_other(cluster, browser):
    a, b = cluster.urls
    query = f"?reader_token={cluster.token('replica-ann')}"  # the same reader on both replicas
    ctx = browser.new_context(viewport={"width": 1200, "height": 1100}, locale="zh-CN")
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        # A note, through A; read through B.
        page.goto(f"{a}/{query}", wait_until="load")
        page.get_by_role("tab", name="笔记 Notes").click()
        page.locator("#study-notes-text textarea").fill("两台副本共享的笔记")
        page.locator("#study-notes-save").click()
        page.locator("#study-notes-list").get_by_text("两台副本共享的笔记").wait_for()
        page.goto(f"{b}/{query}", wait_until="load")
        page.get_by_role("tab", name="笔记 Notes").click()
        page.locator("#study-notes-list").get_by_text("两台副本共享的笔记").wait_for()

        # A quiz answer, through B this time; its count is read through A.
        page.get_by_role("tab", name="测验 Quiz").click()
        page.locator("#study-quiz-status").get_by_text("reader").wait_for()
        page.locator("#study-quiz-answer textarea").fill("我不知道")
        page.locator("#study-quiz-submit").click()
        page.locator("#study-quiz-feedback").get_by_text("不正确").wait_for()
        page.goto(f"{a}/{query}", wait_until="load")
        page.get_by_role("tab", name="测验 Quiz").click()
        page.locator("#study-quiz-status").get_by_text("已答 1 题").wait_for()

        # A like, through A; counted on B's admin page.
        box = page.locator("#s2r-input textarea")
        page.get_by_role("tab", name="问答 Chat").click()
        box.fill("什么是 Sim2Real？")
        box.press("Enter")
        page.locator("#s2r-chatbot .message-row.bot-row .thought").first.wait_for()  # the sources
        page.locator("#s2r-chatbot .message-row.bot-row").last.hover()
        page.locator("#s2r-chatbot button[aria-label='赞']").last.click()
        deadline = time.monotonic() + 30
        while True:
            r = httpx.get(f"{b}/admin", headers={"Authorization": f"Bearer {cluster.admin_token}"}, timeout=60)
            if "likes 1 " in r.text:
                break
            assert time.monotonic() < deadline, "the like written through A never showed on B"
            time.sleep(0.5)
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "replicas-state.png"), full_page=True)
        ctx.close()


@browser_test
def test_chat_through_nginx_across_sessions(cluster, browser):
    sessions = 4
    for i in range(sessions):
        ctx = browser.new_context(viewport={"width": 1200, "height": 1000}, locale="zh-CN")
        page = ctx.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        try:
            page.goto(cluster.proxy + "/", wait_until="load")
            box = page.locator("#s2r-input textarea")
            box.fill("域随机化怎么调？" if i % 2 else "What is the reality gap?")
            box.press("Enter")
            page.locator("#s2r-chatbot [data-testid='user']").first.wait_for()  # the page took the question
            page.locator("#s2r-chatbot .message-row.bot-row .thought").first.wait_for()  # the sources
            box.fill("还有呢？")
            box.press("Enter")
            page.locator("#s2r-chatbot .message-row.bot-row").nth(1).wait_for()
            assert any(c["name"] == "s2r_route" for c in ctx.cookies())
        except Exception as exc:
            # A timeout here says nothing by itself: keep what the page showed and what the proxy and the
            # replicas logged, so a failure in CI can be explained without rerunning it.
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"replicas-chat-{i}.png"), full_page=True)
            statuses = [" ".join(r[:4]) for r in cluster.access_log()][-40:]
            raise AssertionError(f"session {i}: {exc}\n-- proxy (last 40) --\n" + "\n".join(statuses)
                                 + "".join(f"\n-- replica {k} (tail) --\n{cluster.log(k)[-2500:]}"
                                           for k in range(len(cluster.urls)))) from exc
        finally:
            ctx.close()
    # every chat request of a session (its affinity cookie) went to one replica
    by_session: dict[str, set[str]] = defaultdict(set)
    for method, path, status, upstream, cookie in cluster.access_log():
        if not path.startswith("/api/") and cookie.strip() not in ("-", ""):
            by_session[cookie.strip()].add(upstream)
    assert len(by_session) >= sessions and all(len(ups) == 1 for ups in by_session.values()), by_session
