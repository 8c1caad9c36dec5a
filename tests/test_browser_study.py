"""The study tabs in the real chat app, driven in headless Chromium: answer quiz questions and see
graded, cited feedback; progress lands in the reader's SQLite file; a note is saved and listed.
Screenshots go to tests/artifacts/ (git-ignored)."""

from __future__ import annotations


import pytest
from conftest import ARTIFACTS, BROWSER_MARKS

from s2r_tutor.study.bank import generate_bank
from s2r_tutor.study.progress import StudyStore
from s2r_tutor.web.identity import COOKIE, issue_token

pytestmark = BROWSER_MARKS

TIMEOUT_MS = 90_000  # the 2-core box is shared


@pytest.fixture(scope="module")
def study_settings(settings, tmp_path_factory):
    var = tmp_path_factory.mktemp("study-var")
    # a reader secret: readers come from signed ?reader_token= links; a page without one is anonymous
    return type(settings).model_validate({**settings.model_dump(), "feedback_file": var / "feedback.jsonl",
                                          "study_db": var / "study.sqlite3", "reader_secret": "s" * 40})


def as_reader(study_settings, reader: str) -> str:
    """The page path a portal links a signed-in reader to."""
    return "/?reader_token=" + issue_token(study_settings, reader, 3600)


@pytest.fixture(scope="module")
def base_url(study_settings, tutor):
    from s2r_tutor.web.server import build_app, running

    with running(build_app(study_settings, tutor)) as url:
        yield url


def new_page(browser, **context_kw):
    context = browser.new_context(viewport={"width": 1200, "height": 1100}, locale="zh-CN", **context_kw)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    offsite: list[str] = []
    return context, page, offsite


def open_quiz(page, url: str) -> None:
    page.goto(url, wait_until="load")
    page.get_by_role("tab", name="测验 Quiz").click()
    page.locator("#study-quiz-status").get_by_text("reader").wait_for()


def notes_section(tutor) -> str:
    """The accordion title of the Notes tab's default section (the card's last: 我的笔记)."""
    from s2r_tutor.web.render import section_title

    return section_title(tutor.chunks[-1].section)


def open_card_section(page, title: str) -> None:
    page.get_by_role("tab", name="概念卡 Card").click()
    page.locator("button.label-wrap", has_text=title).last.click()


def test_quiz_tab_grades_an_answer_with_cited_feedback(browser, base_url, study_settings, tutor):
    bank = generate_bank(tutor.chunks)
    first, second = bank[0], bank[1]  # a new reader starts at the first question of each section in turn
    context, page, offsite = new_page(browser)
    page.on("request", lambda r: None if r.url.startswith((base_url, "data:", "blob:", "about:"))
            else offsite.append(r.url))
    try:
        open_quiz(page, base_url + as_reader(study_settings, "browser-ann"))
        assert "browser-ann" in page.locator("#study-quiz-status").inner_text()
        question = page.locator("#study-quiz-question")
        assert first.question in question.inner_text()

        # a right answer, typed
        page.locator("#study-quiz-answer textarea").fill(first.key_points[0] + "，" + first.key_points[1])
        page.locator("#study-quiz-submit").click()
        feedback = page.locator("#study-quiz-feedback")
        feedback.get_by_text("正确").first.wait_for()
        assert f"[{first.chunk_id}]" in feedback.inner_text()
        page.locator("#study-quiz-status").get_by_text("已答 1 题").wait_for()  # the status line follows (#15)

        # the next question; a wrong answer shows the expected one and quotes the cited passage
        page.locator("#study-quiz-next").click()
        page.locator("#study-quiz-question").get_by_text(second.question[:12]).wait_for()
        page.locator("#study-quiz-answer textarea").fill("我不知道")
        page.locator("#study-quiz-submit").click()
        feedback.get_by_text("不正确").wait_for()
        page.locator("#study-quiz-status").get_by_text("已答 2 题").wait_for()
        text = feedback.inner_text()
        assert f"[{second.chunk_id}]" in text and second.quote[:20] in text
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "study-quiz.png"), full_page=True)
    finally:
        context.close()
    stats = StudyStore(study_settings.study_db).stats("browser-ann")
    assert stats[first.id].last_verdict == "correct" and stats[second.id].last_verdict == "wrong"
    assert offsite == []


def test_quiz_and_flashcards_in_english(browser, base_url, study_settings, tutor):
    """Choosing English on the Quiz tab: the question on screen, the status line and the feedback
    (for a bare letter too) turn English, the next question is English, and the Flashcards tab
    follows (its own choice shows English; a term card shows the English name in front)."""
    bank = generate_bank(tutor.chunks)
    first, second = bank[0], bank[1]
    context, page, _ = new_page(browser)
    try:
        open_quiz(page, base_url + as_reader(study_settings, "browser-en"))
        question = page.locator("#study-quiz-question")
        assert first.question in question.inner_text()
        page.locator("#study-quiz-lang label", has_text="English").click()
        question.get_by_text(first.question_en).wait_for()
        assert first.question not in question.inner_text() and "Source [04-08#intro]" in question.inner_text()
        page.locator("#study-quiz-status").get_by_text("answered").wait_for()

        page.locator("#study-quiz-answer textarea").fill("A")
        page.locator("#study-quiz-submit").click()
        feedback = page.locator("#study-quiz-feedback")
        feedback.get_by_text("Not quite").wait_for()
        text = feedback.inner_text()
        assert "You missed" in text and "Source [04-08#intro]" in text and "出处" not in text

        page.locator("#study-quiz-next").click()
        question.get_by_text(second.question_en[:30]).wait_for()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "study-quiz-en.png"), full_page=True)

        page.get_by_role("tab", name="闪卡 Flashcards").click()
        assert page.locator("#study-flashcards-lang input[value=en]").is_checked()
        cards = page.locator("#study-flashcards")
        cards.get_by_text("Glossary (en ↔ zh)").wait_for()
        cards.locator("summary", has_text="Domain Randomization").first.click()  # English in front
        cards.get_by_text("域随机化", exact=True).first.wait_for()
        page.locator("#study-flashcards-lang label", has_text="中文").click()  # and back, on either tab
        cards.get_by_text("术语 · Glossary (zh ↔ en)").wait_for()
        page.get_by_role("tab", name="测验 Quiz").click()
        question.get_by_text(second.question[:12]).wait_for()
    finally:
        context.close()
    stats = StudyStore(study_settings.study_db).stats("browser-en")
    assert stats[first.id].last_verdict == "wrong"


def test_anonymous_reader_choice_by_option_and_notes(browser, base_url, study_settings, tutor):
    """Without a token (and an unsigned X-Reader-Id ignored) the browser is its own anonymous reader,
    kept in its cookie: quiz answers and notes land under that id, and the page never shows it."""
    context, page, _ = new_page(browser, extra_http_headers={"X-Reader-Id": "hdr-bob"})
    try:
        open_quiz(page, base_url + "/")
        assert "anonymous" in page.locator("#study-quiz-status").inner_text()
        # pick an option with the radio buttons when the question has options
        for _ in range(6):
            radios = page.locator("#study-quiz-choices input[type=radio]")
            if radios.count():
                break
            page.locator("#study-quiz-next").click()
            page.wait_for_timeout(300)
        if radios.count():
            radios.first.check()
            page.locator("#study-quiz-submit").click()
            page.locator("#study-quiz-feedback").get_by_text("出处").wait_for()

        page.get_by_role("tab", name="闪卡 Flashcards").click()
        cards = page.locator("#study-flashcards")
        cards.locator("summary", has_text="域随机化").first.click()  # flip the card
        cards.get_by_text("Domain Randomization").first.wait_for()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "study-flashcards.png"), full_page=True)

        page.get_by_role("tab", name="笔记 Notes").click()
        page.locator("#study-notes-text textarea").fill("客户工厂地面更滑，先查摩擦参数")
        page.locator("#study-notes-save").click()
        page.locator("#study-notes-list").get_by_text("客户工厂地面更滑").wait_for()
        # the note is shown beside its section in the chat's card tab (opening the tab refreshes it)
        open_card_section(page, notes_section(tutor))
        card_note = page.locator(".prose.s2r-card-notes", has_text="客户工厂地面更滑，先查摩擦参数")
        card_note.wait_for()
        assert "anonymous" in card_note.inner_text()
        page.get_by_role("tab", name="笔记 Notes").click()
        page.locator("#study-notes-export").click()
        link = page.locator("#study-notes-file [data-testid='download-link']")
        link.wait_for()
        assert link.get_attribute("download") == "notes.md"
        exported = page.request.get(link.get_attribute("href")).text()
        assert exported.startswith("# 我的笔记 · 匿名 anonymous") and "客户工厂地面更滑" in exported
        page.screenshot(path=str(ARTIFACTS / "study-notes.png"), full_page=True)
        anon = next(c["value"] for c in context.cookies() if c["name"] == COOKIE)
    finally:
        context.close()
    store = StudyStore(study_settings.study_db)
    assert [n.text for n in store.notes(anon)] == ["客户工厂地面更滑，先查摩擦参数"]
    assert store.stats(anon)  # the option answer was recorded for this browser's reader
    assert not store.notes("hdr-bob") and not store.stats("hdr-bob")


def test_card_tab_shows_only_this_readers_notes_as_text(browser, base_url, study_settings, tutor):
    """A note with HTML and Markdown in it appears beside its section in the card tab, literally
    (no <img> created, no dialog), for its reader only; the page load fills it in as well."""
    probe = "**粗体** <img src=x onerror=alert(1)> [链接](http://example.com)"
    dialogs: list[str] = []
    context, page, _ = new_page(browser)
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        page.goto(base_url + as_reader(study_settings, "card-cat"), wait_until="load")
        page.get_by_role("tab", name="笔记 Notes").click()
        page.locator("#study-notes-text textarea").fill(probe)
        page.locator("#study-notes-save").click()
        page.locator("#study-notes-list").get_by_text("粗体").wait_for()

        page.goto(base_url + as_reader(study_settings, "card-cat"), wait_until="load")  # a fresh page: filled on load
        open_card_section(page, notes_section(tutor))
        card_note = page.locator(".prose.s2r-card-notes", has_text="onerror")
        card_note.wait_for()
        assert probe in card_note.inner_text()
        assert card_note.locator("img").count() == 0 and card_note.locator("a").count() == 0
        assert not any("客户工厂地面更滑" in t for t in page.locator(".prose.s2r-card-notes").all_inner_texts())
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        card_note.screenshot(path=str(ARTIFACTS / "study-card-notes.png"))

        page.goto(base_url + as_reader(study_settings, "card-dog"), wait_until="load")  # another reader sees none of it
        open_card_section(page, notes_section(tutor))
        page.wait_for_timeout(1000)
        assert not any("onerror" in t for t in page.locator(".prose.s2r-card-notes").all_inner_texts())
    finally:
        context.close()
    assert dialogs == []
