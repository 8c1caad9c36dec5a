"""Grounding fails closed: quotes are exact spans, verification drops what it cannot tie to one."""

from __future__ import annotations

import re

import pytest

from answer_cases import COLLOQUIAL_DEV, DEV
from s2r_tutor.answer.grounding import Ledger, renumber, verify
from s2r_tutor.text import normalize

MARK = re.compile(r"\[(\d+)\]")


def _chunk(tutor, anchor):
    return next(c for c in tutor.chunks if c.chunk_id == f"04-08#{anchor}")


def test_every_citation_is_an_exact_span_and_every_marker_resolves(tutor):
    chunks = {c.chunk_id: c for c in tutor.chunks}
    for question in [q for q, _ in DEV[::2] + COLLOQUIAL_DEV[::2]]:
        _check_spans(tutor.ask(question), chunks)


def _check_spans(answer, chunks):
    assert answer.citations
    for c in answer.citations:
        assert c.quote and c.quote in c.text
        assert c.text == chunks[c.chunk_id].text
    markers = {int(n) for n in MARK.findall(answer.answer)}
    assert markers == {c.marker for c in answer.citations}
    assert sorted(markers) == list(range(1, len(markers) + 1))


@pytest.mark.parametrize("question", ["什么是 Sim2Real？", "Why is Sim2Real hard?", "换了新电机以后动作变慢"])
def test_every_card_line_of_an_answer_is_cited(tutor, question):
    """Lines quoting the card carry a marker; unmarked lines are template framing only."""
    answer = tutor.ask(question)
    card = normalize("".join(c.text for c in tutor.chunks))
    for line in answer.answer.splitlines():
        body = re.sub(r"\*\*[^*]+\*\*", "", line)
        cjk = "".join(re.findall(r"[\u4e00-\u9fff]+", body))
        if len(cjk) >= 12 and normalize(cjk) in card:
            assert MARK.search(line), line


def test_ledger_refuses_text_that_is_not_in_the_chunk(tutor):
    ledger = Ledger()
    chunk = _chunk(tutor, "summary")
    assert ledger.cite(chunk, "Sim2Real 可以让机器人自己学会飞行。") is None
    assert ledger.all() == []
    assert ledger.cite(chunk, "先让机器人在仿真环境中学习和验证能力").endswith("[1]")
    assert ledger.all()[0].quote == "先让机器人在仿真环境中学习和验证能力"


def test_quote_covers_every_cited_span_of_a_chunk(tutor):
    ledger = Ledger()
    chunk = _chunk(tutor, "reality-gap")
    ledger.cite(chunk, "仿真中的摩擦系数可能不准确")
    ledger.cite(chunk, "仿真永远只是现实世界的近似")
    quote = ledger.all()[0].quote
    assert quote in chunk.text and quote.startswith("仿真中的摩擦") and "仿真永远只是现实世界的近似" in quote


def test_verify_drops_invented_sentences_and_bad_markers(tutor):
    ledger = Ledger()
    chunk = _chunk(tutor, "reality-gap")
    good = ledger.cite(chunk, "传感器会有噪声")
    text = "\n".join([
        f"- {good}",
        "- 仿真训练一天可以完成十年的真机训练量 [1]",   # cited, but not in the chunk
        "- 传感器会有噪声 [7]",                          # a marker nothing stands behind
        "Sim2Real was invented in 1950 by robots.",      # uncited claim
    ])
    verdict = verify(text, ledger.all(), ledger.framing)
    assert verdict.markdown == f"- {good}"
    assert len(verdict.invalid) == 2


def test_renumber_drops_unused_and_orders(tutor):
    ledger = Ledger()
    a = ledger.cite(_chunk(tutor, "summary"), "先让机器人在仿真环境中学习和验证能力")
    b = ledger.cite(_chunk(tutor, "why-hard"), "真实世界无法被完全模拟")
    text, cites = renumber(f"{b}", ledger.all())
    assert text.endswith("[1]") and [c.chunk_id for c in cites] == ["04-08#why-hard"]
    assert a  # the summary citation was unused and is gone
