"""Round 49 (issue 14/17): dev fixes on what blind sets 44-46 showed. A pitch is a pitch, not the textbook summary
alone (leads.json pitch); an example or a why asked of one numbered difficulty is answered by the card's own case or
reason for it (leads.json item_leads), and "#3" points at the third; a customer draft says no card label ("Scenario:")
and no line about the card; a customer reply on why simulation names all four reasons; "simpler" after the
difficulties says what it comes down to; 起草 (to draft) is no grass underfoot. Wordings of our own."""

from __future__ import annotations

import json
from importlib import resources

import pytest
from blind_support import copied

from s2r_tutor.answer.card import CardView
from s2r_tutor.answer.leads import Leads
from s2r_tutor.errors import AnswerDataError
from s2r_tutor.models import Turn

PITCH_ONE_LINE = "展会要用，帮我写一句话的sim2real pitch"
PITCH_EN = "need an elevator pitch on sim2real for a prospect call"
HARD = "sim2real到底难在哪"
HARD_SAID = "五点：真实世界无法被完全模拟；本体参数存在误差；传感器存在噪声和延迟；环境变化远比仿真复杂；真机验证仍然不可避免。"
HARD_EN = "what makes sim2real hard"
HARD_EN_SAID = ("Five things: the real world can't be simulated fully; body parameters are off; sensors have noise and "
                "delay; environments change more than sim; you still have to validate on the real robot.")
EXAMPLE_OF_MARK = "got an example of #3?"
EXAMPLE_OF_SECOND = "第二点有没有具体例子"
WHY_REAL_CHECK_PLAIN = "仿真里全都测试通过了，为什么还要拿到真机上验证"
EMAIL_WHY_SIM = "write an email to a customer on why we train in simulation before touching their robots"
REPLY_WHY_SIM = "客户质疑为啥不直接用他们的真机练，我该怎么回他"
SIMPLER = "能不能说得再浅一点"
SIMPLER_ONE_LINE = "再浅一点，一句话"
DRAFT_SITE = "客户来信说我们只在仿真里测过不放心现场表现，帮我起草一封回信"
OURS = [PITCH_ONE_LINE, PITCH_EN, HARD, HARD_SAID, HARD_EN, HARD_EN_SAID, EXAMPLE_OF_MARK, EXAMPLE_OF_SECOND,
        WHY_REAL_CHECK_PLAIN, EMAIL_WHY_SIM, REPLY_WHY_SIM, SIMPLER, SIMPLER_ONE_LINE, DRAFT_SITE]


def _after_hard(lang: str = "zh") -> list[Turn]:
    q, a = (HARD, HARD_SAID) if lang == "zh" else (HARD_EN, HARD_EN_SAID)
    return [Turn(role="user", content=q), Turn(role="assistant", content=a)]


def test_these_wordings_are_our_own():
    assert not copied(set(OURS))


def test_a_one_sentence_pitch_is_what_sim2real_comes_down_to(tutor):
    a = tutor.ask(PITCH_ONE_LINE)
    assert a.act == "customer_reply", (a.act, a.answer)
    assert a.answer.strip().startswith("Sim2Real 的核心不是"), a.answer
    assert "可以理解为" not in a.answer and "**" not in a.answer, a.answer  # no textbook summary, no label


def test_an_elevator_pitch_is_the_summary_and_its_core(tutor):
    a = tutor.ask(PITCH_EN)
    assert a.act == "customer_reply", (a.act, a.answer)
    assert "can be understood as" in a.answer and "stand up to validation in the real world" in a.answer, a.answer


def test_an_example_of_the_third_difficulty_is_the_sensor_scenario(tutor):
    a = tutor.ask(EXAMPLE_OF_MARK, _after_hard("en"))
    first = a.answer.strip().split("\n")[0]
    assert first.startswith("Sensors have noise and delay") and "new batch of sensors" in first, a.answer
    assert "friction coefficient" not in a.answer, a.answer


def test_an_example_of_the_second_difficulty_is_the_payload_scenario(tutor):
    a = tutor.ask(EXAMPLE_OF_SECOND, _after_hard())
    assert a.answer.strip().startswith("本体参数存在误差") and "空载正常" in a.answer, a.answer


def test_why_validate_on_the_real_robot_gives_the_reason_first(tutor):
    a = tutor.ask(WHY_REAL_CHECK_PLAIN)
    assert a.act == "why", (a.act, a.answer)
    assert a.answer.strip().startswith("虚拟世界负责大量练习，真实世界负责检验"), a.answer


def test_a_customer_email_has_no_card_label_and_no_talk_of_the_card(tutor):
    a = tutor.ask(EMAIL_WHY_SIM)
    assert a.answer.startswith("**Draft email**"), a.answer
    assert "Scenario:" not in a.answer and "The card" not in a.answer, a.answer


def test_a_reply_on_why_simulation_names_all_four_reasons(tutor):
    a = tutor.ask(REPLY_WHY_SIM)
    assert a.act == "customer_reply", (a.act, a.answer)
    for name in ("A · 成本", "B · 安全", "C · 规模", "D · 可控"):
        assert name in a.answer, a.answer


def test_simpler_after_the_difficulties_says_what_it_comes_down_to(tutor):
    a = tutor.ask(SIMPLER, _after_hard())
    assert a.act == "simpler", (a.act, a.answer)
    assert "真实世界无法被完全模拟" in a.answer and "不是让仿真成为现实的完美复制品" in a.answer, a.answer


def test_simpler_in_one_line_stays_one_line(tutor):
    a = tutor.ask(SIMPLER_ONE_LINE, _after_hard())
    assert "完美复制品" not in a.answer and "真实世界无法被完全模拟" in a.answer, a.answer


def test_a_list_item_then_a_sentence_read_as_two_sentences_in_english(tutor):
    a = tutor.ask("simpler?", _after_hard("en"))
    assert "simulated. The goal" in a.answer, a.answer


def test_drafting_a_reply_is_no_floor_story(tutor):
    a = tutor.ask(DRAFT_SITE)
    # (not the floor's words for a customer, 现场地面（材质、摩擦、平整度）…, nor its card scenario; since round 51 a
    # general reply names the card's general sources of the gap, the floor among them)
    assert "现场地面" not in a.answer and "实验室" not in a.answer, a.answer
    assert not any(c.chunk_id.endswith("scenario-factory-floor") for c in a.citations), a.answer


def test_an_item_lead_for_an_item_the_card_no_longer_lists_is_a_start_up_error(tutor):
    data = json.loads(resources.files("s2r_tutor").joinpath("data/leads.json").read_text("utf-8"))
    data["item_leads"]["example"]["why-hard"]["不存在的难点"] = [["scenario-sensors", "换了一批传感器"]]
    with pytest.raises(AnswerDataError, match="item_leads.example.*不存在的难点"):
        Leads(CardView(tutor.chunks), json.dumps(data, ensure_ascii=False))


def test_an_item_lead_under_an_unknown_act_is_a_start_up_error(tutor):
    data = json.loads(resources.files("s2r_tutor").joinpath("data/leads.json").read_text("utf-8"))
    data["item_leads"]["exmaple"] = data["item_leads"].pop("example")  # a typo would silently never apply
    with pytest.raises(AnswerDataError, match="item_leads: unknown act.*exmaple"):
        Leads(CardView(tutor.chunks), json.dumps(data, ensure_ascii=False))
