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
