"""The chat page in headless Chromium under round 12's stream limits (R171, R172, R175): the page's
own heartbeat (opened before its first event) is accepted once the session joins, a question is
answered, and none of the routes closed this round is one the page asks for."""

from __future__ import annotations

import pytest
from conftest import BROWSER_MARKS, ask_chat

from s2r_tutor.web.server import build_app, running

pytestmark = BROWSER_MARKS
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed")
CLOSED = ("/deep_link", "/startup-events", "/gradio_api/openapi.json", "/info")


@pytest.fixture(scope="module")
def base_url(settings, tutor, tmp_path_factory):
    var = tmp_path_factory.mktemp("var-bstreams")
    web = settings.model_copy(update={"feedback_file": var / "f.jsonl", "study_db": var / "s.sqlite3",
                                      "max_connections": 40})
    with running(build_app(web, tutor)) as url:
        yield url


def test_the_page_heartbeat_and_chat_work_under_the_stream_limits(browser, base_url):
    context = browser.new_context(locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(90_000)
    seen: dict[str, int] = {}
    page.on("response", lambda r: seen.setdefault(r.url.split("?")[0].replace(base_url, ""), r.status))
    try:
        page.goto(base_url + "/", wait_until="load")
        row = ask_chat(page, "什么是 Sim2Real？")
        sync_api.expect(row.locator(".message-content").first).to_contain_text("[1]")
        beats = {path: status for path, status in seen.items() if "/heartbeat/" in path}
        assert beats and set(beats.values()) == {200}, seen
        asked = [path for path in seen if any(c in path for c in CLOSED)]
        assert asked == [] and all(status < 500 for status in seen.values()), seen
    finally:
        context.close()
