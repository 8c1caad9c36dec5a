"""Round 29 (issue 14/17). Why simulation, asked of the whole list, answers in the card's order: the walking
scene (why engineers practise in simulation first), then the four reasons A to D. Before, the reason whose
sentence scored best (usually scale) led and the rest followed out of order; blind graders gave that a 2 in
every set from 9 to 27, and a 3 where the scene led the four in order. A question that singles out one reason
still leads with it. And "when should I think of Sim2Real / what signals" is answered with what to judge and
the card's four customer scenarios, the signals. Wordings of our own: none is in data/acts.jsonl or a
docs/blind* set (checked below)."""

from __future__ import annotations

import pytest

from blind_support import copied

WHOLE = ["咱们为什么不干脆拿实物机器人直接训练，还要绕道仿真",
         "Why go through simulation instead of training the physical robot directly?"]
ONE_PART = [("仿真为什么能同时练那么多回，效率高在哪", "C · 规模"),
            ("在真机上硬练高风险动作，最怕出什么事", "B · 安全")]
LISTED = "仿真训练的优点都有哪些，给我列出来"
SIGNALS = ["做售前时客户讲了什么话，就意味着我该考虑sim2real", "方案工程师碰到什么情况就该联想到sim2real"]
NOT_A_REPLY = "客户那边出现哪些现象说明该往仿真现场差距上想"


def test_these_wordings_are_our_own():
    assert not copied({*WHOLE, *(q for q, _ in ONE_PART), LISTED, *SIGNALS, NOT_A_REPLY})


def _reason_positions(answer: str, lang: str) -> list[int]:
    heads = ["A · 成本", "B · 安全", "C · 规模", "D · 可控"] if lang == "zh" else \
        ["A · Cost", "B · Safety", "C · Scale", "D · Control"]
    return [answer.find(h) for h in heads]


@pytest.mark.parametrize("question", WHOLE)
def test_why_simulation_of_the_whole_list_leads_with_the_scene_then_the_four_in_order(tutor, question):
    a = tutor.ask(question)
    lang = "en" if question.isascii() else "zh"
    assert a.act == "why" and a.intent == "why_simulation", (a.act, a.intent)
    assert a.answer.startswith("场景：" if lang == "zh" else "Scenario:"), a.answer
    pos = _reason_positions(a.answer, lang)
    assert all(p > 0 for p in pos) and pos == sorted(pos), (pos, a.answer)
    assert a.citations[0].chunk_id.endswith("#plain-language")
    assert len(a.answer) <= 900


@pytest.mark.parametrize("question,head", ONE_PART)
def test_a_question_about_one_reason_still_leads_with_it(tutor, question, head):
    a = tutor.ask(question)
    assert a.answer.lstrip("*").startswith(head), a.answer


def test_a_list_of_the_benefits_is_the_four_under_their_heading_without_the_scene(tutor):
    a = tutor.ask(LISTED)
    assert a.answer.startswith("卡片给出四类原因"), a.answer
    pos = _reason_positions(a.answer, "zh")
    assert all(p > 0 for p in pos) and pos == sorted(pos), a.answer
    assert "场景：" not in a.answer


@pytest.mark.parametrize("question", SIGNALS)
def test_when_to_think_of_sim2real_is_what_to_judge_then_the_four_customer_scenarios(tutor, question):
    a = tutor.ask(question)
    first = a.answer.split("\n", 1)[0]
    assert "判断仿真效果与现场效果之间是否存在明显能力落差" in first, a.answer
    assert all(f"客户场景 {n}" in a.answer for n in range(1, 5)), a.answer
    assert "跟客户解释" not in a.answer


def test_what_a_symptom_indicates_is_no_reply_to_a_customer(tutor):
    """说明 ("indicates") is not 说 ("say"): the question asks what to look for, not words for a customer."""
    a = tutor.ask(NOT_A_REPLY)
    assert a.act != "customer_reply" and "跟客户解释" not in a.answer, (a.act, a.answer)


# "they look about the same to me": the doubt is whether the two are one thing, answered no first, then what
# each does (leads.json compare_same); before, the two definitions stood side by side with no verdict
SEEM_SAME = [("系统辨识跟真机微调我瞅着差不多，到底哪不一样", "不是一回事"),
             ("domain randomization and robust policy feel similar, how are they different?", "No, they are not the same thing")]


def test_these_comparisons_are_our_own():
    assert not copied({q for q, _ in SEEM_SAME})


@pytest.mark.parametrize("question,verdict", SEEM_SAME)
def test_two_methods_that_seem_the_same_are_told_apart_verdict_first(tutor, question, verdict):
    a = tutor.ask(question)
    assert a.act == "compare", a.act
    assert a.answer.startswith(verdict), a.answer

