"""`/card/{card_id}` (#15): the widget's read-only card page on a live loopback server (the real app,
every guard in front of it). The quote marks only the card's own text; nothing from the request is
written into the page; an unknown card is a 404; the page gets the widget's CSP and the Host check."""

from __future__ import annotations

import re

import httpx
import pytest

from s2r_tutor.web.cardpage import MAX_QUOTE_CHARS, card_page

XSS = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def client(base_url):
    with httpx.Client(base_url=base_url, timeout=60) as c:
        yield c


def marks(page: str) -> list[str]:
    return re.findall(r"<mark[^>]*>(.*?)</mark>", page, re.DOTALL)


def test_a_cited_quote_is_marked_in_its_section(client, tutor):
    answer = tutor.ask("什么是 Reality Gap？")
    cite = answer.citations[0]
    card, _, anchor = cite.chunk_id.partition("#")
    r = client.get(f"/card/{card}", params={"section": anchor, "quote": cite.quote})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors" in csp and "default-src 'none'" in csp
    page = r.text
    found = marks(page)
    assert found and all(m in cite.quote for m in found)  # card text only, and the whole quote of it:
    assert len("".join(found)) >= 0.9 * len(re.sub(r"\s|^- ", "", cite.quote, flags=re.MULTILINE))
    assert 'id="s2r-hl"' in page.split("<mark", 1)[1][:40], "the first mark is the #s2r-hl scroll target"
    target = re.search(r'<section id="sec-([^"]+)" class="s2r-card-target">', page)
    assert target and target.group(1) == anchor
    assert "<script" not in page


CJK = re.compile(r"[\u4e00-\u9fff]")


def test_in_english_the_page_shows_the_aligned_english_with_the_chinese_folded_under_it(client, tutor):
    """#17: an English reader's "open in card" lands on the English rendering, the cited sentences
    marked in English, and the Chinese original (what the citation quotes) marked in the fold."""
    answer = tutor.ask("Why does a robot that walks in simulation fall on a real floor?")
    assert answer.language == "en"
    cite = next(c for c in answer.citations if c.quote_en)
    card, _, anchor = cite.chunk_id.partition("#")
    r = client.get(f"/card/{card}", params={"section": anchor, "quote": cite.quote, "lang": "en"})
    assert r.status_code == 200 and '<html lang="en">' in r.text
    section = re.search(rf'<section id="sec-{re.escape(anchor)}" class="s2r-card-target">(.*?)</section>',
                        r.text, re.DOTALL).group(1)
    english, _, original = section.partition('<details class="s2r-card-zh"')
    assert original, "the Chinese original is folded under the English"
    assert not CJK.search(re.sub(r"<[^>]+>", "", english)), "the English part carries no Chinese prose"
    marked_en, marked_zh = marks(english), marks(original)
    assert marked_en and all(m in cite.quote_en for m in marked_en)  # each aligned sentence of the quote
    assert marked_zh and all(m in cite.quote for m in marked_zh)
    assert r.text.count('id="s2r-hl"') == 1 and 'id="s2r-hl"' in english  # scroll to the English


def test_the_chinese_page_has_no_english_fold(client):
    r = client.get("/card/04-08", params={"section": "reality-gap"})
    assert r.status_code == 200 and "s2r-card-zh" not in r.text and '<html lang="zh-CN">' in r.text


@pytest.mark.reliability("R160")
def test_unknown_card_is_404_and_unknown_section_is_harmless(client):
    r = client.get("/card/99-99", params={"quote": XSS})
    assert r.status_code == 404 and "onerror" not in r.text and "<img" not in r.text
    assert "content-security-policy" in r.headers
    r = client.get("/card/04-08", params={"section": '"><script>alert(1)</script>'})
    assert r.status_code == 200 and "<script" not in r.text and "alert(1)" not in r.text
    assert 'id="s2r-hl"' not in r.text  # no target section, no quote: nothing to scroll to


@pytest.mark.reliability("R160")
@pytest.mark.parametrize("quote", [XSS, "</mark><script>alert(1)</script>", "仿" * (MAX_QUOTE_CHARS + 1),
                                   "Sim2Real（Simulation to Reality）<b>x</b>"])
def test_a_hostile_or_huge_quote_is_never_written_into_the_page(client, quote):
    r = client.get("/card/04-08", params={"section": "summary", "quote": quote})
    assert r.status_code == 200
    assert "<script" not in r.text and "<img" not in r.text and "<b>" not in r.text and "onerror" not in r.text
    assert marks(r.text) == []  # none of these is a span of the card
    r = client.get("/card/04-08", params={"section": "summary", "quote": quote, "lang": "en"})
    assert r.status_code == 200 and marks(r.text) == [] and "<script" not in r.text and "<img" not in r.text
    assert '<span id="s2r-hl"></span>' in r.text  # the section is still the scroll target


@pytest.mark.reliability("R160")
def test_an_overlong_quote_is_ignored(client):
    r = client.get("/card/04-08", params={"quote": "仿" * 3_000})  # ~27 kB encoded
    assert r.status_code == 414  # the server's head limit (R162) answers before the page
    r = client.get("/card/04-08", params={"quote": "仿" * 1_500})  # fits the URL, over MAX_QUOTE_CHARS: ignored
    assert r.status_code == 200 and marks(r.text) == []


@pytest.mark.reliability("R160")
def test_the_host_check_applies(base_url):
    r = httpx.get(base_url + "/card/04-08", headers={"Host": "evil.example"})
    assert r.status_code in (400, 421)


@pytest.mark.reliability("R160")
def test_card_markdown_stays_text(tutor):
    """A card whose text carries HTML or a script link renders it as text (the chat's answer_markdown)."""
    chunk = tutor.chunks[0].model_copy(update={"text": f"前言 {XSS} [点我](javascript:alert(1)) <script>x</script>"})
    page = card_page([chunk], chunk.doc_id, chunk.anchor, "前言")
    main = page.split("<main", 1)[1]
    assert "<img" not in main and "<script" not in main and "href" not in main
    assert marks(page) == ["前言"]
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


@pytest.mark.reliability("R164")
def test_the_page_is_rendered_off_the_event_loop_and_cached(client):
    """R164: the page is built in the runtime's bounded worker threads, not on the event loop (a /card
    flood stalled every route: /healthz 2 s), and a page asked again comes from the cache; the page
    sends no Referer for its stylesheet (a long quote in the URL was sent twice, over the head limit)."""
    import threading

    from s2r_tutor.web import cardpage

    seen: list[str] = []
    real = cardpage.card_page

    def spy(*args, **kw):
        seen.append(threading.current_thread().name)
        return real(*args, **kw)

    cardpage._page.cache_clear()
    cardpage.card_page = spy
    try:
        params = {"section": "reality-gap", "quote": "仿真中的摩擦系数可能不准"}
        first = client.get("/card/04-08", params=params)
        again = client.get("/card/04-08", params=params)
    finally:
        cardpage.card_page = real
    assert first.status_code == again.status_code == 200 and first.text == again.text
    assert marks(first.text)
    assert len(seen) == 1 and seen[0].startswith("AnyIO worker thread"), seen  # not the event loop's thread
    assert cardpage._page.cache_info().hits >= 1
    assert '<meta name="referrer" content="no-referrer">' in first.text
