"""The chat and the /embed widget driven in headless Chromium (Debian's, via Playwright).

Each test types a real question, waits for the real answer, and checks what a person sees: a
`[1]` citation, the sources block with its quote, follow-ups, and that an XSS probe stays text.
Screenshots go to tests/artifacts/ (git-ignored). Every request the page makes must stay on the
test server: nothing from a CDN, no font services, no analytics.
"""

from __future__ import annotations

import http.server
import threading
import time
from pathlib import Path

import pytest
from conftest import ARTIFACTS, BROWSER_MARKS

from s2r_tutor.settings import PROJECT_ROOT
from s2r_tutor.web.server import build_app, running

pytestmark = BROWSER_MARKS
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed")
expect = sync_api.expect

XSS = "<img src=x onerror=alert(1)>"
ANSWER_TIMEOUT_MS = 90_000          # the 2-core CI box is shared; answers take ~0.1 s when idle


class PortalServer:
    """A stand-in intranet portal on its own loopback origin, serving examples/portal.html with the
    iframe pointed at the test server. (A real server, not Playwright's router: Chromium will not
    let a page of unknown address space frame a loopback one.)"""

    def __init__(self):
        self.target = ""
        portal = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                html = (PROJECT_ROOT / "examples" / "portal.html").read_text(encoding="utf-8")
                body = html.replace("http://127.0.0.1:7860", portal.target).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def portals():
    allowed, other = PortalServer(), PortalServer()
    yield allowed, other
    allowed.close()
    other.close()


@pytest.fixture(scope="module")
def web_settings(settings, portals, tmp_path_factory):
    return settings.model_copy(update={"feedback_file": tmp_path_factory.mktemp("var") / "feedback.jsonl",
                                       "allowed_origins": [portals[0].origin]})


@pytest.fixture(scope="module")
def base_url(web_settings, tutor, portals):
    with running(build_app(web_settings, tutor)) as url:
        for portal in portals:
            portal.target = url
        yield url


class Watch:
    """What a page did that it must not: leave the test server, open a dialog, run the probe."""

    def __init__(self, page, base_url: str, allowed: tuple[str, ...] = ()):
        self.offsite: list[str] = []
        self.dialogs: list[str] = []
        ok = (base_url, "data:", "blob:", "about:", *allowed)
        page.on("request", lambda r: None if r.url.startswith(ok) else self.offsite.append(r.url))
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1200, "height": 950}, locale="zh-CN")
    pg = context.new_page()
    pg.set_default_timeout(ANSWER_TIMEOUT_MS)
    expect.set_options(timeout=ANSWER_TIMEOUT_MS)
    yield pg
    context.close()


def probe_xss(page, watch: Watch, box, user_messages: str, reply, scope: str) -> None:
    """Send the XSS probe: it must show as the user's text, get a reply, and do nothing."""
    box.fill(XSS)
    box.press("Enter")
    page.locator(user_messages).last.get_by_text(XSS).wait_for()
    reply.wait_for()
    page.wait_for_timeout(500)  # give a would-be onerror handler time to fire
    assert watch.dialogs == [], f"the XSS probe opened a dialog: {watch.dialogs}"
    assert page.locator(f'{scope} img[src="x"]').count() == 0, "the XSS probe became an <img> element"


def finish(page, watch: Watch, name: str, **screenshot) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), **screenshot)
    assert watch.offsite == [], f"the {name} page fetched from other hosts: {watch.offsite}"


def test_chat_answers_with_citations_sources_and_followups(page, base_url, web_settings):
    watch = Watch(page, base_url)
    page.goto(base_url + "/", wait_until="load")
    box = page.locator("#s2r-input textarea")
    box.wait_for()
    assert "Sim2Real" in box.get_attribute("placeholder")
    expect(page.get_by_text("强化学习和 Sim2Real 有什么区别？").first).to_be_visible()  # an example question

    box.fill("什么是 Sim2Real？")
    box.press("Enter")
    bot = page.locator("#s2r-chatbot [data-testid='bot']").last
    sources = bot.locator("details.s2r-sources")
    sources.wait_for()
    expect(bot.locator(".message-content")).to_contain_text("[1]")
    sources.locator("summary").click()
    quote = sources.locator(".s2r-quote").first
    expect(quote).to_be_visible()
    expect(quote).not_to_be_empty()
    expect(sources.locator(".s2r-section").first).to_be_visible()

    # A follow-up suggestion is a button; clicking it asks it (history goes along).
    followup = page.locator("#s2r-chatbot .options button.option").first
    followup.wait_for()
    followup_text = followup.inner_text().strip()
    followup.click()
    page.locator("#s2r-chatbot details.s2r-sources").nth(1).wait_for()

    # Like the latest answer: a row lands in the store's feedback table.
    from s2r_tutor.store import open_store
    from s2r_tutor.web.feedback import FeedbackLog

    feedback = FeedbackLog(open_store(web_settings))
    before = len(feedback.read())
    bot = page.locator("#s2r-chatbot [data-testid='bot']").last
    bot.hover()
    page.locator("#s2r-chatbot button[aria-label='赞']").last.click()  # Gradio's zh-CN label for Like
    deadline = time.monotonic() + 30
    while len(feedback.read()) == before:
        assert time.monotonic() < deadline, "no feedback row was written"
        time.sleep(0.2)
    row = feedback.read()[-1]
    assert row["liked"] is True and row["question"] == followup_text and row["citations"]

    probe_xss(page, watch, box, "#s2r-chatbot [data-testid='user']",
              page.locator("#s2r-chatbot [data-testid='bot']").nth(2), "#s2r-chatbot")
    finish(page, watch, "chat", full_page=True)


def test_example_question_is_asked_on_click(page, base_url):
    page.goto(base_url + "/", wait_until="load")
    page.locator("#s2r-chatbot").get_by_text("强化学习和 Sim2Real 有什么区别？").first.click()
    page.locator("#s2r-chatbot [data-testid='user']").get_by_text("强化学习和 Sim2Real 有什么区别？").wait_for()
    page.locator("#s2r-chatbot [data-testid='bot'] details.s2r-sources").wait_for()


def test_card_tab_shows_the_card(page, base_url):
    page.goto(base_url + "/", wait_until="load")
    page.get_by_role("tab", name="概念卡 Card").click()
    page.get_by_text("Sim2Real（Simulation to Reality）可以理解为").first.wait_for()


def test_embed_widget_answers_and_escapes(page, base_url):
    watch = Watch(page, base_url)
    page.set_viewport_size({"width": 420, "height": 640})
    page.goto(base_url + "/embed", wait_until="load")
    box = page.locator("#s2r-input")
    box.fill("强化学习和 Sim2Real 有什么区别？")
    box.press("Enter")
    answer = page.locator(".s2r-bot").last
    answer.locator("details.s2r-sources").wait_for()
    expect(answer.locator(".s2r-cite", has_text="[1]").first).to_be_visible()
    answer.locator("details.s2r-sources summary").click()
    expect(answer.locator(".s2r-quote").first).to_be_visible()

    probe_xss(page, watch, box, ".s2r-user", page.locator(".s2r-bot:not(.s2r-pending)").nth(1), "#s2r")
    finish(page, watch, "embed")


@pytest.mark.parametrize("allowed", [True, False], ids=["allowed-portal", "other-origin"])
def test_only_allowed_portals_may_frame_the_widget(page, base_url, portals, allowed):
    portal = portals[0] if allowed else portals[1]
    watch = Watch(page, base_url, allowed=(portal.origin,))
    page.goto(f"{portal.origin}/portal.html", wait_until="load")
    frame = page.locator("iframe.s2r-frame").content_frame
    if allowed:
        frame.locator("#s2r-input").fill("什么是 Reality Gap？")
        frame.locator("#s2r-input").press("Enter")
        frame.locator(".s2r-bot details.s2r-sources").wait_for()
        finish(page, watch, "portal")
    else:
        page.wait_for_timeout(2000)
        assert frame.locator("#s2r-input").count() == 0, "an origin not in allowed_origins could frame /embed"
        assert watch.offsite == []
