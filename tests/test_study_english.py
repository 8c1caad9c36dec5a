"""Study mode in English (issue 17): every quiz item is worded from the card's aligned English, a
blank is a word of the English sentence, and the answer is graded in either language."""

from __future__ import annotations

import re

import pytest

from s2r_tutor.study.bank import BLANK, generate_bank, option_labels
from s2r_tutor.study.flashcards import build_flashcards
from s2r_tutor.study.grading import Grader

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LETTER = re.compile(r"[A-Za-z]")
MAX_SHARE = 0.25  # issue 17's bound on the Chinese share of English prose


def chinese_share(text: str) -> float:
    """Chinese characters among the letters (digits aside) of a text."""
    zh, latin = len(_CJK.findall(text)), len(_LETTER.findall(text))
    return zh / (zh + latin) if zh + latin else 0.0


@pytest.fixture(scope="module")
def bank(tutor):
    return generate_bank(tutor.chunks)


@pytest.fixture(scope="module")
def grader(bank):
    return Grader(bank)  # no embedder: the answers below must match by spelling alone


def test_every_quiz_item_reads_english_in_english(bank):
    assert len(bank) >= 80
    shares = {q.id: chinese_share(" ".join([q.prompt("en"), *q.options("en")])) for q in bank}
    over = {q.template: round(shares[q.id], 2) for q in bank if shares[q.id] > MAX_SHARE}
    assert not over
    # none of them quotes Chinese at all today (the card's four glossed terms included)
    assert sum(bool(_CJK.search(" ".join([q.prompt("en"), *q.options("en")]))) for q in bank) == 0
    # the explanations English feedback shows are the card's English as well
    assert not [q.template for q in bank if _CJK.search(q.explain("en"))]
    # an option is the English of exactly the option's text ('04-04 What is a robot body? Done', no link arrow)
    assert not [o for q in bank for o in q.options("en") if o.endswith("→")]


def test_every_quiz_item_has_a_valid_answer_in_english(bank, grader):
    for q in bank:
        assert q.answer, q.id
        shown = q.shown(q.answer, "en")
        if q.kind != "recall":  # a recall answer is graded by key points, never shown as one answer
            assert shown and chinese_share(shown) <= MAX_SHARE, (q.template, shown)
        if q.kind in ("choice", "scenario", "truefalse"):
            assert q.answer in q.choices, q.id
            letter = option_labels(q, "en")[q.choices.index(q.answer)].split(". ", 1)[0]
            assert grader.grade(q, letter, "en").verdict == "correct", q.id
            assert grader.grade(q, shown, "en").verdict == "correct", (q.template, shown)
        elif q.kind == "term":
            assert grader.grade(q, shown, "en").verdict == "correct", (q.template, shown)
            assert grader.grade(q, q.answer, "en").verdict == "correct", (q.template, q.answer)  # Chinese too
        else:  # recall: graded by key points
            assert q.key_points, q.id


def test_a_cloze_blanks_a_word_of_the_card_english_sentence(bank):
    clozes = [q for q in bank if q.template == "cloze"]
    assert len(clozes) >= 8
    for q in clozes:
        assert q.answer_en and q.answer_en in q.quote_en, q.id  # the blank is a word the card's English uses
        assert q.prompt("en").count(BLANK) == 1 and q.answer_en not in q.prompt("en")
        assert q.prompt("en").replace(BLANK, q.answer_en).lower() != q.prompt("en").lower()
        assert q.prompt("zh") == q.question and BLANK in q.question  # Chinese wording unchanged
    deploy = next(q for q in clozes if q.chunk_id == "04-08#plain-language")
    assert deploy.answer == "部署" and deploy.answer_en == "deploy"
    assert "then ＿＿＿ the policy to the real robot" in deploy.prompt("en")


def test_not_but_statements_come_from_the_card_english(bank):
    probes = {q.template: q for q in bank if q.chunk_id == "04-08#why-hard" and q.template.startswith("not-but")}
    assert probes["not-but-false"].prompt("en").endswith("“The goal of Sim2Real is to make simulation a perfect "
                                                           "copy of reality.”")
    assert probes["not-but-false"].answer == "错" and probes["not-but-true"].answer == "对"


def test_english_options_are_english_and_picked_by_their_text(bank, grader):
    q = next(q for q in bank if q.template == "example-choice" and q.chunk_id == "04-08#system-identification")
    assert "System Identification" in q.options("en") and "系统辨识 System Identification" in q.options("zh")
    assert grader.grade(q, "System Identification", "en").verdict == "correct"
    sc = next(q for q in bank if q.template == "scenario-tags" and q.chunk_id == "04-08#scenario-sensors")
    assert sc.shown(sc.answer, "en") == "sensor differences / noise / system adaptation"
    assert grader.grade(sc, "sensor differences / noise / system adaptation", "en").verdict == "correct"


def test_english_feedback_quotes_the_english_with_the_chinese_original(bank, grader):
    q = next(q for q in bank if q.template == "cloze" and q.chunk_id == "04-08#plain-language")
    g = grader.grade(q, "simulate", "en")
    assert g.verdict != "correct" and "Expected answer: deploy" in g.feedback
    assert f"> {q.quote_en}" in g.feedback and f"> {q.quote}" in g.feedback
    assert "Source [04-08#plain-language] What is Sim2Real? > In plain words" in g.feedback
    assert "> " + q.quote in grader.grade(q, "部署").feedback and q.quote_en not in grader.grade(q, "部署").feedback


def test_english_feedback_names_key_points_in_english(bank, grader):
    """'You covered / You missed' name each key point by the card's English of it (a clause by the
    English clause when both sentences split alike); grading still reads the Chinese key points."""
    for q in bank:
        if q.kind in ("recall", "scenario"):
            assert len(q.key_points_en) == len(q.key_points) and all(q.key_points_en), q.id
            assert all(chinese_share(q.point(k, "en")) <= MAX_SHARE for k in q.key_points), q.id
            assert [q.point(k, "zh") for k in q.key_points] == q.key_points
    sc = next(q for q in bank if q.template == "scenario-tags" and q.chunk_id == "04-08#scenario-sensors")
    g = grader.grade(sc, "noise", "en")
    assert g.verdict == "partial" and "You covered: “noise”" in g.feedback
    assert "You missed: “sensor differences”, “system adaptation”" in g.feedback


def test_flashcards_read_english_in_english(tutor):
    cards = build_flashcards(tutor.chunks)
    for f in cards:
        # a term card is a zh ↔ en glossary entry: English in front, the Chinese name behind it
        text = " ".join([f.shown("front", "en"), *([f.shown("back", "en")] if f.kind == "memory" else []),
                         f.shown("section", "en"), f.shown("quote", "en")])
        assert chinese_share(text) <= MAX_SHARE, (f.kind, text)
        assert f.shown("front", "zh") == f.front and f.shown("quote", "zh") == f.quote  # Chinese stays the default


def test_notes_export_and_starters_in_english_keep_the_readers_text(tmp_path, tutor):
    from s2r_tutor.study.notes import export_markdown, note_starters, save_note, starters_in
    from s2r_tutor.study.progress import StudyStore

    store = StudyStore(tmp_path / "study.sqlite3")
    save_note(store, "ann", "04-08#reality-gap", "摩擦要测 — check friction first", tutor.chunks)
    en = export_markdown(store, "ann", tutor.chunks, language="en")
    assert en.startswith("# My notes · ann\n") and "_Exported " in en and ", 1 notes_" in en
    assert "## What is Sim2Real? > Why does a robot walk in simulation, yet the real robot may not?" in en
    assert "- 摩擦要测 — check friction first" in en  # the reader's own words, untouched
    assert chinese_share(en.replace("摩擦要测", "")) == 0
    zh = export_markdown(store, "ann", tutor.chunks)
    assert zh.startswith("# 我的笔记 · ann") and "还没有" not in zh  # Chinese stays the default
    assert export_markdown(store, "nobody", tutor.chunks, language="en").rstrip().endswith("(no notes yet)")
    starters = note_starters(tutor.chunks)
    assert starters_in(starters, tutor.chunks, "zh") == starters
    assert starters_in(starters, tutor.chunks, "en") == ["Which point differs from what you already thought?",
                                                        "Can it be applied to your work?",
                                                        "Is it worth researching further?"]


def test_notes_tab_labels_exist_in_both_languages():
    from s2r_tutor.study.ui import TEXT

    assert set(TEXT["zh"]) == set(TEXT["en"])
    notes = {k: v for k, v in TEXT["en"].items() if k.startswith("notes_")}
    assert len(notes) >= 8 and all(chinese_share(v) == 0 for v in notes.values())
