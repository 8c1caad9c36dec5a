"""Round 21 (issue 14): a methods question that states a situation the card ties to methods ("no real data",
"make the simulation match the robot", "conditions keep changing", "data at hand") is answered by those
methods, after a line saying why, not by the list of all four; the situation is read from its own cue words
or, told in other words, from labelled examples (acts.jsonl 'condition'). A symptom after a change of
another subject (a phone's SIM card) is declined. Wordings of our own: none is in data/acts.jsonl, the
labelled stories or a docs/blind* set (checked below)."""

from __future__ import annotations


import pytest

from blind_support import copied
from s2r_tutor.answer.acts import load_examples
from s2r_tutor.answer.leads import _conditions
from s2r_tutor.errors import AnswerDataError

METHODS = {"domain-randomization", "system-identification", "real-world-fine-tuning", "robust-policy"}

# (question, the methods that answer it, the line that must open the answer)
FITS = [
    ("客户那边一条真机数据都采不到，我们该靠哪种方法缩小差距？", {"domain-randomization", "robust-policy"},
     "拿不到真实数据时"),
    ("If the customer won't let us record anything on their robots, which of the methods should we use?",
     {"domain-randomization", "robust-policy"}, "Without real data"),
    ("想把仿真里的质量、摩擦参数校准得跟客户那台机器一致，用什么方法", {"system-identification"}, "让仿真参数接近真实本体"),
    # situations told with words of variety or guesswork (round 21, after blind 20 b20-019, b20-020)
    ("每个项目的场地都千差万别，训练时该优先用哪种方法", {"robust-policy", "domain-randomization"}, "条件经常变化时"),
    ("Site conditions are unpredictable from one customer to the next. Which of the four methods comes first?",
     {"robust-policy", "domain-randomization"}, "When conditions keep changing"),
    ("机械臂的质量参数都是估出来的，从来没标定过，该用什么方法", {"system-identification"}, "让仿真参数接近真实本体"),
    # no cue word of the table: the labelled examples read the situation
    ("The customer handed over months of telemetry from their fleet. What's the right technique to use it?",
     {"system-identification", "real-world-fine-tuning"}, "With real data at hand"),
]
# a symptom after a change, of another subject: declined, while a robot's is still answered
OTHER_SUBJECT = ["my SIM card shows no service ever since I put it in my new phone, what should I do"]
# in scope by a card word, about a subject no reader of the card asks about (answer/subject.py)
UNKNOWN_SUBJECT = [pytest.param("which earplugs hold up best on a noisy factory floor?", marks=pytest.mark.xfail(
                       strict=True, reason="one unknown word (earplug) needs an out-of-scope vote of 0.5; this one's is 0.26")),
                   "how do I undo a helm upgrade that took our cluster down after deployment",
                   "用 QLoRA 微调一个大语言模型要多大显存"]
# unknown words of a reader's own, on the card's subject: still answered
KNOWN_SUBJECT = ["Our CFO wants sim2real in plain words before he signs off. What do I say?",
                 "We replaced the depth camera with a cheaper one and accuracy cratered on site. What do we check first?"]
ROBOT_STORY = "after the customer swapped in a different camera the robot keeps missing the bin, what should I check?"


def test_these_wordings_are_our_own():
    unknown = {q if isinstance(q, str) else q.values[0] for q in UNKNOWN_SUBJECT}
    mine = {q for q, _, _ in FITS} | set(OTHER_SUBJECT) | {ROBOT_STORY} | unknown | set(KNOWN_SUBJECT)
    assert not copied(mine)


def method_sections(answer) -> set[str]:
    return {c.chunk_id.split("#", 1)[-1].split(":")[0].removeprefix("related-") for c in answer.citations} & METHODS


@pytest.mark.parametrize("question,methods,opening", FITS)
def test_a_stated_situation_is_answered_by_the_methods_the_card_ties_to_it(tutor, question, methods, opening):
    a = tutor.ask(question)
    assert not a.refused, a.answer
    assert a.answer.startswith(opening), a.answer
    assert method_sections(a) == methods, (a.answer, [c.chunk_id for c in a.citations])


def test_without_a_situation_every_method_is_still_listed(tutor):
    a = tutor.ask("缩小仿真和现实差距的方法都有哪些？")
    assert method_sections(a) == METHODS, a.answer


def test_every_situation_has_an_id_and_labels_name_only_known_ones(tutor):
    conditions = tutor._get_answerer().leads.conditions
    assert {c.id for c in conditions} >= {"no-data", "match-sim", "changing", "have-data"}
    labelled = {e.condition for e in load_examples() if e.condition}
    assert labelled <= {c.id for c in conditions}
    raw = [{"cue": "x", "fits": ["robust-policy"], "verdict": {"zh": "{fit}", "en": "{fit}"}}]
    with pytest.raises(AnswerDataError, match="needs 'id'"):
        _conditions(raw)


@pytest.mark.parametrize("question", OTHER_SUBJECT)
def test_a_symptom_after_a_change_of_another_subject_is_declined(tutor, question):
    a = tutor.ask(question)
    assert a.refused, a.answer


def test_a_robot_symptom_after_a_change_is_still_answered(tutor):
    a = tutor.ask(ROBOT_STORY)
    assert not a.refused and a.citations, a.answer


@pytest.mark.parametrize("question", UNKNOWN_SUBJECT)
def test_a_card_word_in_a_question_about_an_unknown_subject_is_declined(tutor, question):
    a = tutor.ask(question)
    assert a.refused, a.answer


@pytest.mark.parametrize("question", KNOWN_SUBJECT)
def test_words_of_the_readers_own_on_the_cards_subject_are_answered(tutor, question):
    a = tutor.ask(question)
    assert not a.refused and a.citations, a.answer


def test_known_words_come_from_the_card_and_the_labelled_in_scope_questions(tutor):
    known = tutor._get_answerer().known
    assert {"domain", "randomization", "域随机化", "customer"} <= known.known  # card (both renderings), examples
    assert known.unknown("which headphones for the factory floor") == ["headphone"]  # singular: plurals are known words
