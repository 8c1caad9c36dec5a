"""Composition fixes from the blind-9 graders (docs/answering-history.md, 'Composition and acts from blind set 9').
Each test uses a wording of its own (never a spent blind question) and the real card."""

from __future__ import annotations

import json
import re

import pytest

from s2r_tutor.answer.card import CardView
from s2r_tutor.answer.leads import Leads
from s2r_tutor.errors import AnswerDataError


def _paras(text: str) -> list[str]:
    return [p for p in text.split("\n\n") if p.strip()]


def _sides(text: str) -> list[str]:
    """A comparison's side lines: after the one line that says the difference, where two methods are compared
    (round 33, leads.json compare_contrast)."""
    paras = _paras(text)
    return (paras[1] if paras[0].startswith(("区别在于：", "The difference: ")) else paras[0]).splitlines()


def test_a_follow_up_comparison_names_both_sides_earlier_side_first(tutor):
    history = [{"role": "user", "content": "系统辨识到底在做什么"},
               {"role": "assistant", "content": "用真实机器人数据校准仿真参数，让仿真更接近真实本体。"}]
    a = tutor.ask("那它和域随机化差在哪", history)
    first = _sides(a.answer)
    assert len(first) == 2 and "系统辨识" in first[0] and "域随机化" in first[1]
    assert a.citations[0].chunk_id.endswith("#system-identification")


def test_an_english_comparison_labels_each_side(tutor):
    a = tutor.ask("robust policy versus domain randomization: how do they differ?")
    assert a.answer.startswith("The difference: "), a.answer
    first = _sides(a.answer)
    assert len(first) == 2 and "Robust Policy" in first[0] and "Domain Randomization" in first[1]


def test_a_yes_no_question_about_rl_leads_with_the_answer_not_a_table(tutor):
    a = tutor.ask("RL 可以不靠仿真，直接拿实体机器人来训练吗？")
    assert "可以在仿真或真实环境中训练" in _paras(a.answer)[0]
    assert not any(line.startswith("|") for line in a.answer.splitlines())


def test_a_comparison_of_rl_and_sim2real_keeps_its_table(tutor):
    a = tutor.ask("强化学习和 Sim2Real 分别解决什么问题，对比一下")
    assert sum(line.startswith("|") for line in a.answer.splitlines()) == 5  # head, rule, the card's three bullets a side


def test_a_one_line_request_gets_one_paragraph(tutor):
    a = tutor.ask("Sum up domain randomization in one line.")
    assert len(_paras(a.answer)) == 1 and a.citations


@pytest.mark.parametrize("question", ["机器人本体参数越测不准，迁移就越难，是这样吧？",
                                      "Does a bigger sensor-model mismatch mean a bigger hardware gap, like the body parameters?"])
def test_no_stray_no_under_a_question_the_card_confirms(tutor, question):
    a = tutor.ask(question)
    assert not re.search(r"(?:^|\*\*：|\s)不是。|\bNo\.", a.answer)


@pytest.mark.parametrize("bad,match", [
    ({"one_line_cues": ["一句话", "("]}, "one_line_cues"),
    ({"builder_first": {"loop": ["listing"]}}, "builder_first"),
    ({"claims": {"x": {"lead": [["reality-gap", "仿真永远只是"]], "topic": "nowhere"}}}, "unknown topic"),
])
def test_bad_lead_tables_are_start_up_errors(tutor, bad, match):
    with pytest.raises(AnswerDataError, match=match):
        Leads(CardView(tutor.chunks), json.dumps(bad))
