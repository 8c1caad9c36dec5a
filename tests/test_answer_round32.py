"""Round 32 (issue 14/17), built on blind set 30 as a dev set. A question about one method in its own words ("why add
noise on purpose?") is answered as that method's, lead and body, when search singles the method out (Settings
searched_part_acts / searched_part_topics); the four reasons for simulation stay whole. "Can sim-trained skills be
trusted?" leads with the card's own answer, practice in the virtual world and the check in the real one (leads.json
claim trust-sim). "how do I tell if …" asks how to judge, not what to tell a customer. "is standard" names no safety
standard. Wordings of our own: none is in data/acts.jsonl or a docs/blind* set (checked below)."""

from __future__ import annotations

import pytest

from blind_support import copied

ON_PURPOSE = ["训练的时候干嘛要专门往里加噪声、把光照调得乱七八糟，这不是添乱吗",
              "what's the point of deliberately messing up the lighting and adding noise while training"]
TRUST = ["在仿真里学会的东西真能当真吗", "are skills a robot picked up in a simulator actually believable?"]
JUDGE = "how do I tell whether a problem at a customer's warehouse is a sim2real problem at all"
NUMBER = "how many simulated robots is standard to train in parallel?"
WHY_SIM = "为啥不直接拿真机器人练，非得先上仿真"
TAMPER = "why tamper with friction and mass while training instead of getting them exactly right"
_RULES_WIN = ("the methods vote of its neighbours (0.5-0.66, with six labelled rows of round 32) loses to the phrase "
              "rules and the retrieval prior of D·Control (or, in Chinese, the story matcher): still why simulation is used")


def test_these_wordings_are_our_own():
    assert not copied({*ON_PURPOSE, TAMPER, *TRUST, JUDGE, NUMBER, WHY_SIM})


@pytest.mark.parametrize("question", [
    TAMPER,
    *(pytest.param(q, marks=pytest.mark.xfail(strict=True, reason=_RULES_WIN)) for q in ON_PURPOSE),
])
def test_one_method_asked_in_own_words_is_that_method_s_why(tutor, question):
    a = tutor.ask(question)
    first = a.citations[0].chunk_id
    assert first.endswith("related-domain-randomization"), (first, a.answer)
    assert not any(c.chunk_id.endswith(("system-identification", "robust-policy")) for c in a.citations), a.answer


def test_the_reasons_for_simulation_stay_whole(tutor):
    a = tutor.ask(WHY_SIM)
    cited = {c.chunk_id.partition("#")[2] for c in a.citations}
    assert {"why-simulation-cost", "why-simulation-safety", "why-simulation-scale", "why-simulation-control"} <= cited, a.answer


@pytest.mark.parametrize("question", [
    TRUST[0],
    pytest.param(TRUST[1], marks=pytest.mark.xfail(strict=True, reason="its nearest trust-sim row is at cosine 0.927, "
                                                   "under claim_min_cosine 0.93: no claim is read, the definition answers")),
])
def test_trusting_sim_leads_with_the_real_world_check(tutor, question):
    a = tutor.ask(question)
    assert a.citations[0].chunk_id.endswith("plain-language"), a.answer
    assert ("真实世界负责检验" in a.answer) or ("real world" in a.answer and "check" in a.answer), a.answer


def test_how_do_i_tell_if_asks_how_to_judge(tutor):
    a = tutor.ask(JUDGE)
    assert a.act == "check_first", (a.act, a.answer)
    assert a.citations[0].chunk_id.endswith("solution-engineers"), a.answer
    assert "explain it to the customer" not in a.answer, a.answer


def test_a_usual_number_is_not_a_safety_standard(tutor):
    a = tutor.ask(NUMBER)
    assert not a.refused and a.act == "not_in_card", (a.act, a.answer)
    assert a.answer.startswith("The card does not give"), a.answer
