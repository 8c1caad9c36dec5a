"""The story's yes/no is answered by WHAT it asks (scenarios.json "verdicts"): "is it the sim-to-real
gap" -> yes; "is it our policy/training" -> not necessarily; "can it be fixed" -> the card's methods and
no promise. A one-liner names the story's factor; a story about temperature says first that the card
does not cover it. Phrasings here are written for this file, not taken from any dev set."""

from __future__ import annotations

import re

import pytest

from s2r_tutor.answer.scenario_table import table

_MARK = re.compile(r"\s*\[\d+\]")


@pytest.mark.parametrize("q,key", [
    ("机器人在客户车间老打滑，这算仿真到现实的差距吗", "gap"),
    ("客户那边总摔，是不是我们策略训得不够", "blame"),
    ("现场抓偏了，难道是训练没训好", "blame"),
    ("换了更重的夹具以后抖得厉害，是不是要重新训练", "retrain"),
    ("is the drift on site just our policy being undertrained?", "blame"),
    # the short and plural forms readers type: "algo" was no blame cue, and a blame question got "Yes"
    ("the client thinks it's our algo, fair?", "blame"),
    ("ops keeps saying our algorithms are junk since the move", "blame"),
    ("地面有水老打滑，客户问这个能不能解决", "fix"),
    ("客户想知道这个偏差能修好吗", "fix"),
    ("the customer asks whether the wobble can be fixed at all", "fix"),
])
def test_verdict_follows_what_the_yes_no_asks(q, key):
    assert table().verdict(q).key == key


def test_uncovered_temperature_is_named():
    t = table()
    assert "温度" in t.uncovered_line("冷库里零下十几度，机械臂动作明显变钝", "zh")
    assert "temperature" in t.uncovered_line("in the cold room the joints get stiff", "en")
    assert t.uncovered_line("地面有油，机器人打滑", "zh") == ""
    # a cold room whose floor frosts over is a ground story: said as the ground, without the note
    assert t.uncovered_line("冷库地面结霜，机器人一走就滑", "zh", "ground") == ""


def _shown(a) -> str:
    return _MARK.sub("", a.answer).replace("**", "")


def test_fix_question_makes_no_promise_and_gives_the_method(tutor):
    a = tutor.ask("我们的人形在客户仓库的湿地面上老打滑，客户问能不能搞定，我该怎么回")
    text = _shown(a)
    assert not text.startswith("是的")
    assert "没有承诺" in text and "真机安全验证" in text
    assert any(c.chunk_id.endswith("#domain-randomization") for c in a.citations)


def test_training_blame_is_not_confirmed(tutor):
    text = _shown(tutor.ask("客户说抓取一直不稳，是不是我们的策略训练得不好"))
    assert not text.startswith("是的") and text.startswith("不一定")


def test_english_blame_is_not_confirmed(tutor):
    text = _shown(tutor.ask("passes every sim run but the gripper lands a few mm off on site; "
                            "the client blames our algo. fair?"))
    assert text.startswith("Not necessarily"), text


def test_one_line_names_the_sensor_factor(tutor):
    text = _shown(tutor.ask("客户把深度相机换成了另一家的，识别率掉了，给我一句话回他"))
    assert "传感器" in text


def test_temperature_story_says_what_the_card_does_not_cover(tutor):
    text = _shown(tutor.ask("机器人进了零下二十度的冷库以后关节动作变慢，这是怎么回事"))
    assert text.startswith("卡片没有提到温度")


def test_low_charge_story_says_what_the_card_does_not_cover(tutor):
    """A robot that weakens as its battery drains: the card has no battery or voltage; say so first, then
    the card's motor sentences, and a verdict after it reads as its own sentence (no "…：不一定…：" run-on)."""
    text = _shown(tutor.ask("电池电量低于三成后，机械臂搬东西就慢吞吞的，充满电又好了，要不要重新训练"))
    assert text.startswith("卡片没有讲电量"), text
    assert "真实电机存在响应延迟" in text, text
    head = text.split("\n", 1)[0]
    assert "。不一定要从头重训" in head and "：不一定" not in head, head


@pytest.mark.parametrize("question", [
    "仿真测试都过了，可现场拧螺丝老对不准孔，客户怪我们的模型没训好，他说得对吗",
    "all our sim tests pass but on site the arm places parts a few millimetres off; the customer blames our algorithm. fair?",
])
def test_a_blame_verdict_cites_the_factors_own_reason_first(tutor, question):
    """After "not necessarily the algorithm": the card's line for THIS story (scenario 4: you cannot judge by
    the algorithm's results alone) is the first citation, the gap's definition every story shares after it."""
    a = tutor.ask(question)
    assert _shown(a).startswith(("不一定", "Not necessarily")), a.answer
    assert a.citations[0].chunk_id == "04-08#scenario-precision", [c.chunk_id for c in a.citations]
