"""Round 28 (issue 14/17). An answer of words for a customer (act customer_reply) only when the question
names words said or written, or quotes what the customer says or believes (`needs` in data/act_cues.json).
Before, any question that mentioned a customer had the labelled customer replies as its nearest neighbours:
"见客户的时候，我怎么判断…" (the engineer's own criterion) got "可以这样跟客户解释". Wordings of our own: none is
in data/acts.jsonl or a docs/blind* set (checked below)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from blind_support import copied
from s2r_tutor.answer.acts import ActReader, Example, load_cues, load_needs
from s2r_tutor.errors import AnswerDataError

# the engineer's own questions about a customer: no words for the customer asked
ABOUT = [("客户那边要是机器人老出状况，我怎么分辨是不是仿真和现场的差距导致的", "check_first"),
         ("how can I recognise, at a customer site, that the trouble is a sim-to-real gap?", "check_first")]
# words for a customer, in new wordings: still replies
REPLY = ["客户老板质问仿真是不是白花钱，这个我该怎么回",
         "what do I say when the customer insists their simulator is perfect?",
         "客户觉得仿真就是玩具，我怎么应对"]


def test_these_wordings_are_our_own():
    assert not copied({*(q for q, _ in ABOUT), *REPLY})


@pytest.mark.parametrize("question,act", ABOUT)
def test_a_question_about_a_customer_is_not_a_reply_to_one(tutor, question, act):
    a = tutor.ask(question)
    assert a.act == act, (a.act, a.answer)
    assert "跟客户解释" not in a.answer and "explain it to the customer" not in a.answer, a.answer


@pytest.mark.parametrize("question", REPLY)
def test_words_for_a_customer_are_still_a_reply(tutor, question):
    assert tutor.ask(question).act == "customer_reply"


def test_every_labelled_reply_names_its_words_and_a_new_one_that_does_not_is_a_start_up_error(settings):
    """The table is checked at load against the labelled examples, so a reply it would refuse is caught where
    it is written, not as a silently different answer."""
    needs = load_needs()
    assert set(needs) == {"customer_reply"}
    reply = Example("客户现场的机器人老摔", "customer_reply", "scenario")
    fine = Example("客户现场的机器人老摔，我该怎么跟他解释", "customer_reply", "scenario")
    ActReader([fine], np.zeros((1, 4)), load_cues(), settings.answer, needs=needs)
    with pytest.raises(AnswerDataError, match="客户现场的机器人老摔"):
        ActReader([fine, reply], np.zeros((2, 4)), load_cues(), settings.answer, needs=needs)
    bad = json.dumps({"needs": {"nonsense": ["x"]}})
    with pytest.raises(AnswerDataError, match="unknown act"):
        load_needs(bad)


# "RL without Sim2Real?" is the mirror of "Sim2Real without RL?": the same words, the other way round, and
# the embedder reads both alike, so the words decide (leads.json claim rl-alone, read by its cue only)
RL_ALONE = [("不借助sim2real，强化学习自己能玩得转吗", "**可以"),
            ("is it possible to train a policy with RL and never touch sim2real?", "**Yes")]
# the negated subject with a word between ("without any RL") asks rl-only's other side: yes
SIM2REAL_ALONE = [("could a team do sim2real without using any RL?", "**Yes"),
                  ("完全不用任何强化学习，也能搞sim2real吗", "**是的"),
                  # one character between the negation and the subject (blind 27 b27-053 lost its 是的 to "any")
                  ("我们没用强化学习，sim2real跟我们有关系吗", "**是的")]


def test_the_rl_wordings_are_our_own():
    assert not copied({*(q for q, _ in RL_ALONE), *(q for q, _ in SIM2REAL_ALONE)})


@pytest.mark.parametrize("question,verdict", RL_ALONE + SIM2REAL_ALONE)
def test_rl_without_sim2real_and_sim2real_without_rl_are_both_yes(tutor, question, verdict):
    a = tutor.ask(question)
    assert a.act == "verdict" and a.answer.startswith(verdict), (a.act, a.answer)
    assert a.citations[0].chunk_id == "04-08#rl-vs-sim2real", a.answer


# a follow-up asking what to check first, after a story that names no gap factor: the general check and the
# card's list of sources it goes through, cited (before: nothing cited, so the generic summary of the sections)
GENERAL_STORY = [{"role": "user", "content": "公司测试都正常 到现场就出状况 这属于sim2real问题不"},
                 {"role": "assistant", "content": "很可能是：现场的条件和仿真、公司里不一样，这就是 Reality Gap。"}]
CHECK_NEXT = "那我最先该查哪块"
# "不都能…吗，咋还…": the ask is why it still happens, not a yes/no
STILL = ["仿真里摩擦系数不是都能设吗，咋还会打滑",
         "电机参数不都照手册填了，怎么还是跟真机对不上"]


def test_the_new_wordings_are_our_own():
    assert not copied({GENERAL_STORY[0]["content"], CHECK_NEXT, *STILL})


def test_what_to_check_after_a_story_with_no_factor_cites_the_cards_sources(tutor):
    a = tutor.ask(CHECK_NEXT, history=GENERAL_STORY)
    assert a.act == "check_first" and "相关的内容是这样讲的" not in a.answer, (a.act, a.answer)
    assert a.citations[0].chunk_id == "04-08#reality-gap" and "摩擦系数" in a.answer, a.answer


@pytest.mark.parametrize("question", STILL)
def test_why_does_it_still_happen_is_a_why(tutor, question):
    a = tutor.ask(question)
    assert a.act == "why" and not a.answer.startswith(("**是的", "是的")), (a.act, a.answer)


# "还有呢?" after an answer that gave two of the four reasons for simulation: the other two, and not the walking
# scene again (blind 27 b27-005 got cost and safety again); "另外两个呢" lost the scene too
TWO_REASONS = [{"role": "user", "content": "干嘛不直接在真机上练"},
               {"role": "assistant", "content": "两条：一是成本，机器磨损、场地和人工都花钱；二是安全，摔和撞没法在真机上反复试。"}]


@pytest.mark.parametrize("question", ["好，还有呢", "还有吗", "那另外两条呢", "what other reasons are there?"])
def test_what_else_after_two_reasons_is_the_other_two(tutor, question):
    assert not copied({question, TWO_REASONS[0]["content"]})
    a = tutor.ask(question, history=TWO_REASONS)
    cited = {c.chunk_id for c in a.citations}
    assert cited == {"04-08#why-simulation-scale", "04-08#why-simulation-control"}, (a.act, a.answer)
