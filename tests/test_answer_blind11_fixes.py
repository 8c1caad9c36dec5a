"""Composition and turn fixes from the blind-11 graders (docs/answering-history.md, 'Blind set 11, non-story').
Each test uses a wording of its own (never a spent blind question) and the real card."""

from __future__ import annotations

import json

import pytest

from s2r_tutor.answer.leads import Leads
from s2r_tutor.errors import AnswerDataError
from s2r_tutor.models import Turn


def _first(text: str) -> str:
    return next(p for p in text.split("\n\n") if p.strip())


@pytest.mark.parametrize("question", ["机械臂的运动学参数要怎么标定", "相机和夹爪之间的手眼关系怎么标",
                                      "How should I recalibrate the joint zero offsets of my arm?"])
def test_neighbouring_calibration_topics_are_refused(tutor, question):
    assert tutor.ask(question).refused


@pytest.mark.parametrize("question", ["仿真参数怎么校准才接近真机", "系统辨识是怎么让仿真参数接近真实本体的",
                                      "How do we calibrate simulation parameters against the real robot?"])
def test_calibrating_the_simulation_stays_in_scope(tutor, question):
    a = tutor.ask(question)
    assert not a.refused and a.citations


def test_a_long_follow_up_refused_alone_is_read_as_a_follow_up(tutor):
    first = "What is sim2real?"
    history = [Turn(role="user", content=first), Turn(role="assistant", content=tutor.ask(first).answer)]
    a = tutor.ask("how would I phrase all of that for a client so it doesn't sound like an excuse from us?",
                  history=history)
    assert not a.refused and a.act == "customer_reply"


def test_a_condition_in_a_comparison_leads_with_the_side_the_card_ties_to_it(tutor):
    a = tutor.ask("鲁棒策略和真机微调，如果拿不到现场数据选哪个")
    lines = [x for x in a.answer.splitlines() if x.strip()]
    assert lines[0].startswith("拿不到真实数据时，更合适的是鲁棒策略")
    assert "鲁棒策略" in lines[1] and "真机微调" in lines[2]
    assert a.answer.count("少量真实数据继续调整") == 1  # the side's purpose is not repeated as its example


def test_a_condition_in_an_english_comparison(tutor):
    a = tutor.ask("System identification versus domain randomization: which one gets the simulator to match the real robot?")
    first = _first(a.answer)
    assert first.startswith("System Identification is the one")


def test_a_plain_language_request_leads_with_the_cards_analogy(tutor):
    a = tutor.ask("用大白话给外行讲讲sim2real，最好打个比方")
    assert _first(a.answer).startswith("场景：如果让一台真实机器人从零开始学习走路")


@pytest.mark.parametrize("question", ["How many GPU hours does it take to train a walking policy in sim?",
                                      "训练一个走路策略要花几天"])
def test_a_duration_asked_says_the_card_does_not_give_it(tutor, question):
    a = tutor.ask(question)
    assert a.act == "not_in_card"
    assert a.answer.startswith(("The card does not give", "卡片没有给出"))


def test_pros_and_cons_of_simulation_are_table_first_with_its_value_and_the_gap(tutor):
    # the composition only: which questions read why_simulation + compare is the labelled examples' business
    from s2r_tutor.models import Intent
    leads = tutor._get_answerer().leads
    assert leads.table_leads(Intent.why_simulation, "compare") and not leads.table_leads(Intent.methods, "compare")
    assert [a for a, _ in leads.lead(Intent.why_simulation, "compare", set())] == ["related-simulation", "reality-gap"]


def test_a_bad_compare_condition_is_a_load_error(tutor):
    card = tutor._get_answerer().card
    bad = {"compare_conditions": [{"cue": "x", "fits": ["robust-policy"], "verdict": {"zh": "{against}", "en": "{fit}"}}]}
    with pytest.raises(AnswerDataError, match="compare_conditions"):
        Leads(card, json.dumps(bad))
    bad = {"compare_conditions": [{"cue": "x", "fits": ["no-such-section"], "verdict": {"zh": "{fit}", "en": "{fit}"}}]}
    with pytest.raises(AnswerDataError):
        Leads(card, json.dumps(bad))


def test_skipping_hardware_tests_with_a_good_simulator_opens_with_no(tutor):
    a = tutor.ask("If the simulator is really accurate, can we leave out testing on the physical robot?")
    first = _first(a.answer)
    assert first.lstrip("*").startswith("No"), first
    assert "Reinforcement learning" not in first


def test_one_step_of_the_procedure_never_leads(tutor):
    leads = tutor._get_answerer().leads
    card = tutor._get_answerer().card
    from s2r_tutor.answer.select import lead_candidates
    from s2r_tutor.models import Intent
    sents = [s for _, s, _, _ in lead_candidates(card, ["plain-language"], (), leads.never_for(Intent.physical_system))]
    assert not any("把策略部署到真实机器人并验证" in s or "建立虚拟机器人本体" in s for s in sents)
    assert any(s.startswith("场景：") for s in sents)
    loop = [s for _, s, _, _ in lead_candidates(card, ["plain-language"], (), leads.never_for(Intent.loop))]
    assert any("把策略部署到真实机器人并验证" in s for s in loop)  # a loop answer's step list may lead
