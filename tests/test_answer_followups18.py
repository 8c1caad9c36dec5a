"""Round 18 (issue 14, follow-ups): a bare "give me the gist" after an answer is answered on the earlier
topic; the same ask of a subject of its own ("简单说说量子计算" after an answer) is declined, not answered as
the earlier topic; a name in a follow-up is an audience and is not declined; "tl;dr" is no "DR".
Wordings of our own: none is in data/acts.jsonl or a docs/blind* set (checked below)."""

from __future__ import annotations

import json

import pytest

from s2r_tutor.answer.acts import load_examples
from s2r_tutor.settings import PROJECT_ROOT

FIRST = {"zh": "什么是 Reality Gap？", "en": "What is the reality gap?"}
GIST = [("zh", "能一句话说完吗"), ("zh", "总结下"), ("en", "tldr pls"), ("en", "so, the gist?"), ("en", "sum that up")]
OTHER_SUBJECT = [("zh", "一句话讲讲量子计算"), ("zh", "简单说说区块链是啥"), ("zh", "举个上海的例子"),
                 ("en", "explain cryptocurrency simply"), ("en", "tl;dr of the napoleonic wars")]
AUDIENCE = [("zh", "那跟华为的人怎么说"), ("en", "How would I say that to Bosch?")]


def _history(tutor, lang: str) -> list[dict]:
    first = tutor.ask(FIRST[lang])
    return [{"role": "user", "content": FIRST[lang]}, {"role": "assistant", "content": first.answer}]


def test_these_wordings_are_our_own():
    blind = {json.loads(x)["question"].strip() for f in PROJECT_ROOT.glob("docs/blind*/holdout*.jsonl")
             for x in f.read_text("utf-8").splitlines() if x.strip()}
    labelled = {e.question for e in load_examples()}
    mine = {q for _, q in GIST + OTHER_SUBJECT + AUDIENCE}
    assert not (mine & (blind | labelled))


@pytest.mark.parametrize("lang,question", GIST)
def test_the_gist_of_the_earlier_answer(tutor, lang, question):
    a = tutor.ask(question, history=_history(tutor, lang))
    assert not a.refused and a.act == "simpler", a.answer
    # the earlier topic's one line: the card's memory hook for the gap, or the gap section itself
    assert a.citations and a.citations[0].chunk_id.startswith(("04-08#reality-gap", "04-08#quick-memory")), a.citations
    assert "Reality Gap" in a.answer, a.answer
    assert len(a.answer) < 200, a.answer  # the gist, not the earlier answer again


@pytest.mark.parametrize("lang,question", OTHER_SUBJECT)
def test_the_same_ask_of_another_subject_is_declined(tutor, lang, question):
    a = tutor.ask(question, history=_history(tutor, lang))
    assert a.refused and not a.citations, a.answer


@pytest.mark.parametrize("lang,question", AUDIENCE)
def test_a_name_in_a_follow_up_is_the_audience(tutor, lang, question):
    a = tutor.ask(question, history=_history(tutor, lang))
    assert not a.refused and a.citations, a.answer


def test_tldr_is_not_domain_randomization(tutor):
    a = tutor.ask("tl;dr?", history=_history(tutor, "en"))
    assert not any("domain-randomization" in c.chunk_id for c in a.citations), a.answer


def test_own_subject_words(tutor):
    words = tutor._get_answerer().own_subject.words
    assert words("简单说说量子计算") == ["量子"]
    assert words("一句话概括一下") == [] and words("再简单点，客户听得懂的那种") == []
    assert words("explain cryptocurrency simply") == ["cryptocurrency"]
    assert words("the gist?") == [] and words("what would you tell the customer?") == []
