"""Round 42 (issue 14/17), built on blind set 40 as a dev set. Two card phrases quoted in one lead paragraph are
two sentences: a list item or a clause cut at "；" gets its stop before its marker ("真机验证仍然不可避免 [1]
解决方案人员要知道…" read as one run-on sentence to the blind 40 readers), in English too, and never a doubled mark
(";." after a clause). An item the lead closed with 。 is still not repeated in the list under it. Whether RL
trains only in simulation gets "either works, not limited to one" (a reader stating "only in simulation" got
"Either works." and no plain no). Wordings of our own."""

from __future__ import annotations

import re

import pytest
from blind_support import copied

NOT_SHIPPABLE = ["仿真那边已经全部稳定了，是不是可以直接交付客户上线", "the policy is solid in sim now, so we can hand it to the customer as is?"]
PLAIN_GAP = "能不能把 reality gap 用大白话讲一下"
SAME = ["强化学习和 sim2real 说的是同一件事吧", "RL and sim2real are basically one and the same, no?"]
ONLY_SIM = ["强化学习是不是只能放在仿真里训练", "so RL can only ever be trained inside a simulator?"]
WHY_SIM_FOR_CUSTOMER = ["帮我想两句能直接跟客户说的话：为什么我们要先在仿真里训练", "give me two sentences for a client on why we train in simulation first"]
BODY_PARAMS = ["本体参数量得不太准的话，对sim2real影响会很大吗", "if our robot's mass and inertia numbers are off, is that a big deal for sim2real?"]
OURS = [*NOT_SHIPPABLE, PLAIN_GAP, *SAME, *ONLY_SIM, *WHY_SIM_FOR_CUSTOMER, *BODY_PARAMS]
# a cited piece that runs straight into the next one: no stop before its marker, words after it
_RUN_ON = re.compile(r"[^。！？”.!?:：\s]\s*\[\d+\] [^\n\[-]")


def test_these_wordings_are_our_own():
    assert not copied(set(OURS))


def _lead(answer: str) -> str:
    """The first paragraph with words of its own (under a bold verdict line, when there is one)."""
    return next(p for p in answer.split("\n\n") if not re.fullmatch(r"\*\*[^*]+\*\*", p.strip()))


@pytest.mark.parametrize("question", [*NOT_SHIPPABLE, PLAIN_GAP, *SAME])
def test_pieces_of_one_lead_paragraph_are_sentences(tutor, question):
    a = tutor.ask(question)
    lead = _lead(a.answer)
    assert len(re.findall(r"\[\d+\]", lead)) >= 2, a.answer  # a lead of several cited pieces
    assert not _RUN_ON.search(lead), a.answer
    assert not re.search(r"[;,:；，]\s*[.。]", a.answer), a.answer


@pytest.mark.parametrize("question", SAME)
def test_an_item_the_lead_closed_is_not_listed_again(tutor, question):
    a = tutor.ask(question)
    said = "服务的不只限于强化学习" if a.language == "zh" else "Serves more than reinforcement learning alone"
    assert a.answer.count(said) == 1, a.answer


@pytest.mark.parametrize("question", ONLY_SIM)
def test_rl_only_in_simulation_is_answered_not_limited(tutor, question):
    a = tutor.ask(question)
    assert a.answer.startswith(("**都可以，不限于其中一种。**", "**Either works; it is not limited to one of them.**")), a.answer
    assert "可以在仿真或真实环境中训练" in a.answer or "Can train in simulation or in the real environment" in a.answer


@pytest.mark.parametrize("question", WHY_SIM_FOR_CUSTOMER)
def test_why_simulation_for_a_customer_in_two_sentences(tutor, question):
    a = tutor.ask(question)
    assert a.intent == "why_simulation", (a.intent, a.answer)
    assert not a.answer.startswith(("真机验证仍然不可避免", "Validation on the real robot is still unavoidable")), a.answer
    shown = re.sub(r"\s*\[\d+\]", "", a.answer)
    assert len(re.findall(r"[。！？]|\.(?=\s|$)", shown)) <= 2, a.answer


@pytest.mark.parametrize("question", BODY_PARAMS)
def test_whether_inaccurate_body_parameters_matter_is_yes(tutor, question):
    a = tutor.ask(question)
    assert a.answer.startswith(("**对", "**Yes")), a.answer
    assert "不是。" not in a.answer, a.answer  # the card's answer to "only a software problem?" is no part of it
    assert "真实本体参数越不准确" in a.answer or "the less accurate the real robot body's parameters" in a.answer.lower() \
        or "less accurate" in a.answer, a.answer


def test_an_english_quotation_gets_no_stray_stop_after_it(tutor):
    a = tutor.ask("give me a concrete example of the reality gap I can use with a customer")
    assert "”." not in a.answer and '".' not in a.answer, a.answer
