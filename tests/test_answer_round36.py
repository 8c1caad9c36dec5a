"""Round 36 (issue 14/17), built on blind sets 33-34 as dev sets. Which algorithm we use, and what Sim2Real costs,
are things the card does not give: said so first, then what the card does say (the point is the sim-to-site gap,
not the algorithm; the cost head with its items), while "should I ask which algorithm they use" stays a verdict
answered by the card's point (leads.json not_in_card 'unless'). Two labelled side items (仿真环境：… / 真实环境：…) lead
on a line each. The whole picture asked with a why in it walks the card's arc. "Why can't the simulation just be
accurate" is why it is hard, with no customer quote as "the closest section". Moving a policy to another robot body
is the robot-body topic. A concrete example of Sim2Real is the card's walking scene. "Is simulation useless then?" is
a claim (sim-useless): no, then simulation's greatest value; "still worth it, right?" is its other side, yes. How much
real data is not in the card; a method the question names speaks first. Wordings of our own."""

from __future__ import annotations

import re

import pytest

from blind_support import copied
from s2r_tutor.models import Turn

ALGO = ["客户当面问我们sim2real具体用的哪种算法，我怎么回他比较稳", "a prospect asked me what algorithm our sim2real stack runs on, how do I respond to the client?"]
ASK_ALGO = "去客户现场排查，我是不是得先问清楚他们用的什么算法"
COST = ["给客户做一套sim2real大概要多少钱", "how expensive is a sim2real project for a legged robot, roughly?"]
SIDES = "仿真环境跟真实环境两边各是什么样，对照着说"
WHOLE = "给新同事讲讲sim2real的全貌：它是什么，为什么要先仿真，难点在哪"
ACCURATE = "why can't the simulation simply be made accurate enough?"
PORT = "客户打算把我们训好的步态策略装到他们自己设计的机器人上，这样有什么风险"
CONCRETE = "can you give me one concrete real-life example of sim2real?"
USELESS = ["反正仿真总是不准，那干脆别做仿真了吧？", "is a simulator pointless if it never matches reality?"]
STILL = "training in sim is still worth it though, right?"
DATA = ["做真机微调得准备多少条真实数据", "how many real-world episodes does real-world fine-tuning need?"]
OURS = [*ALGO, ASK_ALGO, *COST, SIDES, WHOLE, ACCURATE, PORT, CONCRETE, *USELESS, STILL, *DATA]


def test_these_wordings_are_our_own():
    assert not copied(set(OURS))


@pytest.mark.parametrize("question", ALGO)
def test_which_algorithm_we_use_is_not_in_the_card_then_its_point(tutor, question):
    a = tutor.ask(question)
    assert a.act == "not_in_card" and re.match(r"卡片没有给出|The card does not give", a.answer), a.answer
    assert "solution-engineers" in a.citations[0].chunk_id, a.answer  # the point is the gap, not the algorithm


def test_whether_to_ask_which_algorithm_is_answered_by_the_cards_point(tutor):
    a = tutor.ask(ASK_ALGO)
    assert a.act != "not_in_card", a.answer
    assert a.answer.lstrip("*").startswith("重点不是问客户使用了什么"), a.answer


@pytest.mark.parametrize("question", COST)
def test_a_cost_is_not_in_the_card_then_the_cost_section_with_its_items(tutor, question):
    a = tutor.ask(question)
    assert a.act == "not_in_card" and not a.refused, a.answer
    assert a.citations[0].chunk_id.endswith("why-simulation-cost"), a.answer
    assert re.search(r"设备磨损、场地、人工、维修|equipment wear, space, labor, repairs", a.answer), a.answer


def test_two_sides_lead_on_a_line_each(tutor):
    a = tutor.ask(SIDES)
    lines = a.answer.splitlines()
    assert lines[0].startswith("- 仿真环境：") and lines[1].startswith("- 真实环境："), a.answer


def test_the_whole_picture_with_a_why_walks_the_arc(tutor):
    a = tutor.ask(WHOLE)
    cited = [c.chunk_id.partition("#")[2] for c in a.citations]
    assert cited[0] == "summary" and "why-simulation-cost" in cited and "quick-memory" in cited, a.answer


def test_why_the_sim_cannot_be_accurate_is_why_it_is_hard(tutor):
    a = tutor.ask(ACCURATE)
    assert a.intent == "why_hard", (a.intent, a.answer)
    assert "Customer:" not in a.answer and "closest" not in a.answer, a.answer


def test_a_policy_moved_to_another_body_is_the_robot_body(tutor):
    a = tutor.ask(PORT)
    assert a.citations[0].chunk_id.endswith("physical-system"), a.answer
    assert "同一套算法换到不同机器人本体" in a.answer, a.answer


def test_a_concrete_example_is_the_walking_scene(tutor):
    a = tutor.ask(CONCRETE)
    assert a.citations[0].chunk_id.endswith("plain-language"), a.answer
    assert a.answer.startswith("Scenario:"), a.answer


def test_a_heading_label_carries_no_question_mark(tutor):
    a = tutor.ask(COST[0])
    assert not re.search(r"[？?]\*\*[：:]|\*\*[？?][：:]", a.answer), a.answer


@pytest.mark.parametrize("question", USELESS)
def test_simulation_is_not_useless(tutor, question):
    a = tutor.ask(question)
    assert re.match(r"\*\*(不是|No)\b", a.answer), a.answer
    assert a.citations[0].chunk_id.endswith("related-simulation"), a.answer


def test_simulation_still_worth_it_is_answered_yes(tutor):
    a = tutor.ask(STILL)
    assert a.answer.startswith("**Yes."), a.answer
    assert a.citations[0].chunk_id.endswith("related-simulation"), a.answer


@pytest.mark.parametrize("question", DATA)
def test_how_much_real_data_is_not_in_the_card_then_the_named_method(tutor, question):
    a = tutor.ask(question)
    assert a.act == "not_in_card" and re.match(r"卡片没有给出|The card does not give", a.answer), a.answer
    assert a.citations[0].chunk_id.endswith("real-world-fine-tuning"), a.answer
    assert re.search(r"少量真实数据|small amount of real data", a.answer), a.answer


# -- after blind set 35 (dev) ----------------------------------------------------------------------------------------

ASK_IN_STORY = "客户现场跑得一塌糊涂，我过去之前是不是得先搞清楚他们用的什么算法？"
HOW_MUCH_DATA = "for the fine-tuning step, how many robot trials of real data are we talking about?"


def test_the_after_blind35_wordings_are_our_own():
    assert not copied({ASK_IN_STORY, HOW_MUCH_DATA})


def test_asking_which_algorithm_inside_a_site_story_is_the_cards_point(tutor):
    a = tutor.ask(ASK_IN_STORY)
    assert a.answer.lstrip("*").startswith("重点不是问客户使用了什么"), a.answer
    assert "是的" not in a.answer, a.answer


def test_two_lines_of_what_the_card_says_get_no_retrieved_third(tutor):
    a = tutor.ask(HOW_MUCH_DATA)
    assert a.act == "not_in_card", a.answer
    lines = [x for x in a.answer.splitlines() if x.startswith("- ")]
    assert len(lines) == 2 and "small amount of real data" in lines[0], a.answer


OTHER_SUBJECT = "thanks. unrelated, but how do I get my kubernetes pod to stop crashing on startup?"
RL_TURN = [Turn(role="user", content="are RL and sim2real one and the same?"),
           Turn(role="assistant", content="No. Reinforcement learning learns a policy through action, feedback and "
                                          "reward; Sim2Real is about carrying it over to the real robot.")]


def test_a_long_turn_on_another_subject_is_no_follow_up(tutor):
    assert not copied({OTHER_SUBJECT, RL_TURN[0].content})
    a = tutor.ask(OTHER_SUBJECT, RL_TURN)
    assert a.refused, a.answer
    # a short turn that leans on the earlier one still follows it
    b = tutor.ask("how would I put that to a client?", RL_TURN)
    assert not b.refused and b.intent == "rl_vs_sim2real", b.answer


TWO_REASONS = [Turn(role="user", content="说说机器人为啥要在仿真里先练"),
               Turn(role="assistant", content="两个原因：一是成本，真机训练会磨损设备、占场地；二是安全，摔倒碰撞不能在真机上反复试。")]


def test_just_those_two_asks_for_the_rest_of_the_list(tutor):
    assert not copied({TWO_REASONS[0].content})
    a = tutor.ask("只有这两条吗？还有没有", TWO_REASONS)
    assert not a.refused, a.answer
    assert [c.chunk_id.partition("#")[2] for c in a.citations] == ["why-simulation-scale", "why-simulation-control"], a.answer
