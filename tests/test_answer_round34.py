"""Round 34 (issue 14/17), built on blind sets 31-32 as dev sets, besides the asked forms (test_answer_forms.py).
"The other three?" after one method is the other three, in the card's order and nothing else (blind 31 b31-046, 32
b32-049 led with the best-scoring one and padded; b32en-024, whose earlier answer did not name the method, got the
same method again). A story that asks how to make up for the gap in training is answered methods first (blind 32
b32-032 got the diagnosis). "Which suits what?" of two methods says the card gives no rule for choosing. What a
term means, asked with a customer in the sentence, is the definition, not the solution engineer's advice (leads.json
never_lead_act; blind 32 b32en-001). A grip that slips is contact, not the floor: the ground factor's cue words are
"打滑 / 滑倒 / slip (not: slip off)" now, not any 滑 or slip (dev b29-026, a soft bag slipping from the gripper, named
the floor; blind 31 b31-031, shrink-wrapped boxes, still does: its labelled neighbours vote the floor). Wordings of
our own: none is in data/acts.jsonl or a docs/blind* set (checked below)."""

from __future__ import annotations

import re

import pytest

from blind_support import copied
from s2r_tutor.models import Turn

DR_ZH = [Turn(role="user", content="域随机化指的是什么"),
         Turn(role="assistant", content="训练时故意把摩擦、质量、光照这些条件打乱，让策略别只认一种仿真环境。")]
DR_EN = [Turn(role="user", content="explain domain randomization to me"),
         Turn(role="assistant", content="You vary friction, mass and lighting on purpose while training, so the policy "
                                        "does not rely on one simulated setting.")]
REST_ZH = "剩下那几个方法呢"
REST_EN = "ok, and the remaining ones?"
MAKE_UP = ["客户车间地上有油，AGV 老是打滑，仿真里从来没这情况，训练上能怎么补", 
           "their robot slips on an oily workshop floor it never saw in simulation - how do we compensate in training?"]
SUITS = ["系统辨识和域随机化各自适用于什么情况", "domain randomization or fine-tuning: what is each one good for?"]
CUSTOMER_SAYS = ["客户开会时嘴边老挂着sim2real，这词到底指啥",
                 "my customer keeps throwing the word sim2real around, what does it actually mean?"]
METHODS = ["system-identification", "real-world-fine-tuning", "robust-policy"]


def test_these_wordings_are_our_own():
    assert not copied({REST_ZH, REST_EN, *MAKE_UP, *SUITS, *CUSTOMER_SAYS, DR_ZH[0].content, DR_EN[0].content})


@pytest.mark.parametrize("question, history", [(REST_ZH, DR_ZH), (REST_EN, DR_EN)])
def test_the_rest_of_the_methods_in_card_order_and_nothing_else(tutor, question, history):
    a = tutor.ask(question, history)
    cited = [c.chunk_id.partition("#")[2] for c in a.citations]
    assert cited == METHODS, (cited, a.answer)
    assert "domain-randomization" not in cited, a.answer


@pytest.mark.parametrize("question", MAKE_UP)
def test_making_up_for_the_gap_in_training_leads_with_the_method(tutor, question):
    a = tutor.ask(question)
    assert not a.refused, a.answer
    assert a.citations[0].chunk_id.endswith("domain-randomization"), a.answer


@pytest.mark.parametrize("question", SUITS)
def test_which_suits_what_says_the_card_gives_no_rule(tutor, question):
    a = tutor.ask(question)
    first = a.answer.split("\n")[0]
    assert re.search(r"没有给两者分优劣|does not rank the two", first), a.answer


@pytest.mark.parametrize("question", CUSTOMER_SAYS)
def test_what_a_term_means_is_not_the_solution_engineer_s_advice(tutor, question):
    a = tutor.ask(question)
    assert a.citations[0].chunk_id.endswith("#summary"), a.answer


NON_RL = ["有没有哪个场景不靠强化学习、但照样得做sim2real，举个例子", "what's a use case that needs sim2real without any reinforcement learning?"]


@pytest.mark.parametrize("question", NON_RL)
def test_an_example_the_card_does_not_give_is_said_to_be_missing(tutor, question):
    a = tutor.ask(question)
    assert not copied({question})
    assert a.act == "not_in_card" and not a.refused, (a.act, a.answer)
    assert re.match(r"卡片没有给出|The card does not give", a.answer), a.answer
    assert a.citations[0].chunk_id.endswith("rl-vs-sim2real"), a.answer


GRIP = ["customer's picking arm loses the plastic-wrapped cartons - they slip off the gripper on site, never in sim",
        "客户现场抓裹了塑封膜的纸箱，夹爪一夹就滑走，仿真里一次没掉过"]
FLOOR = ["the robot dog keeps slipping on the customer's freshly mopped floor, never happened in sim",
         "客户车间刚拖完地，机器狗走两步就打滑，仿真里一直很稳"]


@pytest.mark.parametrize("question", GRIP)
def test_a_grip_that_slips_is_no_floor(tutor, question):
    a = tutor.ask(question)
    assert not copied({question})
    assert re.search(r"接触|contact", a.answer), a.answer
    assert not re.search(r"地面 / 摩擦|ground / friction|现场地面|site floor", a.answer), a.answer


@pytest.mark.parametrize("question", FLOOR)
def test_a_floor_that_slips_is_still_the_floor(tutor, question):
    a = tutor.ask(question)
    assert not copied({question})
    assert re.search(r"地面|ground|floor", a.answer) and any("#scenario-factory-floor" in c.chunk_id or "#reality-gap"
                                                           in c.chunk_id for c in a.citations), a.answer
