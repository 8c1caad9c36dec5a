"""Composition fixes of round 15 (docs/answering-history.md, 'Round 15, non-story'): an HR/pay question is
refused, a ranking of the card's methods says the card gives none instead of refusing, "which one / when to
use each" says the card does not choose, an English "Can we skip field testing?" opens with the verdict.
Wordings of their own (never a spent blind question), the real card and the real answerer."""

from __future__ import annotations

import pytest


def _first(text: str) -> str:
    return next(p for p in text.split("\n\n") if p.strip())


@pytest.mark.parametrize("question", [
    "做机器人交付的工程师，年终绩效奖金是怎么定的？",
    "What is the typical yearly bonus for a robotics solutions engineer?",
])
def test_pay_and_hr_questions_are_refused(tutor, question):
    assert tutor.ask(question).refused


def test_a_ranking_of_the_methods_says_the_card_gives_none(tutor):
    # round 16: said as "the card does not rank them", then what each method is for (was a bare not-in-card)
    a = tutor.ask("Please rank the gap-closing methods, best first")
    assert not a.refused and a.act == "compare"
    assert "does not rank" in _first(a.answer) and len(a.citations) >= 4


@pytest.mark.parametrize("question, line", [
    ("系统辨识和真机微调分别啥时候用？", "卡片没有给两者分优劣"),
    ("鲁棒策略和系统辨识，哪个更适合我们", "卡片没有给两者分优劣"),
])
def test_which_one_says_the_card_does_not_choose(tutor, question, line):
    a = tutor.ask(question)
    assert not a.refused and _first(a.answer).startswith(line), a.answer


def test_can_we_skip_field_testing_opens_with_no(tutor):
    a = tutor.ask("Every simulated run passed. Can we skip the on-site trial?")
    assert _first(a.answer).startswith("**No."), a.answer
