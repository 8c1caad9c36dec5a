"""Round 41 (issue 14/17), built on blind set 39 as a dev set. A yes/no asked first and followed by an aside is
still that yes/no: its misconception is read in the sentence that asks it ("…就没差距了吧？反正我们买最贵的引擎"
read the cost of simulation by its aside). A comparison follow-up after a turn on RL and Sim2Real ("how do the two
work together") compares those two instead of being declined. "那怎么缩小" after an answer on the gap asks for the
methods' list. A timeline ("ballpark weeks", 周期多长) is a duration the card does not give. "What should I ask
first" about a prospect with good simulation results is a check-first question, answered with what solution
engineers judge. Real-robot logs ("真机跑出来的日志") are real data at hand. Wordings of our own."""

from __future__ import annotations

import pytest
from blind_support import copied

from s2r_tutor.models import Turn

ASIDE = ["仿真只要做得足够逼真，差距就没了吧？反正我们预算够，买最好的引擎",
         "if the simulator is realistic enough there is no gap, right? we can just pay for the best engine."]
RL_TURN = [Turn(role="user", content="强化学习跟sim2real啥关系"),
           Turn(role="assistant", content="强化学习学策略；Sim2Real 把训练环境里的能力迁移到真机，两者不是一回事。")]
RL_TURN_EN = [Turn(role="user", content="how is RL related to sim2real"),
              Turn(role="assistant", content="RL learns a policy; Sim2Real carries what was learned over to the real "
                                             "robot. They are not the same thing.")]
TOGETHER = ["那这两样落到项目里是怎么互相配合的", "so how do the two get combined in a project"]
GAP_TURN = [Turn(role="user", content="给我讲讲 reality gap 这个说法是啥意思"),
            Turn(role="assistant", content="仿真永远只是现实世界的近似，这种差异就是 Reality Gap。")]
SHRINK = "那这个差距怎么缩小"
TIMELINE = ["从仿真训练到现场稳定跑，周期一般多长", "rough timeline from a sim-trained policy to a stable site rollout? ballpark months?"]
PROBE = ["客户说他们仿真跑得非常好，要我们评估能不能上线，我第一步该问他们什么",
         "a prospect says their sims look fantastic and wants to go live, what do I ask first"]
LOGS = "客户那边存了很多真机跑出来的日志，想用起来，几种方法里选哪个"
HAYWIRE = "we relocated the packing line next to big windows and the camera-guided arm acts up every afternoon, sim2real problem?"
DECK_TURN = [Turn(role="user", content="so what exactly is this reality gap thing"),
             Turn(role="assistant", content="The difference between simulation and the real world: a simulation is only "
                                            "ever an approximation.")]
DECK = "any example I can drop into my slides for the customer?"
CONFLICT = ["系统辨识要把参数调准，域随机化又要把参数打乱，这两个不矛盾吗", "don't system identification and domain randomization conflict?"]
OURS = [*ASIDE, HAYWIRE, *[t.content for t in DECK_TURN], DECK, *CONFLICT, *[t.content for t in RL_TURN + RL_TURN_EN + GAP_TURN], *TOGETHER, SHRINK, *TIMELINE, *PROBE, LOGS]


def test_these_wordings_are_our_own():
    assert not copied(set(OURS))


@pytest.mark.parametrize("question", ASIDE)
def test_a_yes_no_followed_by_an_aside_is_answered_no_with_the_gap(tutor, question):
    a = tutor.ask(question)
    assert a.act == "verdict" and a.intent in ("why_hard", "reality_gap"), (a.act, a.intent)
    assert a.answer.lstrip("*").startswith(("不是", "No")), a.answer
    assert "真实世界无法被完全模拟" in a.answer or "cannot be fully simulated" in a.answer, a.answer
    assert "成本" not in a.answer and "cost" not in a.answer.lower(), a.answer  # not the aside's topic


@pytest.mark.parametrize(("turns", "question"), [(RL_TURN, TOGETHER[0]), (RL_TURN_EN, TOGETHER[1])])
def test_how_the_two_work_together_after_rl_is_answered_not_declined(tutor, turns, question):
    a = tutor.ask(question, turns)
    assert a.intent == "rl_vs_sim2real", (a.intent, a.answer)
    assert "强化学习经常先在仿真中训练" in a.answer or "often trained in simulation first" in a.answer, a.answer


def test_how_to_shrink_it_after_the_gap_leads_with_the_methods(tutor):
    a = tutor.ask(SHRINK, GAP_TURN)
    first = a.answer.split("\n\n")[0]
    assert a.intent == "methods" and a.act == "overview", (a.intent, a.act)
    assert "共同目标" in first and "仿真永远只是" not in first, a.answer
    for name in ("域随机化", "系统辨识", "真机微调", "鲁棒策略"):
        assert name in a.answer, a.answer


@pytest.mark.parametrize("question", TIMELINE)
def test_a_timeline_is_a_duration_the_card_does_not_give(tutor, question):
    a = tutor.ask(question)
    assert a.act == "not_in_card", (a.act, a.answer)
    assert a.answer.startswith(("卡片没有给出具体需要多长时间", "The card does not give how long it takes")), a.answer


@pytest.mark.parametrize("question", [
    pytest.param(PROBE[0], marks=pytest.mark.xfail(strict=True, reason=(
        "the labelled stories read a body factor (0.43) from a 'walks more sluggishly a year after delivery' story at "
        "cosine 0.925, so it is answered as a fault story; a Chinese question-kind story row fixed it but took the "
        "precision factor from a bearing press-fit story (tests/test_answer_scenarios.py) and was not kept"))),
    PROBE[1]])
def test_what_to_ask_a_prospect_with_good_sim_results_first(tutor, question):
    a = tutor.ask(question)
    assert a.act == "check_first", a.act
    assert a.answer.startswith(("重点不是问客户使用了什么 Sim2Real 算法", "The point is not to ask which Sim2Real")), a.answer
    assert a.citations[0].chunk_id.endswith("#solution-engineers"), a.citations[0]


def test_real_robot_logs_at_hand_pick_the_methods_that_use_real_data(tutor):
    a = tutor.ask(LOGS)
    first = a.answer.split("\n\n")[0]
    assert "系统辨识" in first and "真机微调" in first, a.answer
    assert "域随机化" not in a.answer, a.answer


def test_a_story_in_english_idiom_is_a_story_with_its_factor(tutor):
    a = tutor.ask(HAYWIRE)
    assert a.intent == "scenario", (a.intent, a.answer)
    assert "reality gap" in a.answer.split("\n")[0], a.answer
    assert "lighting" in a.answer, a.answer


def test_an_example_to_drop_into_slides_is_no_customer_fault(tutor):
    a = tutor.ask(DECK, DECK_TURN)
    assert a.act == "example" and a.intent == "reality_gap", (a.act, a.intent)
    assert "What to check first" not in a.answer and "no scenario for this exact case" not in a.answer, a.answer


@pytest.mark.parametrize("question", CONFLICT)
def test_whether_two_methods_conflict_is_answered_no_first(tutor, question):
    a = tutor.ask(question)
    assert a.answer.startswith(("不是对立的，也不冲突", "Not opposites, and they do not conflict")), a.answer
    assert ("域随机化" in a.answer and "系统辨识" in a.answer) or "System Identification" in a.answer, a.answer
