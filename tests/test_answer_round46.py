"""Round 46 (issue 14/17), built on blind set 44 as a dev set. A short message to send (a WeChat reply, a text,
"draft me 2-3 sentences") is a draft in a few sentences, not an email with 您好 and all four reasons; any draft to
send is words for the customer, whatever story the question tells; a draft that states the other side of a claim
("explain that RL and Sim2Real are not the same") opens on no 「是的。」; "how do I put that to the customer" after a
comparison says the table's reply whole; "in 2 sentences" counts an English sentence as English runs; "one line
each" is one line per side; "我该先问他什么" asks what to check first; "should I open by asking which algorithm"
is the engineer's own question, not one for the card's missing algorithm; 板斧 are the methods; a comparison in one
line says what each side is about; 症状 (symptoms) are the card's customer scenarios. Wordings of our own."""

from __future__ import annotations

import re

from blind_support import copied

from s2r_tutor.models import Turn

WECHAT = "客户问为什么不能直接在真机上训练，帮我写条微信回他"
SHORT_MSG = "write a quick message to the client: the robot walks fine at our lab but keeps falling over at their site"
EMAIL_OTHER_SIDE = "帮我写封邮件给客户，说明一下强化学习和 Sim2Real 不是一回事"
COMPARE = "is reinforcement learning basically the same as sim2real"
TWO_SENTENCES = "how would I say that to the customer in two sentences?"
ONE_LINE_EACH = "reinforcement learning vs sim2real, give me one line each"
ASK_HIM_FIRST = "客户反映换了新相机后定位老是偏，我去了先问他什么"
OPEN_WITH_ALGORITHM = "should we open by asking which sim2real algorithm their team runs?"
AXES = "sim2real里缩小gap的四板斧分别是啥，每个一句话就行"
COMPARE_ONE_LINE = "强化学习跟sim2real的差别，一句话说完"
SYMPTOMS = "把客户那边常见的sim2real症状列一下，我要做个培训"
OURS = [WECHAT, SHORT_MSG, EMAIL_OTHER_SIDE, COMPARE, TWO_SENTENCES, ONE_LINE_EACH, ASK_HIM_FIRST,
        OPEN_WITH_ALGORITHM, AXES, COMPARE_ONE_LINE, SYMPTOMS]

_SENTENCE = re.compile(r"[。！？]|\.(?=\s|$)")


def test_these_wordings_are_our_own():
    assert not copied(set(OURS))


def test_a_wechat_reply_is_a_short_message(tutor):
    a = tutor.ask(WECHAT)
    assert a.act == "customer_reply", (a.act, a.answer)
    assert a.answer.startswith("**消息草稿**"), a.answer
    body, _, sources = a.answer.split("\n\n", 1)[1].rpartition("\n\n")  # the markers after it (round 51)
    assert sources.startswith("依据"), a.answer
    assert "您好" not in body and "\n" not in body.strip(), a.answer  # one paragraph, no greeting, no list
    assert 1 <= len(_SENTENCE.findall(re.sub(r"\s*\[\d+\]", "", body))) <= 3, a.answer
    assert a.citations, a.answer


def test_a_draft_to_send_is_a_customer_reply_whatever_the_story(tutor):
    a = tutor.ask(SHORT_MSG)
    assert a.act == "customer_reply", (a.act, a.answer)
    assert a.answer.startswith("**Draft message**"), a.answer
    assert "Check this first" not in a.answer and a.citations, a.answer


def test_a_draft_stating_the_other_side_opens_on_no_yes(tutor):
    a = tutor.ask(EMAIL_OTHER_SIDE)
    assert a.answer.startswith("**邮件草稿**"), a.answer
    assert "是的" not in a.answer, a.answer
    assert "两者解决的是不同问题" in a.answer, a.answer


def test_putting_a_comparison_to_the_customer_says_both_sides(tutor):
    first = tutor.ask(COMPARE)
    a = tutor.ask(TWO_SENTENCES, [Turn(role="user", content=COMPARE), Turn(role="assistant", content=first.answer)])
    assert a.act == "customer_reply", (a.act, a.answer)
    assert "Reinforcement learning" in a.answer and "transferring capability" in a.answer, a.answer


def test_one_line_each_is_one_line_per_side(tutor):
    a = tutor.ask(ONE_LINE_EACH)
    assert "action, feedback and reward" in a.answer, a.answer
    assert "transferring capability" in a.answer, a.answer
    assert "Deals with the differences" not in a.answer, a.answer  # the first row only


def test_what_to_ask_him_first_is_a_check(tutor):
    a = tutor.ask(ASK_HIM_FIRST)
    assert a.act == "check_first", (a.act, a.answer)


def test_opening_with_the_algorithm_is_no_ask_for_it(tutor):
    a = tutor.ask(OPEN_WITH_ALGORITHM)
    assert a.act != "not_in_card", (a.act, a.answer)
    assert a.answer.startswith("The point is not to ask which Sim2Real algorithm"), a.answer


def test_the_axes_are_the_methods(tutor):
    a = tutor.ask(AXES)
    assert a.intent == "methods", (a.intent, a.answer)
    assert "域随机化" in a.answer and "鲁棒策略" in a.answer, a.answer


def test_a_comparison_in_one_line_says_what_each_side_is_about(tutor):
    a = tutor.ask(COMPARE_ONE_LINE)
    assert "关注如何逐渐学会" in a.answer and "关注训练环境到真实环境" in a.answer, a.answer
    assert "|" not in a.answer, a.answer


def test_symptoms_are_the_customer_scenarios(tutor):
    a = tutor.ask(SYMPTOMS)
    assert a.intent == "scenario", (a.intent, a.answer)
    assert all(s in a.answer for s in ("实验室到工厂", "负载变化", "更换传感器", "现场精度")), a.answer
