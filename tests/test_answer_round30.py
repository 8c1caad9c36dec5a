"""Round 30 (issue 14/17), built on blind set 28 as a dev set. A follow-up yes/no reads its verdict kind from its own
words ("so just add noise in sim?" is a sufficiency question, not "is this the gap?"); a slide line after a topic
is that topic in one line, not a refusal; style words (plain words, for a customer) no longer vote the topic of
the neighbours they found; one stage of the pipeline leads with the card's sentence about it; a quoted customer
yes/no reads the claim of the quoted words. Wordings of our own: none is in data/acts.jsonl or a docs/blind* set
(checked below)."""

from __future__ import annotations

import json

import pytest

from blind_support import copied
from s2r_tutor.answer.acts import load_decisive
from s2r_tutor.errors import AnswerDataError
from s2r_tutor.models import Turn



def _turns(question: str, answer: str) -> list[Turn]:
    return [Turn(role="user", content=question), Turn(role="assistant", content=answer)]


SENSOR_STORY = _turns("客户那边把深度相机换了个牌子，识别就老出错，这算不算sim2real的问题",
                      "算，不同传感器的噪声和特性不一样，系统需要重新适配。")
WORLD_MODEL = _turns("世界模型和sim2real到底有啥不同", "两者相关，但不是同一个概念。")
FOLLOWUPS = ["那是不是在仿真里加点噪声就搞定了", "缩成一句话，我好贴到幻灯片上", "所以这事不能算策略的锅？"]
FIRST_TURNS = ["用最通俗的话讲讲sim2real难在哪，别用术语", "现场适配那一步到底在做什么",
               "client asks: if the sim training is done, why do your engineers need days at our site? how do I reply",
               "客户在群里追问：“既然做了sim2real，现场应该不用再调了吧？”"]


def test_the_after_blind28_wordings_are_our_own():
    assert not copied({*FOLLOWUPS, *FIRST_TURNS})


def test_is_adding_noise_enough_after_a_sensor_story_is_not_answered_yes(tutor):
    """The verdict kind is the follow-up's own question (enough?), not the earlier story's (is this the gap?):
    「是的，这属于 Reality Gap」 answered "so just add noise in sim?" (blind 28 b28-029, graded 0)."""
    a = tutor.ask(FOLLOWUPS[0], SENSOR_STORY)
    assert not a.answer.startswith("**是的"), a.answer
    assert "不够" in a.answer.split("\n", 1)[0], a.answer


def test_a_slide_line_after_a_topic_is_that_topic_in_one_line_not_a_refusal(tutor):
    a = tutor.ask(FOLLOWUPS[1], WORLD_MODEL)
    assert not a.refused, a.answer
    assert a.citations[0].chunk_id.endswith("#physical-system") and "不是同一个概念" in a.answer, a.answer


def test_not_the_policy_s_fault_names_the_blame_verdict():
    """'…的锅' (whose fault) is a blame cue (scenarios.json verdicts); a story's labelled neighbours may still vote
    its verdict kind first (story_match), so the table is checked here, not one answer."""
    from s2r_tutor.answer.scenario_table import table
    assert table().verdict(FOLLOWUPS[2]).key == "blame"
    assert table().verdict("那是不是就算不到软件的锅了").key == "blame"


def test_plain_words_about_why_it_is_hard_keep_the_topic_the_words_name(tutor):
    """Style words (plain, no jargon) found neighbours labelled with the definition; the question names why it
    is hard (blind 28 b28-045 got the walking picture)."""
    a = tutor.ask(FIRST_TURNS[0])
    assert a.intent == "why_hard", (a.intent, a.answer)
    assert a.citations[0].chunk_id.endswith("#why-hard")


def test_what_on_site_adaptation_does_leads_with_what_real_data_is_for(tutor):
    a = tutor.ask(FIRST_TURNS[1])
    assert a.citations[0].chunk_id.endswith("#related-robot-data"), a.answer
    assert a.answer.startswith("真实运行数据能够暴露"), a.answer


def test_why_days_on_site_after_sim_is_the_engineering_gap_for_the_customer(tutor):
    a = tutor.ask(FIRST_TURNS[2])
    assert a.act == "customer_reply" and a.intent == "scenario", (a.act, a.intent)
    assert a.citations[0].chunk_id.endswith("#solution-engineers"), a.answer


def test_a_quoted_customer_yes_no_reads_the_claim_of_the_quoted_words(tutor):
    """The story words around the quote found story neighbours that read no claim; the quoted question alone reads
    direct-deploy (blind 28 b28-012 opened with what to judge instead of 'no')."""
    a = tutor.ask(FIRST_TURNS[3])
    assert a.answer.startswith("**不是"), a.answer


# an example asked for in so many words decides the act over the neighbours (act_cues.json `decisive`); before,
# "光说概念" words found definition neighbours and the example request read define
EXAMPLE_ASKED = ["域随机化这个概念太虚了，能不能举几个现场的例子",
                 "system identification sounds abstract, give me a couple of examples I can show"]


def test_these_example_requests_are_our_own():
    assert not copied(set(EXAMPLE_ASKED))


def test_an_example_asked_for_outright_is_the_example_act(tutor):
    for q in EXAMPLE_ASKED:
        a = tutor.ask(q)
        assert a.act == "example", (q, a.act)


def test_decisive_cues_are_checked_at_load_and_never_rescue_an_off_card_question(tutor):
    assert "example" in load_decisive()
    with pytest.raises(AnswerDataError, match="unknown act"):
        load_decisive(json.dumps({"decisive": {"nonsense": ["x"]}}))
    assert tutor.ask("give me an example of tuning a PID loop for a drone").refused
