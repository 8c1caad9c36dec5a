"""Story answers, round 17 (blind 15 graders): added mass is payload even when what was added is a sensor;
a part swapped for the customer's own (gripper, suction cup, end tool) reaches the story path and is answered
from the card's changed-body material; "is the method useless?" after a method already tried is answered "no,
it only covers what it varied" and that method is not offered again as the fix; a cause the card does not
cover (temperature, wear, humidity) is said, with a verdict when one is asked; a short "retrain?" after a story
answers that; the words for a customer stay on the story's factor. Phrasings are written for this file, not
taken from any dev or blind set."""

from __future__ import annotations

import re

import pytest

from conftest import assert_table_rejects
from s2r_tutor.answer.scenario_table import table
from s2r_tutor.models import Turn

_MARK = re.compile(r"\s*\[\d+\]")


def _shown(a) -> str:
    return _MARK.sub("", a.answer)


def _anchors(a) -> list[str]:
    return [c.chunk_id.split("#", 1)[1] for c in a.citations]


def test_tried_methods_are_read_by_clause():
    t = table()
    assert [m.anchor for m in t.methods_tried("客户那边早就做了域随机化，上线还是老摔")] == ["domain-randomization"]
    assert [m.anchor for m in t.methods_tried("We already applied domain randomization and it still slips")] == ["domain-randomization"]
    # named but not applied: asked about, or doubted
    assert t.methods_tried("要不要给它上域随机化") == []
    assert t.methods_tried("是不是域随机化根本不管用") == []


def test_tried_methods_and_uncovered_verdicts_are_validated_at_load():
    assert_table_rejects(lambda d: d["tried_methods"][0].update(instead=[{"anchor": "system-identification"}]),
                         r"tried_methods\[0\].*instead")
    assert_table_rejects(lambda d: next(u for u in d["uncovered"] if u["key"] == "temperature").update(
        verdict={"zh": "部分算"}), r"uncovered\.temperature\.verdict")


@pytest.mark.parametrize("q", [
    "客户在巡检机器人背上加了个激光雷达，又挂了块电池，现在一走就左右摆，怎么跟客户说",
    "The client strapped a camera mast and a battery box onto the robot and now it sways on every turn; what do I tell them?",
])
def test_added_mass_is_payload_even_when_a_sensor_was_added(tutor, q):
    a = tutor.ask(q)
    assert a.intent == "scenario" and not a.refused
    assert "scenario-payload" in _anchors(a)
    assert "scenario-sensors" not in _anchors(a)
    first = a.answer.split("\n", 1)[0]
    assert re.search(r"重量|质心|负载|weight|centre of mass|payload", first), first


@pytest.mark.parametrize("q", [
    "客户打算把我们的二指夹爪换成他们自己的真空吸盘，换上以后箱子经常吸不住掉下来，我该怎么建议",
    "The customer bolted their own suction tool onto our arm in place of the gripper and now the picks keep dropping; what should we do?",
])
def test_a_part_swapped_for_the_customers_own_is_a_story_not_a_refusal(tutor, q):
    a = tutor.ask(q)
    assert not a.refused and a.intent == "scenario", a.answer
    cited = _anchors(a)
    # the card's changed-body material: the physical-system sentence or system identification
    assert {"physical-system", "system-identification"} & set(cited), cited


def test_a_method_already_tried_is_not_called_useless_nor_offered_again(tutor):
    a = tutor.ask("客户说训练时域随机化早就加上了，地面摩擦也随机过，到了仓库还是摔，这是不是说明域随机化压根没用？")
    shown = _shown(a)
    assert shown.startswith("**不是没用"), shown
    assert not shown.startswith("**是的")
    cited = _anchors(a)
    assert cited[0] == "related-domain-randomization", cited
    assert "domain-randomization" not in cited, cited  # the method they have is not the fix offered
    assert {"system-identification", "real-world-fine-tuning"} & set(cited)


def test_an_uncovered_cause_asked_as_a_yes_no_gets_a_verdict_and_what_the_card_does_not_say(tutor):
    a = tutor.ask("客户的机器人放在零下十几度的冻库里，动作明显发僵，实验室里从没这样，这能算仿真到现实的差距吗？")
    first = a.answer.split("\n", 1)[0]
    assert a.intent == "scenario"
    assert first.startswith("**部分算") and "卡片没有讲温度" in first, first


def test_a_short_retrain_question_after_a_story_answers_retraining(tutor):
    history = [Turn(role="user", content="客户那边把深度相机换了一个牌子，之后抓取老是偏"),
               Turn(role="assistant", content="这是传感器差异：新相机的噪声和原来的不同，需要系统适配。")]
    a = tutor.ask("那要重新训练吗", history=history)
    assert a.intent == "scenario" and not a.refused
    assert _shown(a).startswith("**不一定要从头重训"), a.answer
    assert "real-world-fine-tuning" in _anchors(a)
    assert not any(x.startswith("scenario-") for x in _anchors(a))  # not the story's card scenario again


def test_months_of_use_written_with_a_tilde_is_wear(tutor):
    a = tutor.ask("After ~8 months on the warehouse floor its walk is clearly worse; the customer thinks the AI forgot "
                  "something. What do I say?")
    assert a.intent == "scenario"
    assert "does not cover wear" in a.answer.split("\n", 1)[0]


def test_a_factor_storys_words_for_the_customer_end_on_its_factor(tutor):
    a = tutor.ask("客户给机器狗背了一个两公斤的工具箱，走路就开始晃，我怎么跟客户解释")
    assert a.act == "customer_reply"
    assert "工程化落地过程" not in a.answer  # the general closing span is padding for a factor story
    assert "scenario-payload" in _anchors(a)


def test_a_battery_range_complaint_stays_out_of_scope(tutor):
    # the looser out-of-scope bar for stories (story_max_oos) must not let in a battery-life question
    a = tutor.ask("客户的机器人电池续航太短，一天要充三次电，怎么办")
    assert a.refused
