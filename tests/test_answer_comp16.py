"""Composition fixes of round 16 (docs/answering-history.md, 'Round 16, comp16'): a yes/no verdict follows
the polarity of the reader's own statement (data/claim_statements.jsonl), a ranking of the card's methods
says the card ranks none and what each is for, link lines never stand as content, a follow-up does not open
on the previous answer. Wordings of their own (never a spent blind question), the real card and answerer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from s2r_tutor.answer.card import CardView
from s2r_tutor.answer.leads import Leads
from s2r_tutor.answer.polarity import check_statements, load_statements, rule_truth
from s2r_tutor.errors import AnswerDataError

ROOT = Path(__file__).resolve().parents[1]


def _first(text: str) -> str:
    return next(p for p in text.split("\n\n") if p.strip())


def test_statements_are_not_copied_from_any_dev_or_blind_set():
    """Like acts.jsonl and scenario_stories.jsonl: a labelled statement copied from a graded or dev set would
    make that set measure memory."""
    asked = {json.loads(line)["question"].strip()
             for f in [*ROOT.glob("tests/eval/*.jsonl"), *ROOT.glob("docs/blind*/holdout*.jsonl")]
             for line in f.read_text(encoding="utf-8").splitlines() if line.strip()}
    mine = {s.text for s in load_statements()}
    assert asked and not (mine & asked), sorted(mine & asked)


def test_statements_check_against_claims_and_card(tutor):
    card = CardView(tutor.chunks)
    leads = Leads(card)
    check_statements(load_statements(), leads.claims, card)  # the shipped file is valid
    one_side = '{"claim": "rl-only", "text": "x 只 y", "true": false, "cite": ["rl-vs-sim2real", "服务的不只限于强化学习"]}'
    with pytest.raises(AnswerDataError, match="both polarities"):
        check_statements(load_statements(one_side), leads.claims, card)
    with pytest.raises(AnswerDataError, match="unknown claim"):
        check_statements(load_statements(one_side.replace("rl-only", "no-such-claim")), leads.claims, card)
    bad_cite = one_side.replace("服务的不只限于强化学习", "卡片上没有这句") + "\n" + one_side.replace("false", "true")
    with pytest.raises(AnswerDataError, match="was the card edited"):
        check_statements(load_statements(bad_cite), leads.claims, card)
    with pytest.raises(AnswerDataError, match="'true'"):
        load_statements(one_side.replace("false", '"no"'))


def test_the_polarity_rule_agrees_with_every_labelled_statement_it_reads(tutor):
    """The rule (a claim's cue words, turned round by a negation in the same clause) on the labelled
    statements: every statement it reads as its own claim gets the truth it is labelled with."""
    leads = Leads(CardView(tutor.chunks))
    read = [(s, r) for s in load_statements() if (r := rule_truth(leads, s.text)) is not None and r[0] == s.claim]
    assert len(read) >= 30
    wrong = [s.text for s, (_, truth) in read if truth != s.true]
    assert not wrong, wrong


@pytest.mark.parametrize("question", [
    "仿真通过以后，上真机前还得再验证一遍吧？",
])
def test_a_true_statement_is_not_answered_no(tutor, question):
    a = tutor.ask(question)
    assert not a.refused and not _first(a.answer).startswith(("**不是", "不是", "**No", "No")), a.answer


@pytest.mark.parametrize("question, opening", [
    ("仿真全过了，直接交付客户没问题吧？", "**不是"),
    ("Sim2Real 是不是只能配强化学习用？", "**不是"),
    ("世界模型和sim2real是不是一回事", "**不是"),            # 是不是 holds 不是: the question's form, no negation
    ("我跟客户讲sim2real就是纯算法问题、和硬件无关，这样讲没问题吧", "不是"),  # 无关 after the cue is the claim
    ("Isn't sim2real just a software thing?", "No"),         # a leading "Isn't" asks, it negates nothing
])
def test_a_false_statement_still_gets_its_no(tutor, question, opening):
    a = tutor.ask(question)
    assert _first(a.answer).startswith(opening), a.answer


@pytest.mark.parametrize("question, line, n", [
    ("四种缩小差距的方法里，哪个效果最好？", "卡片没有给这几种方法排优劣", 4),
    ("Which gap-closing method is the most effective one?", "The card does not rank these methods", 4),
    ("真机微调和鲁棒策略哪个更好？", "卡片没有给两者分优劣", 2),
])
def test_a_ranking_ask_says_the_card_ranks_none_then_each_method(tutor, question, line, n):
    a = tutor.ask(question)
    assert not a.refused and a.act == "compare" and _first(a.answer).startswith(line), a.answer
    assert len(a.citations) >= n


def test_not_in_card_answers_never_quote_link_lines(tutor):
    a = tutor.ask("How many days does on-site tuning normally take for a new customer?")
    assert not a.refused and "coming soon" not in a.answer and "→" not in a.answer, a.answer


def test_a_thirty_second_ask_gets_the_lead_alone(tutor):
    long = tutor.ask("Sim2Real 是什么，跟客户怎么讲")
    short = tutor.ask("跟客户讲 Sim2Real，给我一个三十秒的版本")
    assert not short.refused and len(short.answer) < len(long.answer), short.answer


def test_suggestions_never_repeat_the_question(tutor):
    a = tutor.ask("is a world model the same as sim2real")
    assert a.followups and all("world model the same" not in f.lower() for f in a.followups), a.followups


@pytest.mark.parametrize("question", ["Sim2Real 不只是给强化学习用的吧", "Sim2Real 不只是软件问题吧？",
                                      "世界模型跟 Sim2Real 不是一回事吧", "仿真和真机之间总会有点差距吧？"])
def test_a_negated_claim_is_confirmed(tutor, question):
    a = tutor.ask(question)
    assert _first(a.answer).startswith("**是的"), a.answer


@pytest.mark.parametrize("question", ["打个比方，仿真和真机的关系像什么", "give me an analogy for sim2real"])
def test_an_analogy_ask_leads_with_the_cards_own_picture(tutor, question):
    a = tutor.ask(question)
    first = _first(a.answer)
    assert "虚拟世界负责大量练习" in first or "bulk of the practice" in first, a.answer


def test_a_customer_followup_does_not_open_on_the_previous_answer(tutor):
    first = "Sim2Real 为什么不光是软件的事"
    before = tutor.ask(first)
    history = [{"role": "user", "content": first}, {"role": "assistant", "content": before.answer}]
    a = tutor.ask("那我要怎么跟客户那边做软件的负责人解释，别显得我们在推卸给硬件", history)
    assert not a.refused and _first(a.answer) not in before.answer and "不是。" not in a.answer, a.answer
