"""Round 50 (issue 14): dev fixes after blind set 47 was measured. "小学生 / 外行 能听懂" asks the simpler version, as
"小白能听懂" did since round 47 (b47-059 read define and got the formal definition); "if the sim is real enough, no more
tuning on the real robot?" is the perfect-simulation misconception, not a question about fine-tuning (b47-002 opened
「可以，卡片把这叫作真机微调。」, graded 0); "why does a robot that walks in sim fall over for real" is the reality gap,
not why simulation is used (b47en-007, graded 0); a value asked in so many words ("给个经验值", "rule of thumb") is a
number the card does not give (b47-018 repeated the method silently). Wordings of our own."""

from __future__ import annotations

import pytest
from blind_support import copied

PLAIN = ["用外行也听得懂的话解释下域随机化", "reality gap 怎么讲小学生都能听懂"]
REAL_ENOUGH = ["仿真如果建得够真，那上真机以后是不是不用再调参了？", "so with a realistic enough simulator we never tune on the real robot, right?"]
FALLS = "our robot walks perfectly in the simulator but falls over on the real one, why?"
VALUE = ["域随机化里质量参数一般设多大合适，有经验值吗", "any rule of thumb for how much to vary mass in domain randomization?"]


def test_these_wordings_are_our_own():
    assert not copied(set(PLAIN) | set(REAL_ENOUGH) | {FALLS} | set(VALUE))


@pytest.mark.parametrize("question", PLAIN)
def test_who_must_understand_it_asks_the_simpler_version(tutor, question):
    a = tutor.ask(question)
    assert a.act == "simpler", (a.act, a.answer)


@pytest.mark.parametrize("question", REAL_ENOUGH)
def test_real_enough_so_no_tuning_is_the_perfect_simulation_misconception(tutor, question):
    a = tutor.ask(question)
    assert a.act == "verdict", (a.act, a.answer)
    assert a.answer.startswith(("**不是", "**No.")), a.answer
    assert "微调" not in a.answer.split("\n")[0] and "fine-tuning" not in a.answer.split("\n")[0], a.answer


def test_a_robot_that_falls_only_for_real_is_the_reality_gap(tutor):
    a = tutor.ask(FALLS)
    assert a.intent in ("reality_gap", "scenario"), (a.intent, a.answer)
    assert "reality gap" in a.answer.lower() and "Cost" not in a.answer, a.answer  # not the four reasons to simulate


@pytest.mark.parametrize("question", VALUE)
def test_a_value_asked_for_is_a_number_the_card_does_not_give(tutor, question):
    a = tutor.ask(question)
    assert a.act == "not_in_card", (a.act, a.answer)
    assert a.answer.startswith(("卡片没有给出具体取值", "The card does not give specific values")), a.answer
    assert "[1]" in a.answer, a.answer  # then what the card does say, cited
