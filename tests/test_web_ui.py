"""The chat's message building and kept conversation (#15), without a browser: sources travel as
plain Markdown (copy and screen readers get text), card text cannot become markup, and what the
browser keeps across reloads is checked on the way back in."""

from __future__ import annotations

import re

import pytest

from s2r_tutor.models import Answer, Citation
from s2r_tutor.web.chat import SAVED_MESSAGES, _record, answer_messages, restored_conversation, saved_conversation
from s2r_tutor.web.render import plain_text, sources_markdown

TAG = re.compile(r"<\s*/?\s*[A-Za-z][^>]*>")


def citation(marker: int, quote: str, section: str = "什么是 Sim2Real？ > 一句话总结") -> Citation:
    return Citation(marker=marker, chunk_id=f"04-08#s{marker}", section=section, quote=quote,
                    text=f"前文。{quote}后文。", source="04-08-sim2real.md")


def answer(citations: list[Citation], language: str = "zh") -> Answer:
    return Answer(question="什么是 Sim2Real？", language=language, intent="definition",
                  answer="**Sim2Real** 是从仿真到现实 [1]。\n\n| a | b |\n|---|---|\n| 1 | 2 [2] |",
                  citations=citations, followups=["为什么需要仿真？"])


def test_sources_are_a_plain_numbered_list_in_a_collapsed_second_message():
    body, sources = answer_messages(answer([citation(1, "先在仿真中学习"), citation(2, "再迁移到真机")]))
    assert "options" not in body and sources["options"] == [{"value": "为什么需要仿真？", "label": "为什么需要仿真？"}]
    assert sources["metadata"] == {"title": "来源 (2)", "status": "done"}
    lines = sources["content"].splitlines()
    assert lines == ["1. **一句话总结**：先在仿真中学习 `04-08#s1`", "2. **一句话总结**：再迁移到真机 `04-08#s2`"]
    assert not TAG.search(body["content"] + sources["content"])


def test_an_answer_without_citations_is_one_message():
    (only,) = answer_messages(answer([]))
    assert only["options"] and "metadata" not in only


def test_card_text_in_a_source_stays_text():
    md = sources_markdown([citation(1, "<img src=x onerror=alert(1)> **粗体** [链接](http://a.b) a|b")], "zh")
    assert "<img" not in md.replace("\\<img", "")  # only as an escaped literal
    assert "\\<img src=x onerror=alert(1)\\>" in md and "\\[链接\\](http://a.b)" in md and "a\\|b" in md
    assert "**粗体**" not in md and "粗体" in md  # emphasis markers dropped, the words kept
    assert plain_text("- 第一\n- 第二\n\n> 引文") == "第一 第二 引文"


def test_an_english_answer_shows_the_english_quote_when_the_citation_has_one():
    if "quote_en" not in Citation.model_fields:
        pytest.skip("Citation has no quote_en yet (#17)")
    c = citation(1, "先在仿真中学习").model_copy(update={"quote_en": "learn in simulation first"})
    assert "learn in simulation first" in sources_markdown([c], "en")
    assert "先在仿真中学习" in sources_markdown([c], "zh")


def test_the_kept_conversation_round_trips_and_bad_values_start_fresh():
    key = b"k" * 32
    msgs = [{"role": "user", "content": "q"}, *answer_messages(answer([citation(1, "先在仿真中学习")]))]
    record = _record(answer([citation(1, "先在仿真中学习")]), key)
    kept = saved_conversation(msgs, [{"role": "user", "content": "q"}], {"1": record}, key)
    assert restored_conversation(kept, key) == (msgs, msgs, [{"role": "user", "content": "q"}], {"1": record})
    assert restored_conversation(kept, b"other" * 8) == ([], [], [], {})  # another server's key
    for bad in (None, "x", [], {"v": 2}, {"v": 1, "messages": msgs, "turns": [], "records": {}},
                {**kept, "messages": [{"role": "system", "content": "x"}]}, {**kept, "sig": "é" * 64},
                {**kept, "records": {"1": {**record, "sig": "é"}}},
                {**kept, "messages": [{"role": "user", "content": 3}]},
                {**kept, "messages": [*msgs[:-1], {"role": "assistant", "content": "[x](https://evil.example)"}]}):
        assert restored_conversation(bad, key) == ([], [], [], {})


def test_a_long_conversation_keeps_its_newest_messages_with_likes_reindexed():
    msgs = [{"role": "user" if i % 2 == 0 else "assistant", "content": str(i)} for i in range(SAVED_MESSAGES + 10)]
    records = {"1": {"answer": "old"}, str(SAVED_MESSAGES + 9): {"answer": "new"}}
    kept = saved_conversation(msgs, [], records, b"k")
    assert kept["messages"][0]["content"] == "10" and len(kept["messages"]) == SAVED_MESSAGES
    assert kept["records"] == {str(SAVED_MESSAGES - 1): {"answer": "new"}}
