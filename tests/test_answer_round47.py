"""Round 47 (issue 14/17), built on blind set 45 as a dev set. "Like I'm 5" and "小白能听懂" ask for the simpler
version in so many words (both read as definitions); "what about the last two?" after a list names those two (the
English span needed a word after "two"); "帮我起草个回复" is a draft to send; the precision story's verdict no
longer says the problem is "not the model" (the card's own tag for it is 模型误差, model error). Wordings of our own."""

from __future__ import annotations

import pytest
from blind_support import copied

from s2r_tutor.models import Turn

ELI5 = ["what is system identification? eli5", "能不能用小白也听得懂的话讲下reality gap"]
METHODS_Q = "which methods does the card give for closing the gap?"
METHODS_A = "Four: domain randomization, system identification, real-world fine-tuning and robust policy."
LAST_TWO = "and the last two?"
DRAFT_REPLY = "客户来邮件问仿真里验证过的策略上线稳不稳，帮我起草个回复"
BLAMES_MODEL = "仿真里精度都达标，现场装配总差一点，客户说肯定是我们模型不行"
OURS = [*ELI5, METHODS_Q, METHODS_A, LAST_TWO, DRAFT_REPLY, BLAMES_MODEL]


def test_these_wordings_are_our_own():
    assert not copied(set(OURS))


@pytest.mark.parametrize("question", ELI5)
def test_like_i_am_five_asks_for_the_simpler_version(tutor, question):
    a = tutor.ask(question)
    assert a.act == "simpler", (a.act, a.answer)


def test_the_last_two_are_those_two(tutor):
    a = tutor.ask(LAST_TWO, [Turn(role="user", content=METHODS_Q), Turn(role="assistant", content=METHODS_A)])
    cited = {c.chunk_id.partition("#")[2] for c in a.citations}
    assert {"real-world-fine-tuning", "robust-policy"} <= cited, (cited, a.answer)
    assert "domain-randomization" not in cited and "system-identification" not in cited, (cited, a.answer)


def test_drafting_a_reply_is_a_letter(tutor):
    a = tutor.ask(DRAFT_REPLY)
    assert a.act == "customer_reply", (a.act, a.answer)
    assert a.answer.startswith("**邮件草稿**"), a.answer


def test_the_precision_verdict_does_not_clear_the_model(tutor):
    a = tutor.ask(BLAMES_MODEL)
    assert a.intent == "scenario", (a.intent, a.answer)
    assert "模型本身" not in a.answer and "不一定是算法或策略本身的问题" in a.answer, a.answer
