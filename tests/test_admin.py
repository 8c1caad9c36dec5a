"""/admin: off without a token, 401 without credentials, Bearer or the login form's HttpOnly cookie,
never framed, the insights rendered with inline SVG plots (checked on a real question log)."""

from __future__ import annotations

import anyio
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import SecretStr

from s2r_tutor.web.admin import COOKIE, install_admin
from s2r_tutor.web.runtime import Runtime

TOKEN = "correct horse battery staple"


@pytest.fixture(scope="module")
def admin_settings(tutor, tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('admin') / 'store.sqlite3'}"
    settings = tutor.settings.model_copy(update={"database_url": url, "admin_token": SecretStr(TOKEN)})
    runtime = Runtime(settings, tutor)

    async def ask():
        for q in ["什么是 Sim2Real？", "域随机化怎么调？", "今天天气怎么样？", "What is the reality gap?"]:
            await runtime.ask(q)

    anyio.run(ask)
    return settings


def _client(settings, tutor) -> TestClient:
    app = FastAPI()
    install_admin(app, settings, embedder=tutor.embedder)
    return TestClient(app)


def test_admin_is_off_without_a_token(tutor):
    client = _client(tutor.settings.model_copy(update={"admin_token": None}), tutor)
    assert client.get("/admin").status_code == 404
    assert client.post("/admin/login", data={"token": ""}).status_code == 404


def test_admin_needs_the_token(admin_settings, tutor):
    client = _client(admin_settings, tutor)
    r = client.get("/admin")
    assert r.status_code == 401 and "<form" in r.text and "s2r-tutor" in r.text
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
    assert client.get("/admin", headers={"Authorization": "Bearer wrong"}).status_code == 401
    client.cookies.set(COOKIE, TOKEN, path="/admin")
    assert client.get("/admin").status_code == 401  # the cookie holds a digest, not the token
    client.cookies.clear()
    r = client.post("/admin/login", data={"token": "wrong"}, follow_redirects=False)
    assert r.status_code == 401 and COOKIE not in r.cookies


def test_admin_with_bearer_shows_insights_and_plots(admin_settings, tutor):
    client = _client(admin_settings, tutor)
    r = client.get("/admin", headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 200
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"] and r.headers["x-frame-options"] == "DENY"
    assert "<svg id='plot-sections'" in r.text and "<svg id='plot-refusals'" in r.text
    assert "<svg id='plot-sections-days'" in r.text and "class='cell'" in r.text
    assert r.text.count("class='bar'") >= 2 and "04-08#" in r.text and "今天天气怎么样" in r.text
    assert "<script" not in r.text


def test_login_form_sets_an_httponly_cookie(admin_settings, tutor):
    client = _client(admin_settings, tutor)
    r = client.post("/admin/login", data={"token": TOKEN}, follow_redirects=False)
    assert r.status_code == 303
    cookie = r.headers["set-cookie"]
    assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower() and TOKEN not in cookie
    assert client.get("/admin").status_code == 200
    client.post("/admin/logout", follow_redirects=False)
    client.cookies.clear()
    assert client.get("/admin").status_code == 401


def test_insights_text_is_escaped(tutor, tmp_path):
    from s2r_tutor.store import open_store
    from s2r_tutor.web.feedback import Feedback, FeedbackLog

    settings = tutor.settings.model_copy(update={"database_url": f"sqlite:///{tmp_path / 's.sqlite3'}",
                                                 "admin_token": SecretStr(TOKEN)})
    FeedbackLog(open_store(settings)).append(Feedback(liked=False, question="<script>alert(1)</script>", answer="x"))
    r = _client(settings, tutor).get("/admin", headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 200 and "<script>alert" not in r.text and "&lt;script&gt;" in r.text
