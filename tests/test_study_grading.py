"""Grading: correct, partly correct and wrong replies, in Chinese and in English, for every kind;
feedback quotes and cites the passage."""

from __future__ import annotations

import pytest

import re

from s2r_tutor.study.bank import generate_bank
from s2r_tutor.study.grading import Grader, grade

_CJK = re.compile(r"[\u3400-\u9fff]")


def _own_words(feedback: str, q) -> str:
    """Feedback less the card's text it quotes: answer, section, quote and quoted key points."""
    for text in sorted([q.answer, q.section, q.quote, *q.key_points], key=len, reverse=True):
        feedback = feedback.replace(text, " ")
    return re.sub(r"“[^“”]*”", " ", feedback)


@pytest.fixture(scope="module")
def bank(tutor):
    return generate_bank(tutor.chunks)


@pytest.fixture(scope="module")
def grader(tutor, bank):
    return Grader(bank, tutor.embedder)


def pick(bank, template, chunk_id):
    return next(q for q in bank if q.template == template and q.chunk_id == chunk_id)


RECALL = "heading-recall", "04-08#reality-gap"
LIST = "list-recall", "04-08#why-simulation-cost"
SCENARIO = "scenario-tags", "04-08#scenario-factory-floor"
TERM = "example-term", "04-08#system-identification"

# (question, reply, expected verdict): each kind right, partly right and wrong, in zh and in en
CASES = [
    (RECALL, "仿真里摩擦系数不准，电机有响应延迟，传感器有噪声，地面也不平", "correct"),
    (RECALL, "摩擦系数不准确", "partial"),
    (RECALL, "因为机器人电量不够", "wrong"),
    (RECALL, "Friction in simulation is inaccurate, real motors have latency, sensors are noisy and the ground "
             "is uneven", "correct"),
    (RECALL, "the friction is wrong", "partial"),
    (RECALL, "because the battery is low", "wrong"),
    (LIST, "设备磨损、场地、人工、维修", "correct"),
    (LIST, "设备磨损", "partial"),
    (LIST, "摔倒和碰撞", "wrong"),
    (LIST, "equipment wear, space, labor and repairs", "correct"),
    (LIST, "wear and tear", "partial"),
    (LIST, "falls and collisions", "wrong"),
    (SCENARIO, "Reality Gap，地面和摩擦不同，泛化不够", "correct"),
    (SCENARIO, "地面摩擦", "partial"),
    (SCENARIO, "传感器换了", "wrong"),
    (SCENARIO, "reality gap: a different floor and friction, poor generalization", "correct"),
    (SCENARIO, "the floor", "partial"),
    (SCENARIO, "the sensors changed", "wrong"),
    (TERM, "系统辨识", "correct"),
    (TERM, "辨识", "correct"),
    (TERM, "系统辨别", "partial"),
    (TERM, "域随机化", "wrong"),
    (TERM, "System Identification", "correct"),
    (TERM, "calibration", "correct"),
    (TERM, "domain randomization", "wrong"),
]


@pytest.mark.parametrize("which,reply,verdict", CASES)
def test_grading_verdicts(grader, bank, which, reply, verdict):
    g = grader.grade(pick(bank, *which), reply)
    assert g.verdict == verdict, (reply, g.matched)
    assert (g.score == 1.0) == (verdict == "correct")
    assert (g.score == 0.0) == (verdict == "wrong")


def test_scenario_by_option_letter(grader, bank):
    q = pick(bank, "scenario-tags", "04-08#scenario-factory-floor")
    right = "ABCD"[q.choices.index(q.answer)]
    wrong = next(letter for letter in "ABCD" if letter != right)
    assert grader.grade(q, right).verdict == "correct"
    assert grader.grade(q, wrong.lower()).verdict == "wrong"


TERM = [
    ("系统辨识", "correct"),
    ("辨识", "correct"),
    ("系统辨别", "partial"),
    ("域随机化", "wrong"),
    ("System Identification", "correct"),
    ("calibration", "correct"),
    ("domain randomization", "wrong"),
]


@pytest.mark.parametrize("reply,verdict", TERM)
def test_fill_in_the_term(grader, bank, reply, verdict):
    assert grader.grade(pick(bank, "example-term", "04-08#system-identification"), reply).verdict == verdict


def test_choice_by_letter_text_or_any_spelling(grader, bank):
    q = pick(bank, "example-choice", "04-08#system-identification")
    right = "ABCD"[q.choices.index(q.answer)]
    assert grader.grade(q, right).verdict == "correct"
    assert grader.grade(q, f"({right.lower()})").verdict == "correct"
    assert grader.grade(q, "系统辨识").verdict == "correct"
    assert grader.grade(q, "sysid").verdict == "correct"
    assert grader.grade(q, "域随机化").verdict == "wrong"
    assert grader.grade(q, "不知道").verdict == "wrong"


@pytest.mark.parametrize("reply,verdict", [("错", "correct"), ("False", "correct"), ("对", "wrong"),
                                           ("true", "wrong"), ("", "wrong")])
def test_true_false_probe(grader, bank, reply, verdict):
    q = next(q for q in bank if "强化学习就是 Sim2Real" in q.question)
    assert grader.grade(q, reply).verdict == verdict


def test_feedback_quotes_and_cites_the_missed_passage(grader, bank):
    q = pick(bank, "heading-recall", "04-08#reality-gap")
    zh = grader.grade(q, "摩擦系数不准确")
    assert zh.language == "zh" and "还漏了" in zh.feedback and "「传感器会有噪声」" in zh.feedback
    assert "[04-08#reality-gap]" in zh.feedback and f"> {q.quote}" in zh.feedback
    en = grader.grade(q, "the friction is wrong")
    assert en.language == "en" and "You missed" in en.feedback and "[04-08#reality-gap]" in en.feedback
    # a missed point named by the card's own English of it (issue 17), in English quotes
    assert "“sensors are noisy”" in en.feedback and "「" not in en.feedback and "传感器会有噪声" not in en.feedback
    tf = grader.grade(next(q for q in bank if "强化学习就是 Sim2Real" in q.question), "对")
    assert "正确答案：错" in tf.feedback and "强化学习 ≠ Sim2Real" in tf.feedback


def test_grade_function_without_embedder_uses_terms_only(bank):
    q = pick(bank, "list-recall", "04-08#why-simulation-cost")
    assert grade(q, "设备磨损、场地、人工").verdict == "correct"
    assert grade(q, "人工").verdict == "partial"


def test_odd_replies_are_graded_not_crashed(grader, bank):
    q = pick(bank, *RECALL)
    assert grader.grade(q, None).verdict == "wrong"
    assert grader.grade(q, "\x00\u200b  \n").verdict == "wrong"
    long = grader.grade(q, "无关的话。" * 2000)  # truncated to MAX_REPLY_CHARS, still graded
    assert long.verdict == "wrong" and long.quote == q.quote


def test_an_english_session_gets_english_feedback_for_a_bare_letter(grader, bank):
    """'A' has no words to detect a language from: the reply's language would be Chinese, the
    session's (English) wins when given."""
    q = pick(bank, "example-choice", "04-08#system-identification")
    wrong = next(letter for i, letter in enumerate("ABCD") if q.choices[i] != q.answer)
    zh = grader.grade(q, wrong)
    assert zh.language == "zh" and "✗ 不正确" in zh.feedback and "正确答案：" in zh.feedback
    en = grader.grade(q, wrong, language="en")
    assert en.verdict == "wrong" and en.language == "en"
    # an option is named in English by its English half (the card's own gloss, issue 17)
    assert "✗ Not quite" in en.feedback and "Expected answer: System Identification\n" in en.feedback
    assert "Source [04-08#system-identification]" in en.feedback
    assert not _CJK.search(_own_words(en.feedback, q))  # only the card's text is Chinese
    right = "ABCD"[q.choices.index(q.answer)]
    assert "✓ Correct" in grader.grade(q, right, language="en").feedback
    assert "✓ 正确" in grader.grade(q, "System Identification", language="zh").feedback  # zh session, en reply
    with pytest.raises(ValueError, match="unknown language"):
        grader.grade(q, "A", language="de")


@pytest.mark.parametrize("reply,verdict", [("True", "wrong"), ("false", "correct"), ("T", "wrong"), ("F", "correct"),
                                           ("B", "correct"), ("错", "correct")])
def test_true_false_in_english(grader, bank, reply, verdict):
    """An English session shows True / False (A / B); the stored answer stays 错, the feedback
    names it False and quotes the card."""
    q = next(q for q in bank if "强化学习就是 Sim2Real" in q.question)
    assert q.answer == "错" and q.options("en") == ["True", "False"]
    g = grader.grade(q, reply, language="en")
    assert g.verdict == verdict
    if verdict == "wrong":
        assert "Expected answer: False" in g.feedback and f"> {q.quote}" in g.feedback
    assert not _CJK.search(_own_words(g.feedback, q))


def test_english_feedback_quotes_the_english_explanation(grader, tutor):
    """Where the explanation says more than the quote (here: which section), English feedback
    gives its English wording."""
    from s2r_tutor.study.bank import _Card, _source

    chunk = next(c for c in tutor.chunks if c.chunk_id == "04-08#summary")
    q = _source(_Card(tutor.chunks), chunk)[0]
    g = grader.grade(q, "Z", language="en")
    assert f"From the section “{chunk.section}”." in g.feedback and "出自" not in g.feedback
    assert "出自「" in grader.grade(q, "Z").feedback
