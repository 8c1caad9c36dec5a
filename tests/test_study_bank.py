"""The question bank: templates over card structure, on the real card and on a made-up one."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from pathlib import Path

import pytest

from s2r_tutor.retrieval.chunking import chunk_corpus
from s2r_tutor.retrieval.corpus import load_corpus
from s2r_tutor.study import structure as S
from s2r_tutor.study.bank import FALSE, KINDS, TRUE, generate_bank
from s2r_tutor.text import normalize


@pytest.fixture(scope="module")
def bank(tutor):
    return generate_bank(tutor.chunks)


def test_every_section_of_the_card_yields_a_question(tutor, bank):
    covered = {q.chunk_id for q in bank}
    missing = [c.chunk_id for c in tutor.chunks if c.chunk_id not in covered]
    assert not missing


def test_every_kind_is_generated(bank):
    kinds = Counter(q.kind for q in bank)
    assert set(kinds) == set(KINDS)
    assert kinds["scenario"] == 4  # the card's four customer scenarios


def test_quotes_are_spans_of_the_cited_chunk_and_ids_are_unique(tutor, bank):
    text = {c.chunk_id: c.text for c in tutor.chunks}
    for q in bank:
        assert q.quote in text[q.chunk_id], q
        assert q.section
    assert len({q.id for q in bank}) == len(bank)


def test_ids_are_stable_across_generations(tutor, bank):
    assert [q.id for q in generate_bank(tutor.chunks)] == [q.id for q in bank]


# Computed on the 04-08 card before the questions got English wording: progress in SQLite is keyed
# on these ids, so the English wording must not change them (they hash the Chinese text only).
IDS_SHA1 = "1a39f194f347768b2712388d0ea3f4836e5011eb"  # sha1 of the 81 sorted ids, one a line
PINNED_IDS = {
    ("heading-recall", "04-08#intro"): "2630a297635b",
    ("example-choice", "04-08#system-identification"): "342bb86a4a8c",
    ("neq-false", "04-08#rl-vs-sim2real"): "d466cbeeefef",
    ("scenario-tags", "04-08#scenario-factory-floor"): "5bcae297d3e6",
    ("label-term", "04-08#quick-memory"): "79fe9c7633f2",
}


def test_ids_are_the_same_as_before_the_english_wording(bank):
    ids = sorted(q.id for q in bank)
    assert hashlib.sha1("\n".join(ids).encode()).hexdigest() == IDS_SHA1
    first = {}
    for q in bank:
        first.setdefault((q.template, q.chunk_id), q.id)
    assert {k: first[k] for k in PINNED_IDS} == PINNED_IDS


_CJK = re.compile(r"[\u3400-\u9fff]")
_QUOTED = re.compile(r"“[^“”]*”|「[^「」]*」")


def own_words(text: str, headings: list[str]) -> str:
    """What English wording says in its own words: quoted card text (innermost quotes first, so a
    card sentence with quotes of its own goes whole) and card headings taken out."""
    prev = None
    while prev != text:
        prev, text = text, _QUOTED.sub(" ", text)
    for h in sorted(headings, key=len, reverse=True):
        text = text.replace(h, " ")
    return text


def assert_english(questions, chunks) -> None:
    headings = [S.heading(c) for c in chunks] + [c.section for c in chunks]
    for q in questions:
        for text in (q.question_en, q.explanation_en):
            rest = own_words(text, headings)
            assert not _CJK.search(rest), (q.template, text, rest)
            assert re.search(r"[A-Za-z]{3,}", rest), (q.template, text)  # English words, not only quotes


def test_english_quiz_questions_quote_the_aligned_english(bank):
    """Questions that quote a card sentence quote its English; options show their English too."""
    scenario = next(q for q in bank if q.kind == "scenario")
    assert "The robot walks fine in the lab" in scenario.prompt("en")
    assert not _CJK.search(scenario.prompt("en"))
    quoted = [q for q in bank if "“" in q.question_en]
    english = [q for q in quoted if not _CJK.search(q.question_en)]
    assert len(english) / len(quoted) >= 0.6  # the rest blank or rewrite Chinese (cloze, not-but probes)


def test_every_question_has_english_wording_around_the_cards_own_text(tutor, bank):
    assert all(q.question_en and q.explanation_en for q in bank)
    assert_english(bank, tutor.chunks)
    # card text is quoted in the card's aligned English rendering (issue 17), never translated on the
    # fly; English names where card or glossary give them
    by = {(q.template, q.chunk_id): q for q in reversed(bank)}
    sysid = by["example-choice", "04-08#system-identification"]
    assert sysid.question_en == ("Which of these is “use real robot data to bring the simulation parameters as close "
                                 "as possible to the real robot body” an example of?")
    assert "The card's example for System Identification is" in sysid.explanation_en
    assert by["neq-false", "04-08#rl-vs-sim2real"].question_en == (
        "True or false: Reinforcement Learning is the same thing as Sim2Real.")
    assert "“A · Cost”?" in by["list-recall", "04-08#why-simulation-cost"].question_en
    assert by["not-but-true", "04-08#why-hard"].explanation_en.startswith(
        "True. The card says: “The goal of Sim2Real is not")
    factory = by["scenario-tags", "04-08#scenario-factory-floor"]
    assert factory.question_en.startswith("Customer says: “The robot walks fine in the lab")


def test_true_false_reads_true_false_in_english_and_stores_dui_cuo(bank):
    q = next(q for q in bank if q.template == "neq-false")
    assert q.answer == FALSE and q.choices == [TRUE, FALSE]
    assert q.options("en") == ["True", "False"] and q.options("zh") == [TRUE, FALSE]
    assert q.prompt("en") == q.question_en and q.prompt() == q.question
    with pytest.raises(ValueError, match="unknown language"):
        q.prompt("fr")


def test_options_contain_the_answer_once(bank):
    for q in bank:
        if q.choices:
            assert [normalize(c) for c in q.choices].count(normalize(q.answer)) == 1, q


def test_issue_examples_are_in_the_bank(bank):
    sysid = [q for q in bank if q.kind == "choice" and "用真实机器人数据，让仿真参数尽量接近真实本体" in q.question]
    assert sysid and sysid[0].answer.startswith("系统辨识")
    assert sysid[0].chunk_id == "04-08#system-identification"
    rl = [q for q in bank if q.kind == "truefalse" and "强化学习就是 Sim2Real" in q.question]
    assert rl and rl[0].answer == FALSE and "≠" in rl[0].quote
    factory = [q for q in bank if q.kind == "scenario" and "到客户工厂就容易摔" in q.question]
    assert factory and {"Reality Gap", "地面", "摩擦"} <= set(factory[0].key_points)


def test_distractors_come_from_other_sections_never_from_the_own_one(tutor, bank):
    """A 'which is listed' distractor is an item of another section and absent from this one."""
    section_text = {}
    for c in tutor.chunks:
        section_text[c.section] = section_text.get(c.section, "") + c.text
    all_text = normalize("".join(c.text for c in tutor.chunks))
    for q in bank:
        if q.template == "list-choice":
            for opt in q.choices:
                assert normalize(opt) in all_text  # nothing invented
                if opt != q.answer:
                    assert normalize(opt) not in normalize(section_text[q.section]), (q.question, opt)


def test_false_statements_are_not_claims_of_the_card(tutor, bank):
    """A statement labelled false never appears in the card as written; true ones are backed by
    the quoted sentence."""
    all_text = normalize("".join(c.text for c in tutor.chunks))
    probes = [q for q in bank if q.kind == "truefalse"]
    assert {q.answer for q in probes} == {TRUE, FALSE}
    for q in probes:
        statement = q.question.split("：", 1)[1]
        if q.answer == FALSE:
            assert normalize(statement) not in all_text, statement
        assert q.quote


def test_example_swaps_are_attributions_to_the_wrong_section(bank):
    swaps = [q for q in bank if q.template == "example-swap"]
    assert len(swaps) == 4
    for q in swaps:
        assert q.answer == FALSE and q.quote not in q.question


MADE_UP_CARD = """---
id: "99-01"
title: 什么是 PID 控制？
language: zh
---

# 什么是 PID 控制？ {#intro}

PID 控制用误差的比例、积分和微分来计算控制量。

## 三个部分 {#parts}

### 01 · 比例 Proportional {#p}

示例：“误差越大，输出越大”

### 02 · 积分 Integral {#i}

示例：“累积过去的误差，消除稳态偏差”

### 03 · 微分 Derivative {#d}

示例：“根据误差变化的快慢提前刹车”

## 调参要点 {#tuning}

- 先调比例
- 再加积分
- 最后加微分

调参的目标不是让响应最快，而是让系统稳定且没有明显超调。

## PID 和 MPC 是什么关系？ {#pid-vs-mpc}

**PID**

- 只看当前误差
- 结构简单

**MPC**

- 预测未来状态
- 计算量更大

## PID 只需要调一个参数吗？ {#one-gain}

不是。

三个增益需要一起权衡。

## PID 常用吗？ {#common}

不仅常用，而且是很多控制器的默认选择。

## 背景 {#background}

这一方法最早用于船舶的自动操舵。

## 客户场景：机械臂抖动 {#scenario-shake}

客户：“机械臂停下来时一直抖。”

→ 微分 / 噪声 / 增益过高
"""


def test_a_new_card_gets_questions_without_code_changes(tmp_path: Path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "99-01-pid.md").write_text(MADE_UP_CARD, encoding="utf-8")
    chunks = chunk_corpus(load_corpus(corpus))
    new_bank = generate_bank(chunks)
    assert {c.chunk_id for c in chunks} == {q.chunk_id for q in new_bank}
    kinds = Counter(q.kind for q in new_bank)
    assert {"term", "choice", "truefalse", "scenario", "recall"} <= set(kinds)
    by_tpl = {q.template: q for q in new_bank}
    assert by_tpl["example-choice"].answer in {"比例 Proportional", "积分 Integral", "微分 Derivative"}
    assert by_tpl["scenario-tags"].key_points == ["微分", "噪声", "增益过高"]
    assert by_tpl["scenario-tags"].choices == []  # the only scenario: free text, not a one-option choice
    assert by_tpl["bold-side"].choices == ["PID", "MPC"]
    assert any(q.template == "not-but-false" and "调参的目标是让响应最快" in q.question for q in new_bank)
    # a section no other template fits still gets a question: "which section says this?"
    background = [q for q in new_bank if q.chunk_id == "99-01#background"]
    assert [q.template for q in background] == ["source-section"] and background[0].answer == "背景"
    yes_no = [q for q in new_bank if q.template == "yes-no-heading"]
    assert [(q.question, q.answer) for q in yes_no] == [("判断对错：PID 只需要调一个参数。", FALSE)]  # not '不仅…'
    assert all(q.quote in next(c.text for c in chunks if c.chunk_id == q.chunk_id) for q in new_bank)
    assert_english(new_bank, chunks)  # every template words a new card's questions in English too
    assert by_tpl["example-choice"].explanation_en.startswith("The card's example for ")


def test_the_bank_does_not_need_the_team_glossary(tutor, monkeypatch):
    """Before (or without) s2r_tutor.retrieval.glossary the card's own bilingual headings still give terms."""
    from s2r_tutor.study import terms

    monkeypatch.setattr(terms, "team_glossary", lambda: [])
    terms.glossary_terms.cache_clear()
    try:
        fallback = generate_bank(tutor.chunks)
    finally:
        terms.glossary_terms.cache_clear()
    assert {q.chunk_id for q in fallback} == {c.chunk_id for c in tutor.chunks}
    q = next(q for q in fallback if q.template == "example-term" and q.chunk_id == "04-08#system-identification")
    assert {"系统辨识", "System Identification"} <= set(q.accept)


def test_a_fill_in_question_shows_one_blank_per_answer(bank):
    """'＿＿＿（＿＿＿）' (a term and its other name both blanked) asked for one answer but showed two
    blanks (#15): one blank now, one answer."""
    from s2r_tutor.study.bank import BLANK

    cloze = [q for q in bank if q.template == "cloze"]
    assert cloze
    for q in cloze:
        assert q.question.count(BLANK) == 1, q.question
