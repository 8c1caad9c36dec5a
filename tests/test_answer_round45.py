"""Round 45 (issue 14/17), built on blind set 43 as a dev set. An email asked with a word between 封 and 邮件
("写封简短邮件") is a letter. "岂不是…？" is a yes/no ("那搞仿真岂不是白搭？" got the methods and no verdict).
"再说简单点" decides the act (it read define and repeated the whole answer). 工况 (operating conditions) is the
card's training conditions: "怎么造出各种工况" was declined. Wordings of our own."""

from __future__ import annotations

import pytest
from blind_support import copied

LETTER = "帮我写封礼貌点的邮件给客户，解释下为什么仿真过了还得去现场调"
RHETORICAL = "反正真机上还得重新调，那先在仿真里练岂不是浪费时间？"
SIMPLER = "Sim2Real 你再说简单点，我讲给销售听"
RELATION_PLAINLY = "说人话，强化学习跟sim2real到底什么关系"
CONDITIONS = ["仿真训练的时候怎么把不同工况都练到", "想在训练里模拟出各种各样的工况，一般怎么做"]
OURS = [LETTER, RHETORICAL, SIMPLER, RELATION_PLAINLY, *CONDITIONS]


def test_these_wordings_are_our_own():
    assert not copied(set(OURS))


def test_an_email_with_a_word_before_it_is_a_letter(tutor):
    a = tutor.ask(LETTER)
    assert a.answer.startswith("**邮件草稿**"), a.answer
    assert "您好" in a.answer and a.citations


def test_a_rhetorical_question_gets_its_verdict(tutor):
    a = tutor.ask(RHETORICAL)
    assert a.answer.startswith("**不是"), a.answer


def test_say_it_simpler_decides_the_act(tutor):
    a = tutor.ask(SIMPLER)
    assert a.act == "simpler", (a.act, a.answer)
    assert "\n- " not in a.answer, a.answer  # no list: the plainest line


@pytest.mark.parametrize("question", [CONDITIONS[0], pytest.param(CONDITIONS[1], marks=pytest.mark.xfail(
    strict=True, reason="declined: no card term, and its labelled neighbours give out_of_scope 0.051 (a world-model "
    "training row at cosine 0.92), just over Settings.answer.neighbour_max_oos 0.05; the bar is left where dev put it"))])
def test_operating_conditions_are_answered(tutor, question):
    a = tutor.ask(question)
    assert a.act != "out_of_scope", a.answer
    assert a.citations, a.answer


def test_a_relation_asked_plainly_is_still_a_comparison(tutor):
    # 说人话 decides simpler, except where the question asks how two things relate (blind 44 b44-049 lost the
    # card's sentence on how RL and Sim2Real relate when it was read as simpler)
    a = tutor.ask(RELATION_PLAINLY)
    assert a.act == "compare", (a.act, a.answer)
    assert "两者解决的是不同问题" in a.answer.split("\n\n")[0], a.answer
