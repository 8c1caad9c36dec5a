"""Round 44 (issue 14/17), built on blind set 42 as a dev set. "后两个" / "the first two" after a list are those
parts of it ("后两个有啥差别？" after the four methods compared RL with Sim2Real). Why simulation in plain words is the scene and simulation's value, not one reason of
four under "the card groups the reasons". "X = always better?" is a yes/no. Wordings of our own."""

from __future__ import annotations

import pytest
from blind_support import copied

from s2r_tutor.models import Turn

METHODS = [("有哪些办法能缩小 sim2real 的差距", "四种：域随机化、系统辨识、真机微调、鲁棒策略。"),
           ("what are the ways to narrow the sim-to-real gap?",
            "Four: domain randomization, system identification, real-world fine-tuning and robust policy.")]
SPANS = [("前两种分别是干嘛的", {"domain-randomization", "system-identification"}),
         ("the last two - how do they differ?", {"real-world-fine-tuning", "robust-policy"})]
PLAIN_WHY = "能不能通俗点讲讲，为啥要搞仿真"
EQUALS = "wider randomization = always more robust policy?"
OURS = [*(q for q, _ in METHODS), *(q for q, _ in SPANS), PLAIN_WHY, EQUALS]


def test_these_wordings_are_our_own():
    assert not copied(set(OURS))


@pytest.mark.parametrize("turn,span", list(zip(METHODS, SPANS)))
def test_the_first_or_last_two_of_a_list_are_those_parts(tutor, turn, span):
    question, parts = span
    a = tutor.ask(question, [Turn(role="user", content=turn[0]), Turn(role="assistant", content=turn[1])])
    cited = {c.chunk_id.partition("#")[2] for c in a.citations}
    assert parts <= cited, (cited, a.answer)
    assert "rl-vs-sim2real" not in cited, a.answer
    others = {"domain-randomization", "system-identification", "real-world-fine-tuning", "robust-policy"} - parts
    assert not others & cited, (cited, a.answer)


def test_why_simulation_in_plain_words_lists_no_single_reason(tutor):
    a = tutor.ask(PLAIN_WHY)
    assert a.act == "simpler", (a.act, a.answer)
    assert "卡片把原因归成几类" not in a.answer and "卡片给出四类原因" not in a.answer, a.answer
    assert "低成本试错" in a.answer or "一天摔几百次" in a.answer, a.answer


def test_an_equation_with_a_question_mark_is_a_yes_no(tutor):
    a = tutor.ask(EQUALS)
    assert a.answer.startswith("**No"), a.answer
