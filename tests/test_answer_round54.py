"""Round 54 (issue 14, 17): dev fixes after blind set 49 was measured. An RL algorithm named in a question about
Sim2Real and RL no longer refuses it (b49en-002, graded 0); "must we validate on the real robot?" is answered yes,
not with the direct-deploy claim's 「不是」 (b49-053); a why with a yes/no tail gets the reason, not 「是的」 (b49-036);
'control' in quotes after the reasons for simulation is reason D (b49en-026); "压缩成一句" asks for one line (b49-039).
Wordings of our own."""

from __future__ import annotations

import pytest
from blind_support import copied

from s2r_tutor.models import Turn

ALGO_CLAIM = "customer insists their PPO training means they are doing sim2real, is RL the same thing as sim2real?"
ALGO_ONLY = "PPO 训练时熵系数设多大比较好"
MUST_VALIDATE = ["上线前是不是必须在真机上验证一遍？客户说仿真全过了想省掉这一步",
                 "do we have to test on the real robot before go-live, even though every simulation run passed?"]
WHY_TAIL = "为什么仿真测试都通过了，还得留时间做现场适配，不能直接交付吗"
WHY_THEN_ASKED = "为什么随机化能帮策略迁移到真机？那是不是随机范围开得越大越好"
REASONS = [Turn(role="user", content="why bother training robots in simulation first?"),
           Turn(role="assistant", content="The card gives four reasons: cost, safety, scale and control.")]
CONTROL = "and 'control', what is that one about?"
ONE_LINE = "为啥仿真和现场总对不上，帮我浓缩成一句"


def test_these_wordings_are_our_own():
    assert not copied({ALGO_CLAIM, ALGO_ONLY, *MUST_VALIDATE, WHY_TAIL, WHY_THEN_ASKED, REASONS[0].content, CONTROL, ONE_LINE})


def test_an_rl_algorithm_named_in_a_question_about_sim2real_and_rl_is_answered(tutor):
    """PPO moved from the words that refuse whatever else is asked (lexicon OFF_CARD) to those a core term outranks
    (FOREIGN_TOPICS)."""
    a = tutor.ask(ALGO_CLAIM)
    assert not a.refused and a.intent == "rl_vs_sim2real", (a.act, a.intent, a.answer)
    assert "≠" in a.answer, a.answer


def test_a_question_about_the_algorithm_alone_is_still_declined(tutor):
    a = tutor.ask(ALGO_ONLY)
    assert a.refused and a.act == "out_of_scope", (a.act, a.answer)


@pytest.mark.parametrize("question", MUST_VALIDATE)
def test_must_we_validate_on_the_real_robot_is_answered_yes(tutor, question):
    a = tutor.ask(question)
    assert a.act == "verdict" and a.answer.startswith(("**是的。**", "**Yes.**")), (a.act, a.answer)
    assert any(c.chunk_id.endswith("#why-hard") for c in a.citations), a.answer


def test_a_why_with_a_yes_no_tail_opens_on_the_reason(tutor):
    a = tutor.ask(WHY_TAIL)
    assert not a.answer.startswith(("**是的", "**不是", "是的", "不是")), a.answer
    assert "真机验证仍然不可避免" in a.answer.split("\n\n")[0], a.answer


def test_a_yes_no_asked_as_a_sentence_of_its_own_after_a_why_keeps_its_verdict(tutor):
    """Only a one-sentence why with a yes/no tail loses the yes/no line: "为什么…？那是不是越大越好" still asks it."""
    a = tutor.ask(WHY_THEN_ASKED)
    assert a.answer.startswith("**不是越大越好。**"), a.answer


def test_control_in_quotes_after_the_reasons_is_reason_d(tutor):
    a = tutor.ask(CONTROL, history=REASONS)
    assert not a.refused and a.intent == "why_simulation", (a.act, a.intent, a.answer)
    assert a.citations[0].chunk_id.endswith("#why-simulation-control"), a.answer


def test_condensed_into_one_sentence_is_one_line(tutor):
    a = tutor.ask(ONE_LINE)
    assert "\n" not in a.answer.strip(), a.answer
