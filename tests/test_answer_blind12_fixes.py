"""Composition fixes from the blind-12 graders (docs/answering-history.md, 'Blind set 12, non-story').
Each test uses a wording of its own (never a spent blind question) and the real card."""

from __future__ import annotations

import json

import pytest

from s2r_tutor.answer.leads import Leads
from s2r_tutor.errors import AnswerDataError
from s2r_tutor.models import Turn


def _first(text: str) -> str:
    return next(p for p in text.split("\n\n") if p.strip())


def test_changing_site_conditions_lead_with_the_robust_policy(tutor):
    a = tutor.ask("鲁棒策略和真机微调，如果工况一直在变，用哪个更对路")
    assert not a.refused
    first = _first(a.answer)
    assert "鲁棒策略" in first and "变化" in first


def test_real_data_at_hand_leads_with_system_identification(tutor):
    a = tutor.ask("域随机化和系统辨识，我们已经积累了大量真机数据，选哪个")
    assert "系统辨识" in _first(a.answer)


def test_both_sides_fitting_a_condition_get_no_verdict(tutor):
    leads = tutor._get_answerer().leads
    assert leads.condition("没有真实数据选哪个", ["domain-randomization", "robust-policy"]) is None
    assert leads.condition("没有真实数据选哪个", ["real-world-fine-tuning", "robust-policy"]) is not None


def test_an_order_of_the_methods_is_not_in_the_card(tutor):
    first = "缩小仿真和现实差距有哪些办法"
    history = [Turn(role="user", content=first), Turn(role="assistant", content=tutor.ask(first).answer)]
    a = tutor.ask("这几个应该按什么顺序来做", history=history)
    assert a.act == "not_in_card" and "顺序" in _first(a.answer)


def test_a_bad_compare_unranked_is_a_load_error(tutor):
    card = tutor._get_answerer().card
    with pytest.raises(AnswerDataError, match="compare_unranked"):
        Leads(card, json.dumps({"compare_unranked": {"cue": "x"}}))
    assert Leads(card).unranked_verdict("which one should we pick?", "en").startswith("The card does not rank")


@pytest.mark.parametrize("question", ["帮我写一份机器人仿真工程师的招聘广告", "Write a hiring ad for a sim2real engineer."])
def test_writing_a_job_ad_about_the_topic_is_refused(tutor, question):
    assert tutor.ask(question).refused


@pytest.mark.parametrize("question", ["sim2real跟新手先在模拟器上练飞行是不是一个意思，打个比方讲讲",
                                      "Give me a metaphor for sim-to-real that my grandmother would follow."])
def test_an_analogy_request_leads_with_the_plain_language_picture(tutor, question):
    a = tutor.ask(question)
    assert a.act == "simpler" and not a.refused
    assert "不是一回事" not in _first(a.answer) and "not the same thing" not in _first(a.answer)


def test_sim2real_only_for_rl_opens_with_no_and_more_than_rl(tutor):
    first = _first(tutor.ask("sim2real是不是只适用于强化学习训练出来的策略").answer)
    assert first.lstrip("*").startswith("不是") and "不只限于强化学习" in first


def test_world_model_versus_sim2real_says_related_but_not_the_same(tutor):
    first = _first(tutor.ask("世界模型跟sim2real算同一个东西吗").answer)
    assert first.lstrip("*").startswith("不是") and "不是同一个概念" in first
