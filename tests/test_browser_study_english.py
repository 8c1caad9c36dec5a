"""Study mode in English in headless Chromium (issue 17): choosing English on the Quiz tab turns the
quiz questions and the whole Notes tab English (labels, buttons, starters, the list's section
names, the export's headings) while the reader's note stays as written; back to 中文 restores it."""

from __future__ import annotations

import re
import time

import pytest
from conftest import ARTIFACTS, BROWSER_MARKS

from s2r_tutor.study.bank import generate_bank
from s2r_tutor.web.identity import issue_token

pytestmark = BROWSER_MARKS

TIMEOUT_MS = 90_000  # the 2-core box is shared
_CJK = re.compile(r"[\u3400-\u9fff]")
_LETTER = re.compile(r"[A-Za-z]")


def _settled(locator, timeout_s: float = TIMEOUT_MS / 1000) -> str:
    """The component's text once Gradio has rendered its value: while the next question loads, Gradio writes
    its progress ("processing | 0.1/0.1s") into the component (a CI run read that text, stop 26)."""
    end = time.monotonic() + timeout_s
    while (text := locator.inner_text()).startswith("processing") and time.monotonic() < end:
        time.sleep(0.1)
    return text


def chinese_share(text: str) -> float:
    zh, latin = len(_CJK.findall(text)), len(_LETTER.findall(text))
    return zh / (zh + latin) if zh + latin else 0.0


@pytest.fixture(scope="module")
def study_settings(settings, tmp_path_factory):
    var = tmp_path_factory.mktemp("study-en-var")
    return type(settings).model_validate({**settings.model_dump(), "feedback_file": var / "feedback.jsonl",
                                          "study_db": var / "study.sqlite3", "reader_secret": "e" * 40})


@pytest.fixture(scope="module")
def base_url(study_settings, tutor):
    from s2r_tutor.web.server import build_app, running

    with running(build_app(study_settings, tutor)) as url:
        yield url


def test_quiz_questions_and_notes_tab_in_english(browser, base_url, study_settings, tutor):
    english = {q.question_en for q in generate_bank(tutor.chunks)}
    context = browser.new_context(viewport={"width": 1200, "height": 1100}, locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        page.goto(base_url + "/?reader_token=" + issue_token(study_settings, "browser-en8", 3600), wait_until="load")
        page.get_by_role("tab", name="测验 Quiz").click()
        page.locator("#study-quiz-status").get_by_text("reader").wait_for()
        page.locator("#study-quiz-lang label", has_text="English").click()
        question = page.locator("#study-quiz-question")
        page.locator("#study-quiz-status").get_by_text("answered").wait_for()
        page.locator("#study-quiz-submit").get_by_text("Submit", exact=True).wait_for()  # the tab's own words too
        assert page.locator("#study-quiz-next").inner_text().strip() == "Next question"
        assert page.locator("#study-quiz-answer textarea").get_attribute("placeholder").startswith("English or")
        for _ in range(4):  # each question on screen is the bank's English wording, in English
            text = _settled(question)
            shown = text.split("\n")[0].strip()
            assert shown in english and chinese_share(text) <= 0.25, text
            page.locator("#study-quiz-next").click()
            question.get_by_text(shown, exact=True).wait_for(state="detached")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "study-quiz-en8.png"), full_page=True)

        page.get_by_role("tab", name="笔记 Notes").click()
        assert page.locator("#study-notes-lang input[value=en]").is_checked()  # the choice follows
        tab = page.locator("#study-notes-tab")
        page.locator("#study-notes-save").get_by_text("Save note", exact=True).wait_for()
        assert page.locator("#study-notes-export").inner_text().strip() == "Export Markdown"
        tab.get_by_text("Starter question (from My notes)").wait_for()
        assert page.locator("#study-notes-section input").input_value() == "My notes"
        assert page.locator("#study-notes-text textarea").get_attribute("placeholder").startswith("Write down")
        page.locator("#study-notes-list").get_by_text("has no notes yet").wait_for()
        page.locator("#study-notes-starter input").click()
        page.get_by_role("option", name="Can it be applied to your work?").click()
        note = page.locator("#study-notes-text textarea")
        page.wait_for_function("() => document.querySelector('#study-notes-text textarea').value"
                               ".startsWith('Can it be applied to your work?')")  # the English starter
        note.fill("客户现场先查摩擦 — yes, for the factory demo")
        page.locator("#study-notes-save").click()
        listed = page.locator("#study-notes-list")
        listed.get_by_text("客户现场先查摩擦 — yes, for the factory demo").wait_for()  # as written
        assert "What is Sim2Real? > My notes" in listed.inner_text()
        assert chinese_share(tab.inner_text().replace("客户现场先查摩擦", "").replace("中文", "")) <= 0.05
        page.locator("#study-notes-export").click()
        link = page.locator("#study-notes-file [data-testid='download-link']")
        link.wait_for()
        exported = page.request.get(link.get_attribute("href")).text()
        assert exported.startswith("# My notes · browser-en8") and "## What is Sim2Real? > My notes" in exported
        assert "客户现场先查摩擦 — yes, for the factory demo" in exported
        page.screenshot(path=str(ARTIFACTS / "study-notes-en8.png"), full_page=True)

        page.locator("#study-notes-lang label", has_text="中文").click()  # and back: Chinese labels
        page.locator("#study-notes-save").get_by_text("保存笔记 Save note").wait_for()
        listed.get_by_text("什么是 Sim2Real？ > 我的笔记").wait_for()
        assert page.locator("#study-quiz-lang input[value=zh]").is_checked()
    finally:
        context.close()


def test_a_page_opened_with_lang_en_starts_the_study_tabs_in_english(browser, base_url, study_settings, tutor):
    """`/?lang=en` (as the widget's `?lang=en`): the three tabs open in English without a click."""
    english = {q.question_en for q in generate_bank(tutor.chunks)}
    context = browser.new_context(viewport={"width": 1200, "height": 1100}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        token = issue_token(study_settings, "browser-en8-url", 3600)
        page.goto(f"{base_url}/?lang=en&reader_token={token}", wait_until="load")
        page.get_by_role("tab", name="笔记 Notes").click()
        page.locator("#study-notes-save").get_by_text("Save note", exact=True).wait_for()
        assert page.locator("#study-notes-lang input[value=en]").is_checked()
        page.get_by_role("tab", name="测验 Quiz").click()
        page.locator("#study-quiz-status").get_by_text("answered").wait_for()
        text = page.locator("#study-quiz-question").inner_text()
        assert text.split("\n")[0].strip() in english and chinese_share(text) <= 0.25, text
    finally:
        context.close()
