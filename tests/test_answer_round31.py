"""Round 31 (issue 14/17), built on blind set 29 as a dev set. A claim someone else states without quotation marks
("老板说 把仿真做精细点就不存在sim2real问题了 我觉得不太对？") is read on its own, like a quoted yes/no, and answered
with the verdict on it (leads.json `reported_speech`). A camera mounted on a robot's back is a payload story, not an
off-card question: two labelled stories, which did not carry every wording until round 37 raised the story bar. Wordings of our own: none is in data/acts.jsonl or a docs/blind* set (checked below)."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from blind_support import copied
from s2r_tutor.answer.leads import Leads
from s2r_tutor.errors import AnswerDataError

REPORTED = ["领导说 只要把仿真建得足够细 sim2real的问题就不会有了 我咋觉得不对",
            "my manager says a detailed enough simulator makes the sim2real problem disappear, but I doubt it"]
STORY = "巡检机器人背上加装了一套云台相机，之后走路一直发飘，先从哪查"


def test_these_wordings_are_our_own():
    assert not copied({*REPORTED, STORY})


@pytest.mark.parametrize("question", REPORTED)
def test_a_claim_someone_states_gets_the_verdict_on_it(tutor, question):
    a = tutor.ask(question)
    assert a.act == "verdict", (a.act, a.answer)
    assert a.answer.startswith(("**不是", "**No")), a.answer


def test_reported_speech_must_name_what_was_said(tutor):
    """The pattern's named group is what is read; a pattern without it is a start-up error, not a silent no-op."""
    answerer = tutor._get_answerer()
    m = answerer.leads.reported.search(REPORTED[0])
    assert m and m.group("said").startswith("只要把仿真建得足够细")
    data = json.loads(resources.files("s2r_tutor").joinpath("data/leads.json").read_text("utf-8"))
    data["reported_speech"] = "(?:老板)说(.+)"
    with pytest.raises(AnswerDataError, match="reported_speech"):
        Leads(answerer.card, json.dumps(data, ensure_ascii=False))


# (its out-of-scope vote is 0.12: declined until round 37 raised the story bar, story_max_oos, from 0.12 to 0.2)
def test_a_camera_mounted_on_the_back_is_a_story_not_a_refusal(tutor):
    a = tutor.ask(STORY)
    assert not a.refused and a.intent == "scenario", (a.intent, a.answer)


# after blind set 30 (dev): a claim whose cue matches but whose subject the question never names is not read by the
# cue ("…压根不需要sim2real 靠谱吗" names no RL; rl-alone's cue answered 「可以：强化学习…」, b30-059 graded 0), and a
# partner or vendor is a speaker of reported speech too
NO_RL = "集成商讲他们的仿真跟真的一模一样 所以用不着sim2real了 这话靠谱不"


def test_a_claim_s_cue_needs_its_subject_named(tutor):
    assert not copied({NO_RL})
    assert tutor._get_answerer().leads.cued_claim("压根不需要sim2real 靠谱吗") is None
    assert tutor._get_answerer().leads.cued_claim("强化学习压根不需要sim2real 靠谱吗") == "rl-alone"
    a = tutor.ask(NO_RL)
    assert not a.answer.startswith("**可以"), a.answer
    assert "强化学习" not in a.answer.split("\n", 1)[0], a.answer
