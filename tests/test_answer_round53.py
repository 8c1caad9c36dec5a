"""Round 53 (issue 14, 17): a reply for a customer about a whole topic opens with plain words one can say
(data/leads.json customer_words), then the card sentences they restate, cited. Readers of blinds 45-48 asked how
to put RL vs Sim2Real, why simulate or the reality gap to a customer and got the card's distinction alone ("no
wording for the customer": b47-033, b47-057, b48-028, b48en-016). Wordings of our own."""

from __future__ import annotations

import json

import pytest
from blind_support import copied

from s2r_tutor.answer.leads import Leads
from s2r_tutor.errors import AnswerDataError
from s2r_tutor.models import Turn

HEAD = {"zh": "**可以这样跟客户解释**：“", "en": "**You can explain it to the customer like this**: “"}
REPLIES = [
    # (question, history, topic, language)
    ("下周要跟客户介绍我们的训练方法，强化学习和 sim2real 之间的关系该怎么跟他们讲", [], "rl_vs_sim2real", "zh"),
    ("客户老板问：为啥不直接拿他们工厂里的真机去练？我该怎么回他", [], "why_simulation", "zh"),
    ("how should I explain to a plant manager why they need to pay for simulation before the robots arrive?", [],
     "why_simulation", "en"),
    ("客户怀疑 reality gap 是我们技术不行的借口，这个怎么跟他解释", [], "reality_gap", "zh"),
    ("what can I say to a customer who keeps asking about the reality gap?", [],
     "reality_gap", "en"),
    ("那这个怎么讲给客户听比较顺", [Turn(role="user", content="强化学习跟 sim2real 到底啥关系"),
                              Turn(role="assistant", content="强化学习通过行动—反馈—奖励学习策略；Sim2Real 关注能力迁移。")],
     "rl_vs_sim2real", "zh"),
]
LETTER = "帮我写封邮件跟客户解释强化学习和 sim2real 不是一回事"
WORN = [Turn(role="user", content="客户反馈机器狗刚买来时走得很稳，跑了一年多以后越来越容易被绊倒"),
        Turn(role="assistant", content="这可能和本体参数的变化有关：关节间隙、电机响应在仿真里很难完全模拟。")]
WORN_NEXT = "到了现场先查哪儿？"
CAMERAS = [Turn(role="user", content="the customer moved to a different brand of lidar and now navigation is off, is that a sim2real thing?"),
           Turn(role="assistant", content="Probably: different sensors bring different noise and delay, so the system needs adapting.")]
CAMERAS_NEXT = "how do I put that to them without it sounding like we blame their hardware?"
RELAYED = ["客户原话：sim2real 不就是强化学习换了个名字吗？这个我该咋接",
           "a client insists sim2real is just RL with a new label, how do I push back without being rude?"]
OTHER_SIMULATORS = ["客户的航校想采购一台飞行模拟器给学员练，选哪家",
                    "our customer runs a pilot academy and wants to purchase a flight simulator, which one should they get?"]
ONE_LINE = "一句话跟客户说清楚强化学习和 sim2real 的区别"


def test_these_wordings_are_our_own():
    assert not copied({q for q, *_ in REPLIES} | {t.content for _, h, *_ in REPLIES for t in h} | {LETTER, ONE_LINE, WORN[0].content, WORN_NEXT,
                                                                                             CAMERAS[0].content, CAMERAS_NEXT,
                                                                                             *RELAYED, *OTHER_SIMULATORS})


@pytest.mark.parametrize("question, history, topic, lang", REPLIES)
def test_a_reply_about_a_topic_opens_with_words_for_the_customer_then_the_card(tutor, question, history, topic, lang):
    a = tutor.ask(question, history=history)
    assert not a.refused and a.act == "customer_reply" and a.intent == topic, (a.act, a.intent, a.answer)
    words = tutor._get_answerer().leads.customer_words
    wording = next(w for t, w in words.items() if t.value == topic)
    # first, or right after the verdict on a claim the question reads ("强化学习 ≠ Sim2Real")
    assert HEAD[lang] + wording.text[lang][1:] in a.answer.split("\n\n")[:2], a.answer
    # every card sentence the words restate is cited right under them
    for anchor, phrase in wording.rests_on:
        assert any(c.chunk_id.endswith("#" + anchor) and phrase in c.text for c in a.citations), (anchor, phrase, a.answer)
    assert len(a.answer) <= 900


@pytest.mark.parametrize("question", [LETTER, ONE_LINE])
def test_a_draft_or_one_line_keeps_its_own_form(tutor, question):
    a = tutor.ask(question)
    assert "可以这样跟客户解释" not in a.answer and "“强化学习是一种训练方法" not in a.answer, a.answer


def test_words_resting_on_a_sentence_not_on_the_card_are_a_load_error(tutor):
    card = tutor._get_answerer().card
    data = {"customer_words": {"reality_gap": {"zh": "“仿真和现场不一样。”", "en": "“They differ.”",
                                               "rests_on": [["reality-gap", "这句话卡片上没有"]]}}}
    with pytest.raises(AnswerDataError, match="customer_words.reality_gap"):
        Leads(card, json.dumps(data))
    unquoted = {"customer_words": {"reality_gap": {"zh": "仿真和现场不一样。", "en": "“They differ.”",
                                                   "rests_on": [["reality-gap", "仿真永远只是"]]}}}
    with pytest.raises(AnswerDataError, match="customer_words"):
        Leads(card, json.dumps(unquoted))


def test_a_worn_robot_s_first_check_is_its_body_not_the_floor_its_trip_word_names(tutor):
    """Wear told in words no factor cue knows ("跑了一年多以后越来越…") is the body's (scenarios.json uncovered.wear
    'names'); "绊倒" alone named terrain, and the follow-up checked the floor only (b48-039)."""
    a = tutor.ask(WORN_NEXT, history=WORN)
    assert not a.refused and a.act == "check_first", (a.act, a.answer)
    checks = [ln for ln in a.answer.splitlines() if ln.startswith("- 核对")]
    assert checks and "本体参数" in checks[0], a.answer


def test_a_longer_english_follow_up_stays_on_the_story_it_points_back_to(tutor):
    """"how do I put that to them…" is a follow-up in 15 words (an English turn is measured in words, as the short
    turns are, not in 40 characters), and "their hardware" in it is how not to sound, not a topic of its own: the
    words for the customer are the sensor story's (b47en-013, b29en-006 got the general gap lines)."""
    a = tutor.ask(CAMERAS_NEXT, history=CAMERAS)
    assert not a.refused and a.act == "customer_reply" and a.intent == "scenario", (a.act, a.intent, a.answer)
    assert a.answer.startswith(HEAD["en"]) and "sensors" in a.answer.split("\n")[0], a.answer


@pytest.mark.parametrize("question", RELAYED)
def test_a_claim_relayed_with_how_to_answer_it_gets_the_verdict_then_words(tutor, question):
    """The customer's own yes/no answered first (「不是一回事。」), then the words to say: "咋接", "push back" ask for
    them too (act_cues.json customer_reply; blind 41 b41-032, 43 b43-045: "no wording to say")."""
    a = tutor.ask(question)
    lang = a.language
    assert not a.refused and a.intent == "rl_vs_sim2real", (a.act, a.intent, a.answer)
    paragraphs = a.answer.split("\n\n")
    # the words in the first two paragraphs (after the claim's verdict where one is read), 强化学习 ≠ Sim2Real beside them
    assert any(p.startswith(HEAD[lang]) for p in paragraphs[:2]), a.answer
    assert "≠" in "\n".join(paragraphs[:3]), a.answer


@pytest.mark.parametrize("question", OTHER_SIMULATORS)
def test_a_customer_buying_a_simulator_for_another_trade_is_declined(tutor, question):
    """A flight or driving simulator for a customer's school is another subject, however much it says customer and
    simulator (acts.jsonl round53 rows; dev e7-034, b19en-029, b21en-023 got the words on why robots train in simulation)."""
    a = tutor.ask(question)
    assert a.refused and a.act == "out_of_scope", (a.act, a.answer)
