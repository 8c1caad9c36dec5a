"""Composition fixes from the blind-10 graders (docs/answering-history.md, 'Composition from blind set 10').
Each test uses a wording of its own (never a spent blind question) and the real card."""

from __future__ import annotations

import json

import pytest

from s2r_tutor.answer.leads import Leads
from s2r_tutor.errors import AnswerDataError


def _first(text: str) -> str:
    return next(p for p in text.split("\n\n") if p.strip())


@pytest.mark.parametrize("question, first, second", [
    # method against method: what each does, not two example lines side by side
    ("域随机化跟系统辨识比，各自是干嘛的", ("域随机化", "减少策略对单一仿真条件的依赖"), ("系统辨识", "让仿真参数尽量接近真实本体")),
    ("How is real-world fine-tuning different from domain randomization?",
     ("Fine-tuning",), ("Domain Randomization", "dependence on a single simulation condition")),
    # a side that is a concept, not a method section (leads.json compare_terms)
    ("机器人仿真与 Sim2Real 的差别是什么", ("机器人仿真", "重要基础设施"), ("可以理解为",)),
])
def test_a_comparison_leads_with_one_labelled_purpose_line_per_side(tutor, question, first, second):
    paras = [p for p in tutor.ask(question).answer.split("\n\n") if p.strip()]
    # two methods: the line that says the difference comes first (round 33, leads.json compare_contrast)
    contrasted = paras[0].startswith(("区别在于：", "The difference: "))
    assert contrasted == (len(first) == 1 or "域随机化" in first), paras[0]
    lead = (paras[1] if contrasted else paras[0]).splitlines()
    assert len(lead) == 2
    assert all(t in lead[0] for t in first) and all(t in lead[1] for t in second), lead
    assert "示例" not in lead[0]


@pytest.mark.parametrize("question, opener, point", [
    ("仿真验收都过了，真机那一步就是走个流程而已吧", "不是", "真机验证仍然不可避免"),
    ("sim2real 其实就是把仿真里那套东西照搬到实体机器人上吧", "不是", "核心不是"),
    ("Once the simulator is realistic enough, there's simply no gap, right?", "No", "cannot be fully simulated"),
])
def test_a_stated_misconception_opens_with_no_and_the_correcting_sentence(tutor, question, opener, point):
    a = tutor.ask(question)
    first = _first(a.answer)
    assert first.lstrip("*").startswith(opener)
    assert point in a.answer[:400]


def test_a_claim_cue_needs_the_yes_no_shape(tutor):
    leads = tutor._get_answerer().leads
    assert leads.cued_claim("上真机就是走个流程吧") == "direct-deploy"
    assert leads.cued_claim("真机部署的流程是怎样的") is None


def test_a_bad_claim_cue_is_a_load_error(tutor):
    answerer = tutor._get_answerer()
    data = {"claims": {"copy": {"lead": [["quick-memory", "核心不是"]], "cue": "("}}}
    with pytest.raises(AnswerDataError, match="claims.copy.cue"):
        Leads(answerer.card, json.dumps(data))


def test_a_purpose_that_is_not_on_the_card_is_a_load_error(tutor):
    answerer = tutor._get_answerer()
    data = {"purposes": {"domain-randomization": [["related-domain-randomization", "这句话卡片上没有"]]}}
    with pytest.raises(AnswerDataError, match="purposes.domain-randomization"):
        Leads(answerer.card, json.dumps(data))


def test_an_example_follow_up_leads_with_the_cards_example(tutor):
    history = [{"role": "user", "content": "强化学习跟 Sim2Real 是什么关系"},
               {"role": "assistant", "content": "一个学策略，一个管迁移，解决的问题不同。"}]
    a = tutor.ask("举个实际的例子？", history)
    assert _first(a.answer).startswith("强化学习经常先在仿真中训练")


def test_an_example_follow_up_on_why_simulate_gives_the_walking_scenario(tutor):
    history = [{"role": "user", "content": "干嘛不直接在真机上训练"},
               {"role": "assistant", "content": "真机试错贵、危险、慢，仿真里可以大量练。"}]
    a = tutor.ask("能举个例子吗", history)
    assert "一天摔几百次" in _first(a.answer)


def test_a_not_in_card_answer_adds_no_subjectless_list_item(tutor):
    a = tutor.ask("How much compute does a full simulation training job need, in GPU hours?")
    assert "does not give" in a.answer
    assert "Can train in simulation or in the real environment" not in a.answer
