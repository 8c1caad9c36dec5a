"""Round 40 (issue 14/17), built on blind set 38 as a dev set. "How do people close it?" after an answer about why a
policy fails leads with the four methods (the methods topic's own lead, unheard in that conversation), not the
gap's sim/real contrast. A customer's opinion that uses a symptom word ("falls on the real robot don't matter") but
asks why simulation is answered with the reason, not a reality-gap walkthrough (the neighbours outvote the story).
"Which method" in a customer story is read in colloquial words too (啥方法). A terse English yes/no ("more
randomness = always better?") is a yes/no, and "more" in it asks no continuation; randomize-more answers alone. A
speed-up figure asked ("how many times faster") is a figure the card does not give. Real data from the field
helps (claim data-helps); a same-model unit story is no other-body claim (its subject). Wordings of our own."""

from __future__ import annotations

import pytest
from blind_support import copied

from s2r_tutor.models import Turn

WHY_FAILS_EN = [Turn(role="user", content="why would a controller that is fine in the simulator break down on hardware"),
                Turn(role="assistant", content="Simulation is only an approximation: friction, motor delay, sensor noise "
                                               "and uneven ground differ on the real robot.")]
WHY_FAILS_ZH = [Turn(role="user", content="模拟器里调好的控制器为啥一上实机就出问题"),
                Turn(role="assistant", content="仿真只是近似：摩擦、电机延迟、传感器噪声和地面在真机上都不一样。")]
DR_TURN = [Turn(role="user", content="explain domain randomization briefly"),
           Turn(role="assistant", content="Vary friction, mass, lighting, terrain and sensor noise during training so the "
                                          "policy does not depend on one simulated condition.")]
CLOSE = ["and how do teams narrow that", "那大家一般怎么弥补这个"]
CUSTOMER_SAYS_FALLS_OK = ["客户说机器人多摔几下也没啥，高难动作干脆在实机上练，我们干嘛还绕一圈先仿真",
                          ("the client says a couple of falls on their hardware are fine, so why bother with a sim for "
                           "the dangerous moves?")]
WHICH_METHOD = "客户的仓库地面仿真里全是平地 现场到处是减速带和斜坡 给他们推荐用啥方法"
MORE_RANDOM = ["so maximum randomness = always better?", "is more random variation always better?"]
SPEEDUP = ["how many times faster is sim training than hardware training? want a figure for my slides",
           "仿真训练比真机能快多少倍 给个数"]
DATA_HELPS = ["客户现场机器人的运行日志拿回来 对调我们的仿真有用吗",
              "do logs from robots already running at customer sites actually help with sim2real?"]
SAME_MODEL_UNITS = "客户说同一型号的几台机器人用同一个策略 有几台走得好有几台老出问题 怎么解释"
OURS = [*[t.content for t in WHY_FAILS_EN + WHY_FAILS_ZH + DR_TURN], *CLOSE, *CUSTOMER_SAYS_FALLS_OK, WHICH_METHOD,
        *MORE_RANDOM, *SPEEDUP, *DATA_HELPS, SAME_MODEL_UNITS]


def test_these_wordings_are_our_own():
    assert not copied(set(OURS))


@pytest.mark.parametrize(("turns", "question"), [(WHY_FAILS_EN, CLOSE[0]), (WHY_FAILS_ZH, CLOSE[1])])
def test_how_to_close_it_after_why_it_fails_leads_with_the_four_methods(tutor, turns, question):
    a = tutor.ask(question, turns)
    first = a.answer.split("\n\n")[0]
    assert "共同目标" in first or "shared goal" in first, a.answer
    for name in ("Domain Randomization", "System Identification", "Real-world Fine-tuning", "Robust Policy"):
        assert name in a.answer, a.answer
    assert "仿真环境：" not in a.answer and "Simulation environment:" not in a.answer, a.answer


@pytest.mark.parametrize("question", [
    pytest.param(CUSTOMER_SAYS_FALLS_OK[0], marks=pytest.mark.xfail(strict=True, reason=(
        "the phrase rules (a customer and a symptom word: 3.0) and the retrieval prior (scenario 1 ranks first: 1.8) "
        "outweigh neighbours voting why_simulation 0.43 against 0.27, so the story override never comes into it"))),
    CUSTOMER_SAYS_FALLS_OK[1]])
def test_a_customer_opinion_using_a_symptom_word_asks_why_simulation(tutor, question):
    a = tutor.ask(question)
    assert a.intent == "why_simulation", (a.intent, a.answer)
    first = a.answer.split("\n\n")[0]
    assert any(x in first for x in ("危险动作", "在虚拟环境里失败", "Dangerous actions", "Failing in a virtual")), a.answer
    assert "Reality Gap" not in first and "reality gap" not in first, a.answer


def test_which_method_in_colloquial_words_names_the_method_tied_to_the_factor(tutor):
    a = tutor.ask(WHICH_METHOD)
    assert a.answer.startswith("**卡片里对应的方法"), a.answer
    assert "域随机化" in a.answer.split("\n\n")[0], a.answer


@pytest.mark.parametrize("question", MORE_RANDOM)
def test_a_terse_more_randomness_question_is_answered_no_and_alone(tutor, question):
    a = tutor.ask(question, DR_TURN)
    assert a.answer.startswith("**No, bigger is not always better.**"), a.answer
    assert "reasonable range" in a.answer, a.answer
    assert "04-04" not in a.answer and "Coming soon" not in a.answer, a.answer


@pytest.mark.parametrize("question", SPEEDUP)
def test_a_speed_up_figure_is_what_the_card_does_not_give(tutor, question):
    a = tutor.ask(question)
    assert a.act == "not_in_card", (a.act, a.answer)
    assert a.answer.startswith(("卡片没有给出具体倍数或数字", "The card does not give a figure")), a.answer
    assert "训练效率" in a.answer or "training efficiency" in a.answer, a.answer


@pytest.mark.parametrize("question", DATA_HELPS)
def test_field_data_helps_and_says_how(tutor, question):
    a = tutor.ask(question)
    assert a.answer.startswith(("**有用。**", "**Yes, it helps.**")), a.answer
    assert "参数校准" in a.answer or "parameter calibration" in a.answer, a.answer
    assert "不是。" not in a.answer and "No." not in a.answer, a.answer


def test_units_of_one_model_are_no_other_body_claim(tutor):
    a = tutor.ask(SAME_MODEL_UNITS)
    assert not a.answer.startswith("**不一定能直接用。**"), a.answer


def test_a_follow_up_asking_for_more_detail_still_continues_the_topic(tutor):
    # "more" narrowed to asking for more: "tell me more" still continues the earlier topic
    a = tutor.ask("tell me more", DR_TURN)
    assert a.intent == "methods" and "variation" in a.answer, (a.intent, a.answer)
