"""Round 37 (issue 14/17), built on blind set 35 as a dev set. A policy moved to another robot model is a gap factor of
its own (scenarios.json `model`: the card's "同一套算法换到不同机器人本体…" and its check of how the two models differ),
not the wear of one unit. An arm that stutters is the motors and joints, not a payload. A content question ("还跟哪些硬件
有关") read as a yes/no by its neighbours gets no 「不是。」 (leads.json wh_shape), unless the yes/no is a customer's quoted words. "How do I tell the customer" is no
customer's complaint, and a customer who says the simulation is inaccurate so what is the point is answered "it is not
useless" (sim-useless, stated rhetorically: Leads.stated_claim), while one whose robot falls is still a story. A follow-up that states a misconception tests it. One unit among identical ones that misses is a
story the card covers, not out of scope; so is a part swapped after which accuracy "tanked". A one-line comparison is
its line, with no table after it. Why it is so hard leads with the table's sentence on a topic the neighbours are
sure of (leads.json table_first). An example asked after "why does it fall" is the gap's example. Wordings of
our own."""

from __future__ import annotations

import pytest
from blind_support import copied

from s2r_tutor.models import Turn

MODEL = ["我们的四足步态策略原来跑在一代机上，换到二代新机型后老是站不稳，先查哪些", "our walking policy was tuned on the older humanoid model and it keeps tipping over on the newer model, what do we check first?"]
STUTTER = "真机上机械臂走轨迹时一顿一顿还带点抖，仿真里很顺，往哪几个方向查"
CONTENT = "sim2real 除了软件之外，还牵扯到机器人哪些硬件"
RL_TURN = [Turn(role="user", content="强化学习跟sim2real到底什么关系"),
           Turn(role="assistant", content="强化学习通过行动—反馈—奖励学习策略；Sim2Real 关注把训练环境中的能力迁移到真实环境。")]
TELL = "那这个跟客户怎么说，他们老当成一回事"
FALL_TURN = [Turn(role="user", content="为啥同一个策略仿真里稳稳的，真机一跑就摔"),
             Turn(role="assistant", content="因为仿真只是现实的近似：摩擦、电机延迟、传感器噪声都和真实不一样，这叫 Reality Gap。")]
ONE_FIX = "那只要把摩擦系数标准了就行了吧？"
EXAMPLE = "能举个例子吗"
ONE_OF = "五台一样的机械臂里就一台放料总偏一点，要查什么"
POINTLESS = ["客户老说仿真反正不准，那做仿真图啥，这个我怎么回", "customer keeps saying simulation is never accurate, so why bother with it? what should I tell them"]
STILL_A_STORY = "客户说你们仿真白做了，四足到了他们厂房照样摔，怎么回他"
ONE_LINE_RL = ["用一句话告诉我强化学习跟sim2real差在哪", "give me a one-liner on RL vs sim2real, how do they differ"]
TANKED = "after the client moved to a cheaper camera batch, pick accuracy tanked. is this a sim2real issue?"
HARD = "sim2real怎么就这么难搞定，做了好几年了还是老踩坑"
QUOTED = ['customer asked "so sim2real is just copying the sim robot into the real world?" how do I respond',
          "客户问“sim2real就是把仿真原样搬到现实里？”这个怎么回答"]
OURS = [*MODEL, STUTTER, CONTENT, TELL, ONE_FIX, EXAMPLE, ONE_OF, *POINTLESS, STILL_A_STORY, *ONE_LINE_RL, TANKED, HARD,
        *QUOTED]


def test_these_wordings_are_our_own():
    assert not copied(set(OURS))


@pytest.mark.parametrize("question", MODEL)
def test_a_policy_moved_to_another_model_checks_how_the_models_differ(tutor, question):
    a = tutor.ask(question)
    assert a.intent == "scenario" and not a.refused, a.answer
    check = a.answer.split("\n")[1]
    assert "新机型" in check or "new model" in check, a.answer  # the models' differences, not one unit's wear
    assert any(c.chunk_id.endswith("physical-system") for c in a.citations), a.answer


def test_an_arm_that_stutters_is_the_motors_and_joints(tutor):
    a = tutor.ask(STUTTER)
    assert "响应延迟和关节间隙" in a.answer, a.answer
    assert "负载" not in a.answer, a.answer


def test_a_content_question_gets_no_bare_no(tutor):
    a = tutor.ask(CONTENT)
    assert "不是。" not in a.answer, a.answer
    assert a.answer.lstrip("*").split("：", 1)[-1].startswith("同一套算法换到不同机器人本体"), a.answer


def test_how_to_tell_the_customer_after_rl_stays_rl(tutor):
    a = tutor.ask(TELL, RL_TURN)
    assert a.intent == "rl_vs_sim2real", a.answer
    assert "强化学习 ≠ Sim2Real" in a.answer.split("\n")[0], a.answer


def test_a_follow_up_stating_a_misconception_gets_its_verdict(tutor):
    a = tutor.ask(ONE_FIX, FALL_TURN)
    assert a.act == "verdict" and a.answer.startswith("**不够。**"), a.answer


def test_an_example_after_why_it_falls_is_the_gaps_example(tutor):
    a = tutor.ask(EXAMPLE, FALL_TURN)
    assert a.intent == "reality_gap", a.answer
    assert "卡片没有专门讲" not in a.answer and "核对" not in a.answer, a.answer


def test_one_unit_among_identical_ones_is_answered(tutor):
    a = tutor.ask(ONE_OF)
    assert not a.refused and a.intent == "scenario", a.answer
    assert "同型号" in a.answer, a.answer  # the unit is compared with one that behaves


@pytest.mark.parametrize("question", POINTLESS)
def test_a_customer_saying_simulation_is_pointless_gets_the_claims_answer(tutor, question):
    a = tutor.ask(question)
    assert a.answer.startswith(("**不是，仿真并不是没用。**", "**No, simulation is not useless.**")), a.answer
    assert a.citations[0].chunk_id.endswith("related-simulation"), a.answer  # its greatest value


def test_a_customer_whose_robot_falls_is_still_a_story(tutor):
    a = tutor.ask(STILL_A_STORY)
    assert a.intent == "scenario" and "不是，仿真并不是没用" not in a.answer, a.answer


@pytest.mark.parametrize("question", ONE_LINE_RL)
def test_a_one_line_comparison_is_its_line_without_the_table(tutor, question):
    a = tutor.ask(question)
    # (round 46: the line is what each one is about, one labelled line each, not "≠ … the two solve different
    # problems" alone, which said only that they differ: blind 42 b42-020)
    assert "|" not in a.answer and "\n" not in a.answer.strip(), a.answer
    assert ("关注训练环境到真实环境" in a.answer) or ("transferring capability" in a.answer), a.answer


def test_a_part_swapped_and_accuracy_tanked_is_a_story(tutor):
    a = tutor.ask(TANKED)
    assert a.intent == "scenario" and "sensor" in a.answer.lower(), a.answer


def test_why_it_is_so_hard_leads_with_the_tables_sentence(tutor):
    a = tutor.ask(HARD)
    assert a.intent == "why_hard" and a.answer.startswith("仿真永远只是现实世界的近似"), a.answer


@pytest.mark.parametrize("question", QUOTED)
def test_a_quoted_claim_keeps_its_verdict_under_a_how_do_i_answer(tutor, question):
    # the wh words are the reader's ("what do I say back"); the customer's quoted yes/no is what the reply answers
    a = tutor.ask(question)
    assert a.answer.startswith(("**No.**", "**不是。**", "不是")), a.answer
