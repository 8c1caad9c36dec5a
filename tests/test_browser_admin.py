"""/admin in headless Chromium on the real app: 401 and a login form without the token; with it,
the insights page and its two server-rendered SVG plots, and no request leaves the test server."""

from __future__ import annotations

import pytest
from conftest import ARTIFACTS, BROWSER_MARKS
from pydantic import SecretStr

from s2r_tutor.store import open_store
from s2r_tutor.store.questions import QuestionLog
from s2r_tutor.web.server import build_app, running

pytestmark = BROWSER_MARKS
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed")
TOKEN = "admin-browser-token"


@pytest.fixture(scope="module")
def admin_url(tutor, tmp_path_factory):
    var = tmp_path_factory.mktemp("admin-var")
    settings = tutor.settings.model_copy(update={"database_url": f"sqlite:///{var / 'store.sqlite3'}",
                                                 "admin_token": SecretStr(TOKEN)})
    # Logged as Runtime.ask does (Playwright's sync API already runs an event loop in this thread).
    log = QuestionLog(open_store(settings), settings.question_log_days)
    for q in ["什么是 Sim2Real？", "今天天气怎么样？", "What is the reality gap?"]:
        log.record(tutor.ask(q), 0.05, source="api")
    with running(build_app(settings, tutor)) as url:
        yield url


def test_admin_page_in_a_browser(browser, admin_url):
    context = browser.new_context()
    page = context.new_page()
    foreign: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(admin_url) else foreign.append(r.url))
    response = page.goto(f"{admin_url}/admin")
    assert response.status == 401
    assert page.locator("input#token").is_visible()

    page.fill("input#token", "wrong")
    page.click("input[type=submit]")
    page.wait_for_load_state()
    assert page.locator("text=Wrong token.").is_visible()

    page.fill("input#token", TOKEN)
    with page.expect_navigation():
        page.click("input[type=submit]")
    assert page.locator("h1").inner_text().startswith("s2r-tutor")
    for plot in ("#plot-sections", "#plot-sections-days", "#plot-refusals"):
        box = page.locator(plot).bounding_box()
        assert box and box["width"] > 100 and box["height"] > 50, plot
        assert page.locator(f"{plot} rect").count() >= 1
    assert page.locator("text=今天天气怎么样").first.is_visible()
    assert context.cookies()[0]["httpOnly"] is True
    assert page.evaluate("document.cookie") == ""  # HttpOnly: not readable by scripts
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "admin.png"), full_page=True)
    assert foreign == []

    # Bearer works too, for scripts; the page refuses to be framed.
    r = context.request.get(f"{admin_url}/admin", headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status == 200 and "frame-ancestors 'none'" in r.headers["content-security-policy"]
    context.close()
