"""Round 23 (issue 14/17, after blind set 21): out-of-scope questions that borrow the card's words (a plant's
MES or ERP interface, inference speed on an embedded computer, a warehouse's throughput simulation, a field
team's training) are read as such from labelled questions; an example asked of a topic its own neighbours are
sure of leads with that topic's example sentence; the reader's earlier questions are read in simplified
characters like the question; "what is the loop" is answered with the loop's own steps; "does RL have to be
trained in simulation?" opens with its verdict, and the RL claims are read only where RL is named; a one-point
answer leaves out supporting lines that score below its point. Wordings of our own: none is in
data/acts.jsonl or a docs/blind* set (checked below)."""

from __future__ import annotations

import pytest

from blind_support import copied

OUT_OF_SCOPE = ["产线的MES系统和我们机器人怎么做数据对接", "导出成TensorRT引擎以后推理还是慢，有什么加速办法",
                "what's the best tool to simulate our distribution center's order flow before we buy more robots?",
                "how do we speed up policy inference on the robot's embedded computer?"]
EXAMPLE_ASK = "现实和仿真差在哪，给客户举几个实际的例子"
TRADITIONAL_TURN = [{"role": "user", "content": "系統辨識和域隨機化有什麼不同"},
                    {"role": "assistant", "content": "系统辨识用真实机器人数据让仿真参数接近真实本体；域随机化训练时主动制造参数变化。"}]
EXAMPLE_FOLLOWUP = "能舉個實際的例子嗎"
LOOP_ASKS = ["仿真到部署的全流程是啥 有几步",  # read as a definition: an RL sentence led (blind 21 b21-009)
             "sim2real 的闭环是什么"]  # the card's own word for the loop; answered with the definition
# (question, the verdict line it opens with)
RL_WHERE = [("强化学习是不是非得用仿真", "**都可以，不限于其中一种。**"), ("does RL have to be trained in a simulator?", "**Either works; it is not limited to one of them.**")]
RL_EQUALS = ("isn't sim2real pretty much RL by another name?", "**No, they are not the same thing.**")
# a changed robot, "same algorithm anyway": the robot body, not where RL trains
BODY_ASK = "客户觉得算法一样就行，把我们训好的策略装到他们改装过的机器人上可行吗"
DATA_VERDICT = "真机数据够多了，上线前的安全验证还用做吗"
# "say it plainly", asked on its own: the card's picture, not the one-sentence summary (blind 19 b19-002)
PLAIN = [("能不能用大白话给我讲讲sim2real，我客户是开超市的", "场景："),
         ("explain sim2real in plain words for a non-engineer", "Scenario:"),
         ("how should I put sim2real to the client's finance director, no jargon please", "Scenario:")]
DEFINE_TURN = [{"role": "user", "content": "sim2real 到底是什么"},
               {"role": "assistant", "content": "Sim2Real 可以理解为：先让机器人在仿真环境中学习和验证能力，再把这些能力迁移到真实机器人，"
                                                "并通过适配缩小仿真世界与真实世界之间的差距。"}]
SIMPLER_FOLLOWUP = "能再说得通俗点吗"
# a short turn after a customer story that names only the story's own topic (客户) is asked of the story
SENSOR_STORY = [{"role": "user", "content": "客户那边换了一批新的深度相机，识别效果明显变差了"},
                {"role": "assistant", "content": "这是传感器差异带来的仿真—现实差距：新相机的噪声和延迟跟训练时不一样。"}]
STORY_REPLY = "那我跟客户该怎么讲"
GAP_PLAIN = "explain the reality gap in plain words"


def test_these_wordings_are_our_own():
    mine = {*OUT_OF_SCOPE, EXAMPLE_ASK, EXAMPLE_FOLLOWUP, *LOOP_ASKS, *(q for q, _ in RL_WHERE), RL_EQUALS[0],
            BODY_ASK, DATA_VERDICT, *(q for q, _ in PLAIN), SIMPLER_FOLLOWUP, STORY_REPLY, GAP_PLAIN}
    assert not copied(mine)


@pytest.mark.parametrize("question", OUT_OF_SCOPE)
def test_another_subject_in_the_cards_words_is_declined(tutor, question):
    assert tutor.ask(question).refused


def test_an_example_of_a_sure_topic_leads_with_its_example_sentence(tutor):
    a = tutor.ask(EXAMPLE_ASK)  # "客户" pulled the solution engineers' section over the example (blind 20 b20-010)
    assert not a.refused and a.act == "example", a.answer
    assert a.answer.startswith("仿真中的摩擦系数可能不准确"), a.answer
    assert a.citations[0].chunk_id == "04-08#reality-gap"


def test_an_earlier_question_in_traditional_characters_gives_the_follow_up_its_topic(tutor):
    a = tutor.ask(EXAMPLE_FOLLOWUP, TRADITIONAL_TURN)  # was the walking scenario of the card's intro
    assert not a.refused and a.intent == "methods", a.answer
    assert a.citations[0].chunk_id in {"04-08#domain-randomization", "04-08#system-identification"}, a.answer
    assert "从零开始学习走路" not in a.answer


@pytest.mark.parametrize("question", LOOP_ASKS)
def test_what_the_loop_is_is_answered_with_its_steps_first(tutor, question):
    a = tutor.ask(question)
    assert a.citations[0].chunk_id == "04-08#system-loop", a.answer
    assert a.answer.index("构建仿真环境") < 60, a.answer


@pytest.mark.parametrize("question,verdict", [*RL_WHERE, RL_EQUALS])
def test_an_rl_yes_no_question_opens_with_its_verdict(tutor, question, verdict):
    a = tutor.ask(question)
    assert not a.refused and a.act == "verdict", a.answer
    assert a.answer.startswith(verdict), a.answer
    assert a.citations[0].chunk_id == "04-08#rl-vs-sim2real"


def test_an_rl_claim_is_not_read_where_rl_is_not_named(tutor):
    a = tutor.ask(BODY_ASK)
    assert not a.refused, a.answer
    assert "都可以" not in a.answer and "强化学习" not in a.answer, a.answer
    # (round 39: a policy put on another robot is claim other-body, 「不一定能直接用。」, not the card's bare 「不是。」)
    assert a.answer.startswith(("不是。同一套算法", "**不一定能直接用。** 同一套算法")), a.answer
    assert a.citations[0].chunk_id == "04-08#physical-system", a.answer


def test_a_verdict_leaves_out_supporting_lines_below_its_point(tutor):
    a = tutor.ask(DATA_VERDICT)
    assert a.answer.startswith("**不能省。**"), a.answer
    # the why-hard list ("本体参数存在误差", "传感器存在噪声和延迟") answers another question
    assert "本体参数存在误差" not in a.answer and "传感器存在噪声" not in a.answer, a.answer


@pytest.mark.parametrize("question,opening", PLAIN)
def test_a_plain_explanation_asked_on_its_own_is_the_cards_picture(tutor, question, opening):
    a = tutor.ask(question)
    assert not a.refused and a.act in ("simpler", "customer_reply"), a.answer
    assert a.answer.startswith(opening), a.answer
    assert a.citations[0].chunk_id == "04-08#plain-language"
    assert "一句话总结" not in a.answer and "In one sentence" not in a.answer, a.answer


def test_simpler_as_a_follow_up_stays_shorter_than_the_answer_before(tutor):
    a = tutor.ask(SIMPLER_FOLLOWUP, DEFINE_TURN)
    assert not a.refused and a.act == "simpler", a.answer
    assert len(a.answer) < len(DEFINE_TURN[1]["content"]) * 1.5, a.answer
    assert not a.answer.startswith("场景："), a.answer


def test_a_customer_reply_after_a_story_is_the_storys(tutor):
    a = tutor.ask(STORY_REPLY, SENSOR_STORY)  # blind 22 b22-044: a generic script without the sensors
    assert not a.refused and a.act == "customer_reply", a.answer
    assert "传感器" in a.answer.split("\n")[0], a.answer
    assert "04-08#scenario-sensors" in {c.chunk_id for c in a.citations}, a.answer


def test_the_reality_gap_in_plain_words_is_its_plain_line_and_its_differences(tutor):
    a = tutor.ask(GAP_PLAIN)  # blind 22 b22-034: the falling robot, a picture of why simulation is used
    assert a.answer.startswith("Reality Gap: simulation and the real world are not exactly the same"), a.answer
    assert "friction" in a.answer and "fall hundreds of times" not in a.answer, a.answer
