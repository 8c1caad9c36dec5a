"""Round 63: an example asked of a method whose only example on the card is one line restating it (system
identification, real-world fine-tuning, a robust policy: leads.json `example_thin`) says first that the card gives
no worked case of it, then that line; domain randomization's example names what is varied and is given as it is."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from s2r_tutor.answer.card import CardView
from s2r_tutor.answer.leads import Leads
from s2r_tutor.errors import AnswerDataError


@pytest.mark.parametrize("question, line", [
    ("系统辨识能不能举个例子，我想不出具体怎么做", "卡片没有给系统辨识的具体案例"),
    ("真机微调有没有实际一点的例子", "卡片没有给真机微调的具体案例"),
    ("give me an example of real-world fine-tuning, something concrete", "The card gives no worked case of real-world fine-tuning"),
])
def test_an_example_of_a_thin_part_says_the_card_has_no_worked_case(tutor, question, line):
    a = tutor.ask(question)
    assert a.act == "example" and a.answer.startswith(line), a.answer
    assert "示例" in a.citations[0].quote or "Example" in (a.citations[0].quote_en or ""), a.citations[0]


def test_domain_randomizations_example_is_given_as_it_is(tutor):
    a = tutor.ask("域随机化能举个例子吗，到底改哪些参数")
    assert a.act == "example" and "具体案例" not in a.answer and "摩擦" in a.answer, a.answer


def test_the_parts_are_card_sections_checked_at_load(tutor):
    data = json.loads(resources.files("s2r_tutor").joinpath("data/leads.json").read_text("utf-8"))
    data["example_thin"]["parts"]["no-such-section"] = {"zh": "某方法", "en": "a method"}
    with pytest.raises(AnswerDataError, match="example_thin"):
        Leads(CardView(tutor.chunks), text=json.dumps(data, ensure_ascii=False))
    data["example_thin"]["zh"] = "卡片没有具体案例"  # no {name}
    with pytest.raises(AnswerDataError, match="example_thin"):
        Leads(CardView(tutor.chunks), text=json.dumps(data, ensure_ascii=False))
