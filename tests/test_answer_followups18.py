"""Round 18 (issue 14, follow-ups): a bare "give me the gist" after an answer is answered on the earlier
topic, also when it says where the gist goes ("for slack", "发群里") or names the audience; "tl;dr" is no
"DR". Not yet: the same ask of a subject of its own ("简单说说量子计算" after an answer) is still read as
the earlier topic's (strict xfail; a subject check was tried and reverted, docs/answering-history.md
"Round 18"). Wordings of our own: none is in data/acts.jsonl or a docs/blind* set (checked below)."""

from __future__ import annotations


import pytest

from blind_support import copied

FIRST = {"zh": "什么是 Reality Gap？", "en": "What is the reality gap?"}
GIST = [("zh", "能一句话说完吗"), ("zh", "总结下"), ("en", "tldr pls"), ("en", "so, the gist?"), ("en", "sum that up")]
_NOT_YET = pytest.mark.xfail(strict=True, reason="round 18: a follow-up's own subject is not checked (reverted)")
OTHER_SUBJECT = [pytest.param("zh", "一句话讲讲量子计算", marks=_NOT_YET), pytest.param("zh", "简单说说区块链是啥", marks=_NOT_YET),
                 pytest.param("en", "explain cryptocurrency simply", marks=_NOT_YET)]
AUDIENCE = [("zh", "那跟华为的人怎么说"), ("en", "How would I say that to Bosch?"),
            ("zh", "再精简点，我要转发给老板"), ("en", "shorter, for a teams message")]


def _history(tutor, lang: str) -> list[dict]:
    first = tutor.ask(FIRST[lang])
    return [{"role": "user", "content": FIRST[lang]}, {"role": "assistant", "content": first.answer}]


def test_these_wordings_are_our_own():
    mine = {q for _, q in GIST + AUDIENCE} | {p.values[1] for p in OTHER_SUBJECT}
    assert not copied(mine)


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
def test_an_audience_or_a_destination_is_no_subject(tutor, lang, question):
    a = tutor.ask(question, history=_history(tutor, lang))
    assert not a.refused and a.citations, a.answer


def test_tldr_is_not_domain_randomization(tutor):
    a = tutor.ask("tl;dr?", history=_history(tutor, "en"))
    assert not any("domain-randomization" in c.chunk_id for c in a.citations), a.answer
