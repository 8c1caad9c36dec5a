"""The widget's "open in card" (#15) in headless Chromium: a source's link opens the read-only card
page in a new tab, scrolled to the cited section, with the quoted span marked. Both languages."""

from __future__ import annotations

import pytest
from conftest import ARTIFACTS, BROWSER_MARKS

from s2r_tutor.web.server import build_app, running

pytestmark = BROWSER_MARKS
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed")
expect = sync_api.expect
TIMEOUT_MS = 90_000  # a shared 2-core box


@pytest.fixture(scope="module")
def base_url(settings, tutor, tmp_path_factory):
    web = settings.model_copy(update={"feedback_file": tmp_path_factory.mktemp("var") / "feedback.jsonl"})
    with running(build_app(web, tutor)) as url:
        yield url


@pytest.fixture
def context(browser):
    ctx = browser.new_context(viewport={"width": 420, "height": 700}, locale="zh-CN")
    ctx.set_default_timeout(TIMEOUT_MS)
    expect.set_options(timeout=TIMEOUT_MS)
    yield ctx
    ctx.close()


def ask_widget(page, base_url: str, question: str, lang: str = ""):
    page.goto(base_url + "/embed" + (f"?lang={lang}" if lang else ""), wait_until="load")
    page.locator("#s2r-input").fill(question)
    page.locator("#s2r-input").press("Enter")
    answer = page.locator(".s2r-bot").last
    answer.locator("details.s2r-sources").wait_for()
    return answer


def test_widget_citation_opens_the_card_with_the_quote_marked(context, base_url):
    page = context.new_page()
    offsite: list[str] = []
    context.on("request", lambda r: None if r.url.startswith((base_url, "data:", "about:")) else offsite.append(r.url))
    answer = ask_widget(page, base_url, "什么是 Reality Gap？")
    answer.locator("button.s2r-cite", has_text="[1]").first.click()  # [1] opens its source ...
    source = answer.locator("li.s2r-source-active")
    quote = source.locator(".s2r-quote").first.inner_text()
    link = source.locator("a.s2r-open-card")
    expect(link).to_have_text("在概念卡中查看")
    assert link.get_attribute("target") == "_blank" and "noopener" in link.get_attribute("rel")

    with context.expect_page() as opened:  # ... and its link opens the card in a new tab
        link.click()
    card = opened.value
    card.wait_for_load_state("load")
    assert "/card/" in card.url and card.url.endswith("#s2r-hl")
    mark = card.locator("mark.s2r-hl").first
    expect(mark).to_be_visible()
    expect(mark).to_be_in_viewport()  # the fragment scrolled to it, with no script on the page
    marked = "".join(card.locator("mark.s2r-hl").all_inner_texts())
    assert marked and marked[:12] in quote.replace("\n", "")
    expect(card.locator("section.s2r-card-target mark.s2r-hl").first).to_be_visible()
    assert card.locator("script").count() == 0
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    card.screenshot(path=str(ARTIFACTS / "embed-open-in-card.png"))
    assert offsite == [], f"the widget or the card page fetched from other hosts: {offsite}"


def test_widget_open_in_card_in_english(context, base_url):
    page = context.new_page()
    answer = ask_widget(page, base_url, "What is the reality gap?", lang="en")
    answer.locator("details.s2r-sources summary").click()
    link = answer.locator("a.s2r-open-card").first
    expect(link).to_have_text("Open in card")
    assert "lang=en" in link.get_attribute("href")
    with context.expect_page() as opened:
        link.click()
    card = opened.value
    card.wait_for_load_state("load")
    assert card.evaluate("document.documentElement.lang") == "en"
    expect(card.locator("mark.s2r-hl").first).to_be_visible()
