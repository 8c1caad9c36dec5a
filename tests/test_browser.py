"""The chat and the /embed widget driven in headless Chromium (Debian's, via Playwright).

Each test types a real question, waits for the real answer, and checks what a person sees: a
`[1]` citation, the sources block with its quote, follow-ups, and that an XSS probe stays text.
Screenshots go to tests/artifacts/ (git-ignored). Every request the page makes must stay on the
test server: nothing from a CDN, no font services, no analytics.
"""

from __future__ import annotations

import http.server
import re
import threading
import time

import pytest
from conftest import ARTIFACTS, BROWSER_MARKS, ask_chat

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
    row = page.locator("#s2r-chatbot .message-row.bot-row").last
    sources = row.locator(".thought")
    sources.wait_for()
    expect(row.locator(".message-content").first).to_contain_text("[1]")
    sources.locator(".title[role='button']").click()
    source = sources.locator("li").first
    expect(source).to_be_visible()
    expect(source.locator("strong")).not_to_be_empty()  # the section
    expect(source.locator("code")).to_contain_text("04-08#")  # the chunk id

    # A follow-up suggestion is a button; clicking it asks it (history goes along).
    followup = page.locator("#s2r-chatbot .options button.option").first
    followup.wait_for()
    followup_text = followup.inner_text().strip()
    followup.click()
    page.locator("#s2r-chatbot .thought").nth(1).wait_for()

    # Like the latest answer: a row lands in the store's feedback table.
    from s2r_tutor.store import open_store
    from s2r_tutor.web.feedback import FeedbackLog

    feedback = FeedbackLog(open_store(web_settings))
    before = len(feedback.read())
    bot = page.locator("#s2r-chatbot .message-row.bot-row").last
    bot.hover()
    page.locator("#s2r-chatbot button[aria-label='赞']").last.click()  # Gradio's zh-CN label for Like
    deadline = time.monotonic() + 30
    while len(feedback.read()) == before:
        assert time.monotonic() < deadline, "no feedback row was written"
        time.sleep(0.2)
    row = feedback.read()[-1]
    assert row["liked"] is True and row["question"] == followup_text and row["citations"]

    probe_xss(page, watch, box, "#s2r-chatbot [data-testid='user']",
              page.locator("#s2r-chatbot .message-row.bot-row").nth(2), "#s2r-chatbot")
    finish(page, watch, "chat", full_page=True)


def test_example_question_is_asked_on_click(page, base_url):
    page.goto(base_url + "/", wait_until="load")
    page.locator("#s2r-chatbot").get_by_text("强化学习和 Sim2Real 有什么区别？").first.click()
    page.locator("#s2r-chatbot [data-testid='user']").get_by_text("强化学习和 Sim2Real 有什么区别？").wait_for()
    page.locator("#s2r-chatbot .bot-row .thought").wait_for()


def test_card_tab_shows_the_card(page, base_url):
    page.goto(base_url + "/", wait_until="load")
    page.get_by_role("tab", name="概念卡 Card").click()
    page.get_by_text("Sim2Real（Simulation to Reality）可以理解为").first.wait_for()
    # each section's aligned English is folded under it (#17), rendered as Markdown, closed by default
    fold = page.locator("details.s2r-card-en", has_text="In one sentence")
    expect(fold).to_be_visible()
    assert fold.get_attribute("open") is None
    fold.locator("summary").click()
    expect(fold).to_contain_text("first let a robot learn and validate skills in a simulation environment")


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


# --------------------------------------------------------------------------- #15: copy, citations,
# reload, scrolling, mobile, the widget's Markdown. One question each; answers take ~0.3 s when idle.

RL_VS_SIM2REAL = "强化学习和 Sim2Real 有什么区别？"
TAG = re.compile(r"<\s*/?\s*[A-Za-z][^>]*>")


def test_chat_copy_gives_clean_text(browser, base_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN",
                                  permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.set_default_timeout(ANSWER_TIMEOUT_MS)
    try:
        page.goto(base_url + "/", wait_until="load")
        row = ask_chat(page, RL_VS_SIM2REAL)
        row.hover()
        buttons = page.locator("#s2r-chatbot .message-buttons-left").last
        buttons.locator("button[title*='Copy'], button[title*='复制']").first.click()
        deadline = time.monotonic() + 10
        while not (copied := page.evaluate("navigator.clipboard.readText()")).strip():
            assert time.monotonic() < deadline, "nothing was copied"
            page.wait_for_timeout(200)
        assert not TAG.search(copied), f"the copied answer has HTML tags: {copied[:300]}"
        assert "[1]" in copied and "| 强化学习 | Sim2Real |" in copied  # the answer's Markdown
        assert re.search(r"^\s*1\. .*04-08#", copied, re.M), f"no numbered source list: {copied[-400:]}"
        labels = page.locator("#s2r-chatbot [data-testid='bot']").evaluate_all(
            "els => els.map(e => e.getAttribute('aria-label'))")
        assert labels and all(label and not TAG.search(label) and "&lt;" not in label for label in labels)
    finally:
        context.close()


def test_chat_citation_reveals_its_quote_and_opens_the_card(page, base_url):
    page.goto(base_url + "/", wait_until="load")
    row = ask_chat(page, RL_VS_SIM2REAL)
    cite = row.locator("button.s2r-cite", has_text="[1]").first
    expect(cite).to_be_visible()
    cite.click()
    source = row.locator(".thought li.s2r-source-active")
    expect(source).to_be_visible()  # the sources block opened at [1]
    expect(source).to_contain_text("强化学习")  # its quote
    expect(cite).to_have_attribute("title", re.compile("强化学习"))  # hover shows the quote too

    # A like's toast does not outlive a tab switch (opening the card switches tabs).
    row.hover()
    page.locator("#s2r-chatbot button[aria-label='赞']").last.click()
    expect(page.get_by_text("感谢反馈！")).to_be_visible()
    source.locator("button.s2r-open-card").click()
    expect(page.get_by_text("感谢反馈！")).to_have_count(0)
    target = page.locator(".s2r-card-target")
    expect(target).to_be_visible()
    expect(target.locator("button.label-wrap")).to_contain_text("强化学习")
    expect(target).to_have_attribute("data-s2r-quote", re.compile("强化学习"))
    assert page.evaluate("CSS.highlights.get('s2r-quote').size") == 1  # the quoted span is highlighted


def test_chat_conversation_survives_a_reload(page, base_url):
    page.goto(base_url + "/", wait_until="load")
    ask_chat(page, "什么是 Sim2Real？")
    kept = "(localStorage.getItem('s2r-conversation') || '').length"
    page.wait_for_function(f"{kept} > 1000")  # the BrowserState write follows the answer
    page.reload(wait_until="load")
    chat = page.locator("#s2r-chatbot")
    chat.locator("[data-testid='user']").get_by_text("什么是 Sim2Real？").wait_for()
    expect(chat.locator(".bot-row .thought")).to_have_count(1)
    # The restored answer can still be liked: its record came back signed by the server (R176).
    chat.locator(".bot-row").last.hover()
    page.locator("#s2r-chatbot button[aria-label='赞']").last.click()
    expect(page.get_by_text("感谢反馈！")).to_be_visible()
    chat.locator("button[aria-label='清空对话'], button[aria-label='Clear']").first.click()
    expect(chat.locator("[data-testid='user']")).to_have_count(0)
    page.wait_for_function(f"{kept} < 1000")  # cleared in the browser too
    page.reload(wait_until="load")
    page.wait_for_timeout(1500)
    expect(chat.locator("[data-testid='user']")).to_have_count(0)


def question_offset(page) -> float:
    """How far the newest question is below the top of the conversation's visible area (px)."""
    return page.locator("#s2r-chatbot [data-testid='user']").last.evaluate(
        "e => e.getBoundingClientRect().top - e.closest('[role=log]').getBoundingClientRect().top")


def test_mobile_reaches_every_tab_and_new_answers_show_from_their_start(browser, base_url):
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="zh-CN", is_mobile=True,
                                  has_touch=True)
    page = context.new_page()
    page.set_default_timeout(ANSWER_TIMEOUT_MS)
    watch = Watch(page, base_url)
    try:
        page.goto(base_url + "/", wait_until="load")
        box = page.locator("#s2r-input textarea")
        box.wait_for()
        assert box.bounding_box()["width"] >= 0.75 * 390, "the input box is not full width"
        # Every tab is a visible tab button: one tap, no overflow menu.
        for name in ["概念卡 Card", "测验 Quiz", "闪卡 Flashcards", "笔记 Notes", "问答 Chat"]:
            tab = page.get_by_role("tab", name=name)
            expect(tab).to_be_visible()
            tab.tap()
            expect(tab).to_have_attribute("aria-selected", "true")

        ask_chat(page, "客户说机器人在实验室里走得很好，到工厂就容易摔，怎么解释？")
        page.wait_for_timeout(500)
        assert 0 <= question_offset(page) <= 60, "the new answer does not show from its start"
        finish(page, watch, "mobile-chat")
        # Scrolled up, then a new question: the view follows to it.
        page.locator("#s2r-chatbot [role=log]").evaluate("e => { e.scrollTop = 0; }")
        row = ask_chat(page, RL_VS_SIM2REAL)
        page.wait_for_timeout(500)
        assert 0 <= question_offset(page) <= 60, "the view did not follow to the new question"
        table = row.locator("table").first
        overflow = table.evaluate("e => getComputedStyle(e).overflowX")
        assert overflow in ("auto", "scroll"), "the comparison table neither scrolls nor stacks"
    finally:
        context.close()


def test_embed_renders_tables_clickable_citations_and_keeps_the_conversation(page, base_url):
    watch = Watch(page, base_url)
    page.set_viewport_size({"width": 420, "height": 640})
    page.goto(base_url + "/embed", wait_until="load")
    page.locator(".s2r-example-list .s2r-chip", has_text=RL_VS_SIM2REAL).click()  # one of the examples
    answer = page.locator(".s2r-bot").last
    answer.locator("details.s2r-sources").wait_for()
    table = answer.locator("table")
    expect(table).to_have_count(1)
    expect(table.locator("th", has_text="Sim2Real")).to_be_visible()
    assert "|---|" not in answer.inner_text()

    answer.locator("button.s2r-cite", has_text="[1]").first.click()
    source = answer.locator("li.s2r-source-active")
    expect(source.locator(".s2r-quote")).to_be_visible()
    expect(source.locator(".s2r-quote")).not_to_be_empty()

    page.reload(wait_until="load")
    expect(page.locator(".s2r-user")).to_have_text([RL_VS_SIM2REAL])
    expect(page.locator(".s2r-bot table")).to_have_count(1)
    page.locator("#s2r-clear").click()
    expect(page.locator(".s2r-msg")).to_have_count(0)
    page.reload(wait_until="load")
    expect(page.locator(".s2r-msg")).to_have_count(0)
    expect(page.locator(".s2r-example-list")).to_be_visible()

    page.emulate_media(color_scheme="dark")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != "rgb(255, 255, 255)"
    finish(page, watch, "embed-dark")


def test_docs_page_tries_a_request_offline(page, base_url):
    watch = Watch(page, base_url)
    page.goto(base_url + "/docs", wait_until="load")
    for path, expected in [("api/search", '"hits"'), ("api/ask", '"citations"')]:
        form = page.locator(f"form.try[data-path='{path}']")
        form.locator("button[type=submit]").click()
        expect(form.locator(".try-status")).to_contain_text("200")
        expect(form.locator(".try-out")).to_contain_text(expected)
    finish(page, watch, "docs", full_page=True)


def test_english_answer_shows_english_with_its_chinese_originals(page, base_url):
    """Issue 17: an English question gets English prose; its sources give the aligned English and
    the card's Chinese original under it, in the chat and in the widget."""
    page.goto(base_url + "/", wait_until="load")
    page.locator("#s2r-input textarea").wait_for()
    row = ask_chat(page, "What is domain randomization?")
    body = row.locator(".message-content").first.inner_text()
    assert sum("\u4e00" <= ch <= "\u9fff" for ch in body) <= 0.25 * max(1, sum(ch.isalpha() for ch in body))
    row.locator(".thought .title[role='button']").click()
    source = row.locator(".thought li").first
    expect(source).to_contain_text("Chinese original:")
    assert re.search(r"Chinese original: .*[\u4e00-\u9fff]", source.inner_text())

    page.goto(base_url + "/embed?lang=en", wait_until="load")
    page.locator("#s2r-input").fill("What is domain randomization?")
    page.locator("#s2r-input").press("Enter")
    answer = page.locator(".s2r-bot").last
    answer.locator("details.s2r-sources").wait_for()
    answer.locator("details.s2r-sources summary").click()
    expect(answer.locator(".s2r-original").first).to_contain_text("Chinese original:")
