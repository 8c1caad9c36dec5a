"""Story answers, round 12 (blind 11 as a dev set): the yes/no a story asks decides its opening (retrain,
"only hardware?", "the parameters need no change after a part swap?"), a part swapped reaches the body
factor, a cause the card does not list (a wifi dropout) is said to be outside the card's gap, and a
follow-up in a story conversation answers its own act instead of repeating the diagnosis. Phrasings are
written for this file, not taken from any dev or blind set."""

from __future__ import annotations

import re

import pytest

from s2r_tutor.answer.scenario_table import parse_table, table
from s2r_tutor.answer import ruledata as rd
from s2r_tutor.errors import AnswerDataError
from s2r_tutor.models import Turn

_MARK = re.compile(r"\s*\[\d+\]")


def _shown(a) -> str:
    return _MARK.sub("", a.answer).replace("**", "")


@pytest.mark.parametrize("q,key", [
    ("传感器换了以后走不稳，是不是要从头再训一个模型", "retrain"),
    ("夹具加重后抖，得把策略再训一遍吗", "retrain"),
    ("do we need to train it from scratch after the camera swap?", "retrain"),
    ("机器人在展厅打滑，这单纯是脚底硬件的问题吗", "hardware"),
    ("is the wobble just a mechanical issue?", "hardware"),
    ("换了便宜一档的舵机，仿真参数应该不用改吧", "unchanged"),
    ("we fitted weaker knee motors; the simulation can stay as it is, right?", "unchanged"),
    ("客户那边总摔，是不是我们策略训得不够", "blame"),
    ("机器人在客户车间老打滑，这算仿真到现实的差距吗", "gap"),
])
def test_verdict_kind_by_cue(q, key):
    assert table().verdict(q).key == key


def test_verdict_labels_are_validated():
    data = rd.load("scenarios.json")
    bad = dict(data, verdicts=[*data["verdicts"][:-1], dict(data["verdicts"][-1], cues=["x"])])
    with pytest.raises(AnswerDataError, match="only the last variant"):
        parse_table(bad)
    with pytest.raises(AnswerDataError, match="followup_shapes"):
        parse_table(dict(data, followup_shapes={"why": ["nonsense"]}))


def test_story_verdict_labels_must_name_a_kind():
    from s2r_tutor.answer.story_match import load_stories

    with pytest.raises(AnswerDataError, match="unknown verdict"):
        load_stories('{"story": "机器人打滑，是不是硬件问题", "factors": ["ground"], "verdict": "maybe"}\n')


def test_hardware_only_question_is_not_answered_yes(tutor):
    text = _shown(tutor.ask("客户的巡检狗在我们楼道里走得很稳，到了他们刚打过蜡的大厅就打滑，是不是纯粹硬件的事？"))
    assert not text.startswith("是的")
    assert text.startswith("不单纯是硬件问题")
    assert "摩擦" in text


def test_retrain_question_answers_retraining_first(tutor):
    a = tutor.ask("客户把激光雷达换了个牌子，避障明显变差，问我们是不是得从头再训一遍")
    text = _shown(a)
    assert not text.startswith("是的") and text.startswith("不一定要从头重训")
    assert a.citations[0].chunk_id.endswith("#real-world-fine-tuning")
    assert any(c.chunk_id.endswith("#scenario-sensors") for c in a.citations)


def test_part_swap_reaches_the_body_factor(tutor):
    a = tutor.ask("为了降成本，客户把肩关节的减速器换成了便宜一档的，说仿真模型应该不用改吧？")
    text = _shown(a)
    assert a.intent == "scenario"
    assert text.startswith("不能默认不用动")
    assert "无法直接迁移" in text
    assert any(c.chunk_id.endswith("#system-identification") for c in a.citations)


def test_uncovered_cause_is_said_plainly(tutor):
    a = tutor.ask("送货机器人在客户园区里总是突然停下不动，后来发现是那一片wifi断断续续，这算reality gap吗")
    text = _shown(a)
    assert not text.startswith("是的")
    assert text.startswith("按卡片不能算作 Sim2Real 问题")  # round 20: the yes/no answered (uncovered.comms verdict)
    assert "网络 / 通信中断不在" in text
    assert "仿真永远只是现实世界的近似" in text
    assert "核对：逐项对比" not in text  # not the card's general causes as if they explained it


def test_story_followup_customer_reply_is_not_the_diagnosis_again(tutor):
    history = [Turn(role="user", content="客户的机器狗背上测绘设备以后走路不稳，这是什么原因"),
               Turn(role="assistant", content="这是仿真—现实差距，主要差在本体参数 / 负载变化。")]
    text = _shown(tutor.ask("客户又问：那你们仿真的时候怎么没想到？我该怎么答", history=history))
    assert text.startswith("可以这样跟客户解释")
    assert "仿真永远只是现实世界的近似" in text
    assert "从描述看主要差在" not in text


def test_story_followup_why_gives_the_cards_reason(tutor):
    history = [Turn(role="user", content="产线换了新的视觉相机，机械臂抓取成功率掉了，怎么回事"),
               Turn(role="assistant", content="这是仿真—现实差距，主要差在传感器差异 / 噪声。")]
    text = _shown(tutor.ask("为啥换个相机影响会这么大", history=history))
    assert text.startswith("卡片给的原因")
    assert "无法直接迁移" in text


def test_unasked_yes_is_not_said(tutor):
    # no yes/no in words: the cause first (which says it is the gap), never an unasked 是的
    text = _shown(tutor.ask("仓库里同型号的五台AGV，只有一台转弯总是往外甩，程序完全一样，我该从什么角度想这个事"))
    assert not text.startswith("是的")


def test_can_it_be_saved_is_a_fix_question():
    assert table().verdict("换了关节模组以后抖得厉害，这还能救吗").key == "fix"


@pytest.mark.parametrize("q,key", [
    ("机械臂换了型号，他们说反正都是六轴，程序应该可以直接通用吧", "unchanged"),
    ("客户建议我们只改改算法就行，这样能行吗", "blame"),
])
def test_misconception_yes_no_has_its_kind(q, key):
    assert table().verdict(q).key == key


def test_default_yes_only_answers_is_it_the_gap():
    gap = table().verdicts[-1]
    assert gap.asks is not None and gap.asks.search("这算不算仿真和现实的差距")
    assert not gap.asks.search("客户说现场老摔，这样正常吗")
