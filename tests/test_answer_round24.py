"""Round 24 (issue 14/17, after blind set 22): a comparison follow-up that names one method and the data both
use compares it with the earlier turn's method; "what is simulation for, then" after a turn on the difficulties
is asked of why simulation is used; words for a customer leave out what the card tells the reader (what to
judge, "解决方案人员要知道："); an example asked again after the card's example says the card has no other; an
example of RL and Sim2Real together is the card's walking robot; "what do I check first" for a gap no factor
names gets the card's general check. Wordings of our own: none is in data/acts.jsonl or a docs/blind* set
(checked below)."""

from __future__ import annotations

import pytest

from blind_support import copied

SYSID_TURN = [{"role": "user", "content": "系统辨识具体是干嘛的"},
              {"role": "assistant", "content": "用真实机器人数据，让仿真参数尽量接近真实本体。"}]
SYSID_VS_FINETUNE = "那它跟真机微调都要真实数据，差别是啥"
HARD_TURN = [{"role": "user", "content": "sim2real 难点在哪"},
             {"role": "assistant", "content": "真实世界无法被完全模拟，传感器有噪声和延迟，环境变化远比仿真复杂。"}]
WHY_STILL = "这么麻烦的话还用仿真干啥"
CUSTOMER_ASKS = ["客户质疑：仿真里都跑通了，为什么交付还要在现场待一个月，我怎么回复",
                 "客户老板问我仿真做得这么好为啥还要现场调试，帮我组织下话术"]
ROBUST_TURN = [{"role": "user", "content": "鲁棒策略什么意思"},
               {"role": "assistant", "content": "**04 · 鲁棒策略 Robust Policy**：示例：“让策略能够容忍一定程度的参数误差和环境变化”"}]
ROBUST_TURN_EN = [{"role": "user", "content": "what does robust policy mean"},
                  {"role": "assistant", "content": "**04 · Robust Policy**: Example: “make the policy tolerate a certain degree "
                                                   "of parameter error and environmental change”"}]
EXAMPLE_AGAIN = [("能不能举个工厂里的例子", ROBUST_TURN), ("any real-world example of that?", ROBUST_TURN_EN)]
RL_TURN = [{"role": "user", "content": "强化学习跟 sim2real 是一回事吗"},
           {"role": "assistant", "content": "不是一回事：强化学习经常先在仿真中训练，再通过 Sim2Real 部署到真机；两者解决的是不同问题。"}]
RL_EXAMPLE = "能用个例子把两者讲明白吗"
CHECK_GAP = "客户反馈仿真里良率九成多，到了现场只剩六成，我第一步查什么"
RL_SIMPLER = "还是有点绕，能说得更直白些吗"
DR_TURN = [{"role": "user", "content": "域随机化是怎么做的"},
           {"role": "assistant", "content": "训练时故意改变摩擦、质量、光照、地形和传感器噪声，减少策略对单一仿真条件的依赖。"}]
# (a follow-up stating its claim in full, the earlier turn, the verdict line it opens with); English follow-ups
# of this length are read on their own words already
FOLLOWUP_CLAIMS = [("那随机化的幅度是不是开得越宽越好", DR_TURN, "**不是越大越好。**"),
                   ("那是不是仿真里测得够好，就能省掉真机测试了", HARD_TURN, "**不是。"),
                   # the claim's other side, asked by negating its subject: that side's verdict (blind 23 b23-037)
                   ("那不借助强化学习，也可以做sim2real吗", RL_TURN, "**是的。**")]
TWO_METHODS_TURN = [{"role": "user", "content": "真机微调和系统辨识是不是都得采真实数据"},
                    {"role": "assistant", "content": "是的，两者都要用真实机器人数据。"}]
THE_TWO_DIFFER = ["那这两个差别是啥", "它们俩不同在哪儿"]  # "那二者有什么差异？" is declined: 二者 is unknown
DRIVING = ["无人驾驶的感知算法怎么做", "what separates level 2 from level 4 autonomous driving?"]
HARD_SIMPLER = "能再简单一点吗，一句话就行"  # "一句话概括一下难点" is declined (no term of its own): not fixed
NEGATED_SUBJECT = [("不靠强化学习能不能搞sim2real", "**是的。**"),
                   ("is sim2real possible without reinforcement learning?", "**Yes.**")]
TWIN_PRICE = ["搭一个工厂的数字孪生系统要花多少钱", "how much does a digital twin of a warehouse usually cost?"]


def test_these_wordings_are_our_own():
    mine = {SYSID_VS_FINETUNE, WHY_STILL, *CUSTOMER_ASKS, *(q for q, _ in EXAMPLE_AGAIN), RL_EXAMPLE, CHECK_GAP, RL_SIMPLER, *TWIN_PRICE,
            *(q for q, _, _ in FOLLOWUP_CLAIMS), *(q for q, _ in NEGATED_SUBJECT),
            *THE_TWO_DIFFER, *DRIVING, HARD_SIMPLER}
    assert not copied(mine)


def test_a_comparison_follow_up_keeps_the_earlier_method_as_a_side(tutor):
    # "真实数据" names the related-data section too: it was taken as a side and system identification lost
    a = tutor.ask(SYSID_VS_FINETUNE, SYSID_TURN)
    assert not a.refused and a.act == "compare", a.answer
    assert [c.chunk_id for c in a.citations[:2]] == ["04-08#system-identification", "04-08#real-world-fine-tuning"], a.answer
    assert a.answer.index("仿真参数尽量接近真实本体") < a.answer.index("少量真实数据继续调整")


def test_what_simulation_is_for_after_the_difficulties_is_why_simulation(tutor):
    a = tutor.ask(WHY_STILL, HARD_TURN)  # inherited the difficulties and listed them again
    assert not a.refused and a.intent == "why_simulation", a.answer
    assert "并行" in a.answer or "低成本" in a.answer or "大量练习" in a.answer, a.answer


@pytest.mark.parametrize("question", CUSTOMER_ASKS)
def test_words_for_a_customer_leave_out_what_the_card_tells_the_reader(tutor, question):
    a = tutor.ask(question)
    assert not a.refused and a.act == "customer_reply", a.answer
    assert "工程化落地过程" in a.answer, a.answer
    assert "重点不是问客户" not in a.answer, a.answer
    assert "解决方案人员要知道" not in a.answer, a.answer


@pytest.mark.parametrize(("question", "history"), EXAMPLE_AGAIN)
def test_an_example_asked_again_says_the_card_has_no_other(tutor, question, history):
    a = tutor.ask(question, history)
    assert not a.refused and a.act == "example", a.answer
    first = a.answer.split("\n", 1)[0]
    assert "没有更具体的例子" in first or "no more concrete one" in first, a.answer
    assert a.citations[0].chunk_id == "04-08#robust-policy", a.answer


def test_an_example_of_rl_and_sim2real_is_the_walking_robot(tutor):
    a = tutor.ask(RL_EXAMPLE, RL_TURN)
    assert not a.refused and a.act == "example", a.answer
    # the walking robot, with RL trained in simulation first where the earlier answer did not say it (blind 10)
    assert "场景：如果让一台真实机器人从零开始学习走路" in a.answer.split("\n\n", 1)[0], a.answer


def test_what_to_check_first_for_an_unnamed_gap_is_the_cards_general_check(tutor):
    a = tutor.ask(CHECK_GAP)
    assert not a.refused, a.answer
    assert "逐项对比仿真和现场的条件" in a.answer, a.answer


def test_rl_vs_sim2real_said_more_simply_is_what_each_one_is_about(tutor):
    # the '≠' sentence again answered nothing new (blind 19 b19-045, 22 b22-045)
    a = tutor.ask(RL_SIMPLER, RL_TURN)
    assert not a.refused and a.act == "simpler", a.answer
    assert "关注如何逐渐学会更好的行为" in a.answer and "关注训练环境到真实环境的能力迁移" in a.answer, a.answer


@pytest.mark.parametrize("question", TWIN_PRICE)
def test_the_price_of_a_digital_twin_is_declined(tutor, question):
    # another subject (lexicon FOREIGN_TOPICS), not a number the card lacks (blind 22 b22-058)
    assert tutor.ask(question).refused


@pytest.mark.parametrize(("question", "history", "verdict"), FOLLOWUP_CLAIMS)
def test_a_follow_up_stating_its_claim_gets_its_verdict(tutor, question, history, verdict):
    # its own neighbours read the claim the conversation's did: the verdict line is its own (blind 21 b21-030, b21-060)
    a = tutor.ask(question, history)
    assert not a.refused and a.act == "verdict", a.answer
    assert a.answer.startswith(verdict), a.answer


@pytest.mark.parametrize(("question", "verdict"), NEGATED_SUBJECT)
def test_a_claim_asked_by_its_negated_subject_gets_the_other_sides_verdict(tutor, question, verdict):
    # "sim2real is only for RL" read from the neighbours; "without RL" asks its other side ("不是。" before)
    a = tutor.ask(question)
    assert not a.refused and a.act == "verdict", a.answer
    assert a.answer.startswith(verdict), a.answer


@pytest.mark.parametrize("question", THE_TWO_DIFFER)
def test_the_two_sides_an_earlier_turn_named_are_compared(tutor, question):
    # declined as having no term of its own (blind 23 b23-044), or read as the reality gap (区别在哪) or the RL
    # table (有什么不同); the data both use is no third side
    a = tutor.ask(question, TWO_METHODS_TURN)
    assert not a.refused and a.act == "compare", a.answer
    assert {c.chunk_id for c in a.citations[:2]} == {"04-08#system-identification", "04-08#real-world-fine-tuning"}, a.answer


@pytest.mark.parametrize("question", DRIVING)
def test_autonomous_driving_is_another_subject(tutor, question):
    assert tutor.ask(question).refused  # b23-027 got the RL/Sim2Real table


def test_why_it_is_hard_in_one_line_is_the_first_difficulty(tutor):
    a = tutor.ask(HARD_SIMPLER, HARD_TURN)  # the goal sentence before (blind 23 b23-043)
    assert not a.refused and a.act == "simpler", a.answer
    assert a.answer.startswith("真实世界无法被完全模拟"), a.answer


def test_a_reader_opening_the_card_no_longer_has_is_a_start_up_error(tutor):
    from s2r_tutor.answer.card import CardView
    from s2r_tutor.answer.leads import Leads
    from s2r_tutor.errors import AnswerDataError

    chunks = [c.model_copy(update={"text": c.text.replace("解决方案人员要知道：", "解决方案人员需要明白：")})
              if c.anchor == "solution-engineers" else c for c in tutor.chunks]
    with pytest.raises(AnswerDataError, match="reader_openers.*解决方案人员要知道"):
        Leads(CardView(chunks))


def test_a_lead_sentence_taken_out_of_a_line_takes_its_marker_along():
    from s2r_tutor.answer.select import assemble_ranked

    # a verdict's lead says the script's first sentence: the script loses it, and its marker with it (the
    # script opened on a bare " [2]", which verification then dropped: blind 22 b22-040)
    lead = "**不是。**\n\n真机验证仍然不可避免 [1] “仿真里能做到”和“客户现场能稳定做到”之间，还有一整段工程化落地过程。 [2]"
    body = "**可以这样跟客户解释：**\n“仿真里能做到”和“客户现场能稳定做到”之间，还有一整段工程化落地过程。 [2] 仿真永远只是现实世界的近似。 [4]"
    out = assemble_ranked(lead, body, 900, 900, lambda _: 1.0, measure=len, lead_first=True)
    assert out.count("[2]") == 1 and "[4]" in out, out
    assert out.endswith("**可以这样跟客户解释：**\n仿真永远只是现实世界的近似。 [4]"), out
