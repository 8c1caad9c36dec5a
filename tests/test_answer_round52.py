"""Round 52 (issue 14, 17): dev fixes after blind set 48 was measured. A "gap" of sales targets or a home racing
simulator is another subject, declined (b48-058, b48en-030, graded 0); which simulator to use for Sim2Real is a
comparison the card does not give, said so with what the card says about simulation, where it was refused
(b48-050, b48en-025); domain randomization said simply is its concrete example, not "the card has nothing simpler"
(b48en-023); "the customer says it will surely be fine on site, right?" is the direct-deploy claim, answered no
first (b48-024); a policy moved from one model number to another is the changed-body story (b48-038); "帮我组织下
回复" asks for a reply (b48-031); a story that asks "is this sim2real?" and what to check first gets the verdict
before the checks (b48-037). Wordings of our own."""

from __future__ import annotations

import pytest
from blind_support import copied

from s2r_tutor.models import Turn

OTHER_GAPS = ["本月订单量和目标的差距很大，gap 怎么补上来", "our hiring is behind plan, how do we close the gap?",
              "best wheel and pedals for sim racing so the gap to real track driving gets smaller?"]
TOOLS = ["做 sim2real 的话 PyBullet 和 Isaac Sim 选哪个？", "for sim-to-real work, would you pick Gazebo or MuJoCo?"]
TOOL_TROUBLE = "Isaac Sim 装好了一启动就报错，驱动要怎么装"
DR_PLAIN = "域随机化能不能说得再直白点"
DR_TURN = [Turn(role="user", content="域随机化主要是解决什么的"),
           Turn(role="assistant", content="训练时主动制造参数变化，可以减少策略对单一仿真条件的依赖。")]
DR_AGAIN = "还是太抽象，说人话"
SURE_FINE = ["客户说仿真里都跑通了，到现场肯定没问题，对吗？",
             "a client says their sim runs were clean so it will definitely work on site, right?"]
MODEL = "一样的算法，从S型号机器人挪到T型号就失灵了 先查啥"
ORGANIZE = "客户说“空载挺好，一挂上机械臂就走不稳” 帮我组织下回复"
BOTH_ASKED = "客户说换了新灯以后摄像头识别老出错，这算不算sim2real的问题？先查什么"


def test_these_wordings_are_our_own():
    assert not copied({*OTHER_GAPS, *TOOLS, TOOL_TROUBLE, DR_PLAIN, DR_TURN[0].content, DR_AGAIN, *SURE_FINE,
                       MODEL, ORGANIZE, BOTH_ASKED})


@pytest.mark.parametrize("question", OTHER_GAPS)
def test_a_gap_of_another_subject_is_declined(tutor, question):
    a = tutor.ask(question)
    assert a.refused and a.act == "out_of_scope", (a.act, a.answer)


@pytest.mark.parametrize("question", TOOLS)
def test_which_simulator_for_sim2real_is_a_comparison_the_card_does_not_give(tutor, question):
    a = tutor.ask(question)
    assert not a.refused and a.act == "not_in_card", (a.act, a.answer)
    assert a.answer.startswith(("卡片没有给出具体仿真平台或工具的比较", "The card does not give a comparison of simulation")), a.answer
    assert any(c.chunk_id.endswith("#related-simulation") for c in a.citations), a.answer  # what it does say


def test_a_simulator_that_will_not_start_is_still_out_of_scope(tutor):
    a = tutor.ask(TOOL_TROUBLE)
    assert a.refused and a.act == "out_of_scope", (a.act, a.answer)


def test_domain_randomization_said_simply_is_its_concrete_example(tutor):
    a = tutor.ask(DR_PLAIN)
    assert a.act == "simpler" and a.answer.startswith("- **域随机化**：训练时故意改变"), (a.act, a.answer)


def test_simpler_after_domain_randomization_is_not_the_card_has_nothing_simpler(tutor):
    a = tutor.ask(DR_AGAIN, DR_TURN)
    assert a.act == "simpler" and "没有更浅" not in a.answer and "故意改变" in a.answer, (a.act, a.answer)


@pytest.mark.parametrize("question", SURE_FINE)
def test_surely_fine_on_site_because_simulation_passed_is_answered_no_first(tutor, question):
    a = tutor.ask(question)
    assert a.answer.startswith(("**不是", "**No")), a.answer


def test_a_policy_moved_to_another_model_number_is_the_changed_body(tutor):
    a = tutor.ask(MODEL)
    assert "同一套算法换到不同机器人本体" in a.answer, a.answer
    assert a.answer.startswith("**先查这里"), a.answer


def test_organise_a_reply_asks_for_words_for_the_customer(tutor):
    a = tutor.ask(ORGANIZE)
    assert a.act == "customer_reply" and "可以这样跟客户解释" in a.answer, (a.act, a.answer)


def test_a_story_asking_both_whether_it_is_the_gap_and_what_to_check_gets_the_verdict_first(tutor):
    a = tutor.ask(BOTH_ASKED)
    assert a.answer.startswith("**是的"), a.answer
    assert "核对" in a.answer, a.answer  # and the checks after it
