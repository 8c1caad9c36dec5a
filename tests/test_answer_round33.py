"""Round 33 (issue 14/17), built on blind set 31 as a dev set. "Which of those use real data?" is answered with the
methods the card ties to real data, on a follow-up too (leads.json compare_conditions uses-data, 'asks'); the why of
system identification is the card's reason, inaccurate body parameters widen the gap (leads.json); a picture asked in
one line is its one sentence (leads.json analogy.one_line); a solutions engineer asking when to suspect a sim2real
problem is asking how to judge, not for customer wording (labelled rows). Wordings of our own: none is in
data/acts.jsonl or a docs/blind* set (checked below)."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from blind_support import copied
from s2r_tutor.answer.leads import Leads
from s2r_tutor.errors import AnswerDataError
from s2r_tutor.models import Turn

METHODS_TURN = [Turn(role="user", content="缩小仿真和现实的差距都有哪些招"),
                Turn(role="assistant", content="卡片给了四种：域随机化、系统辨识、真机微调、鲁棒策略。")]
USES_DATA = ["这里面哪些需要真机数据", "which of these methods rely on real-world data?"]
SI_WHY = "为啥要做系统辨识，直接用仿真默认参数不行吗"
ONE_LINE = ["explain sim2real like I'm five, in one line", "说人话，一句话讲讲sim2real是啥"]


def test_these_wordings_are_our_own():
    assert not copied({*USES_DATA, SI_WHY, *ONE_LINE, METHODS_TURN[0].content})


@pytest.mark.parametrize("question", USES_DATA)
def test_which_methods_use_real_data_names_them(tutor, question):
    a = tutor.ask(question, METHODS_TURN)
    cited = [c.chunk_id.partition("#")[2] for c in a.citations]
    assert cited == ["system-identification", "real-world-fine-tuning"], a.answer
    assert a.answer.startswith(("用到真实数据的是系统辨识和真机微调", "The ones that use real data are System Identification")), a.answer


def test_the_why_of_system_identification_is_the_body_parameters(tutor):
    a = tutor.ask(SI_WHY)
    assert a.act == "why", a.act
    assert a.citations[0].chunk_id.endswith("physical-system") and "越不准确" in a.answer, a.answer


@pytest.mark.parametrize("question", ONE_LINE)
def test_a_picture_asked_in_one_line_is_one_sentence(tutor, question):
    a = tutor.ask(question)
    assert len(a.citations) == 1 and a.citations[0].chunk_id.endswith("plain-language"), a.answer
    assert "场景" not in a.answer and "Scenario" not in a.answer, a.answer


def test_one_line_pictures_are_checked_at_load(tutor):
    """A one-line sentence the card does not hold is a start-up error naming it, never a silently longer answer."""
    card = tutor._get_answerer().card
    data = json.loads(resources.files("s2r_tutor").joinpath("data/leads.json").read_text("utf-8"))
    data["analogy"]["one_line"]["definition"] = [["plain-language", "这句话卡片里没有"]]
    with pytest.raises(AnswerDataError, match="one_line"):
        Leads(card, json.dumps(data, ensure_ascii=False))


# second part: a comparison says the difference in one line first (leads.json compare_contrast), "a different model"
# in a story is no comparison cue, and the card's list of other cards is never what "the card does say"
CONTRAST = ["鲁棒策略和域随机化到底差在哪儿", "system identification versus fine-tuning on the real robot, how do they differ?"]
SWAP = "they replaced the IMU with a different model and the robot now wobbles while standing still, what should I check first"
LIDAR = "we put a different brand of lidar on the robot and now it clips door frames, what should I check first"
RANGE = "域随机化的时候质量该在多大范围里随机？给个数"


def test_second_part_wordings_are_our_own():
    assert not copied({*CONTRAST, SWAP, LIDAR, RANGE})


@pytest.mark.parametrize("question", CONTRAST)
def test_a_comparison_says_the_difference_first(tutor, question):
    a = tutor.ask(question)
    assert a.act == "compare", (a.act, a.answer)
    assert a.answer.startswith(("区别在于：", "The difference: ")), a.answer


def test_a_different_model_in_a_story_is_no_comparison(tutor):
    a = tutor.ask(SWAP)
    assert a.act == "check_first", (a.act, a.answer)
    assert a.answer.startswith("**Check this first"), a.answer


@pytest.mark.xfail(strict=True, reason="a lidar swap story is declined: its neighbours' out-of-scope vote is 0.39 (lidar "
                   "SLAM and calibration rows), over story_max_oos (0.2 since round 37), though the labelled stories read it as a "
                   "sensor story; four labelled lidar-swap rows did not lower it enough and were not kept")
def test_a_lidar_swap_is_a_sensor_story(tutor):
    a = tutor.ask(LIDAR)
    assert not a.refused and a.intent == "scenario", a.answer


def test_the_list_of_other_cards_is_not_what_the_card_says(tutor):
    a = tutor.ask(RANGE)
    assert a.act == "not_in_card", a.act
    assert "即将补充" not in a.answer and not any(c.chunk_id.endswith("related-knowledge") for c in a.citations), a.answer


def test_contrast_sides_are_checked_at_load(tutor):
    card = tutor._get_answerer().card
    data = json.loads(resources.files("s2r_tutor").joinpath("data/leads.json").read_text("utf-8"))
    data["compare_contrast"]["pairs"][0]["sides"] = ["domain-randomization", "no-such-section"]
    with pytest.raises(AnswerDataError, match="compare_contrast"):
        Leads(card, json.dumps(data, ensure_ascii=False))


# after blind set 32 (dev): a digital twin asked about on its own is declined (b32-059 was answered with card quotes,
# graded 0); a claim that Sim2Real aims at a perfect digital twin is still the card's to answer
TWIN_OOS = ["數位孿生是怎麼一回事", "can you explain what digital twins are in manufacturing?"]
TWIN_CLAIM = "isn't sim2real basically about building a perfect digital twin of the customer's plant?"


def test_twin_wordings_are_our_own():
    assert not copied({*TWIN_OOS, TWIN_CLAIM})


@pytest.mark.parametrize("question", TWIN_OOS)
def test_a_digital_twin_on_its_own_is_declined(tutor, question):
    assert tutor.ask(question).refused


def test_a_perfect_digital_twin_claim_is_answered(tutor):
    a = tutor.ask(TWIN_CLAIM)
    assert not a.refused and a.act == "verdict", (a.act, a.answer)
    assert a.answer.startswith("**No"), a.answer
