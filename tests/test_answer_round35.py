"""Round 35 (issue 14/17), built on blind sets 31-33 as dev sets. "Trained in sim, straight onto the robot?" is the
direct-deploy misconception, answered "no" first (blind 33 b33-023 got the reasons for simulation; six labelled
rows, src written35). The four reasons for simulation lead only a why-simulation answer (leads.json lead_only_for:
"why does it fall on the real robot" opened with "dangerous actions cannot be tried endlessly", b33-008). A success
rate asked as "how much does it raise" is asked (not_in_card), "下午三点" is a time, not three points, "in under 2
sentences" is a length cap. A named method said simply leads with its own example line, and "simpler" after that
line says the card has no plainer one (b33-045, b33en-021). Wordings of our own (checked below)."""

from __future__ import annotations

import re

import pytest

from blind_support import copied
from s2r_tutor.models import Turn

DIRECT = ["仿真里训出来的控制策略，原封不动放到真机上能直接用吗", "can a controller trained in simulation go onto the real robot as it is?"]
FALLS = ["仿真里稳稳当当，换到真机上老是摔跤，这是为啥", "why does a robot that's steady in sim keep falling over on the real one?"]
RATE = "系统辨识一般能让成功率提升多少"
TWO = "用两句话以内跟客户说清楚为啥要先在仿真里练"
PLAIN = "真机微调能讲得再通俗一点吗"
SYSID = [Turn(role="user", content="system identification, what does it mean"),
         Turn(role="assistant", content="It uses real robot data to bring the simulation parameters as close as possible to "
                                        "the real robot body.")]
OURS = [*DIRECT, *FALLS, RATE, TWO, PLAIN, SYSID[0].content]


def test_these_wordings_are_our_own():
    assert not copied(set(OURS))


@pytest.mark.parametrize("question", DIRECT)
def test_straight_onto_the_robot_is_answered_no_first(tutor, question):
    a = tutor.ask(question)
    assert re.match(r"\*\*(不是|No)\b", a.answer), a.answer
    assert re.search(r"验证|validat", a.answer), a.answer  # the real-world check is why not


@pytest.mark.parametrize("question", FALLS)
def test_a_reason_for_simulation_does_not_lead_why_it_falls(tutor, question):
    a = tutor.ask(question)
    assert not a.citations[0].chunk_id.partition("#")[2].startswith("why-simulation"), a.answer


def test_how_much_a_method_raises_the_success_rate_is_not_in_the_card(tutor):
    a = tutor.ask(RATE)
    assert a.act == "not_in_card" and a.answer.startswith("卡片没有给出"), (a.act, a.answer)


def test_two_sentences_are_at_most_two(tutor):
    a = tutor.ask(TWO)
    shown = re.sub(r"\s*\[\d+\]", "", a.answer)
    assert len(re.findall(r"[。！？]", shown)) <= 2 and len(shown) <= 200, a.answer


def test_a_named_method_said_simply_leads_with_its_own_line(tutor):
    a = tutor.ask(PLAIN)
    assert a.citations[0].chunk_id.endswith("real-world-fine-tuning"), a.answer
    assert "场景：" not in a.answer, a.answer


def test_simpler_after_the_plainest_line_says_there_is_none_plainer(tutor):
    # (robust policy has a plainer line since round 51, the card's goal of working in a not-quite-identical world:
    # blind 47 b47-030 graded "the card has nothing simpler" 1; system identification has none)
    a = tutor.ask("simpler please", SYSID)
    assert a.answer.startswith("**The card has no simpler wording"), a.answer
    assert a.citations[0].chunk_id.endswith("system-identification"), a.answer


# -- after blind set 34 (dev) ----------------------------------------------------------------------------------------

HARD_THREE = "sim2real难在哪，给我列三条"
GAP_TURN = [Turn(role="user", content="what can we do about the gap between sim and reality"),
            Turn(role="assistant", content="A common one is Domain Randomization: vary friction, mass and lighting "
                                           "on purpose during training.")]
OTHERS = "and the other ones?"
WHY_SIM_ONE = "give me a one-liner on why we train robots in simulation"


def test_the_after_blind34_wordings_are_our_own():
    assert not copied({HARD_THREE, OTHERS, WHY_SIM_ONE, GAP_TURN[0].content})


def test_three_reasons_it_is_hard_are_three_in_card_order(tutor):
    a = tutor.ask(HARD_THREE)
    items = [x for x in a.answer.splitlines() if x.startswith("- ")]
    assert len(items) == 3 and "真实世界无法被完全模拟" in items[0], a.answer
    assert len(re.findall(r"\[\d+\]", a.answer)) == 3, a.answer  # nothing before the list, nothing after it


def test_the_other_ones_after_a_method_is_the_other_methods(tutor):
    a = tutor.ask(OTHERS, GAP_TURN)
    assert not a.refused, a.answer
    assert [c.chunk_id.partition("#")[2] for c in a.citations] == ["system-identification", "real-world-fine-tuning",
                                                                    "robust-policy"], a.answer


def test_a_one_liner_of_why_simulate_is_one_sentence(tutor):
    a = tutor.ask(WHY_SIM_ONE)
    assert [c.chunk_id.partition("#")[2] for c in a.citations] == ["related-simulation"], a.answer
    assert "\n" not in a.answer.strip(), a.answer
