"""`s2r-tutor quiz`: the bank as JSON, an interactive session on piped stdin, progress kept
between runs; flashcards."""

from __future__ import annotations

import io
import json

import pytest

from s2r_tutor.cli import main
from s2r_tutor.study.bank import generate_bank
from s2r_tutor.study.flashcards import build_flashcards
from s2r_tutor.study.progress import StudyStore


@pytest.fixture
def env(monkeypatch, tmp_path, tutor, index_dir):
    """The session's index (already built by `tutor`) and a private study database."""
    db = tmp_path / "study.sqlite3"
    monkeypatch.setenv("S2R_STUDY_DB", str(db))
    return ["--index-dir", str(index_dir)], db


def test_list_json_is_one_document_with_the_whole_bank(env, capsys, tutor):
    flags, _ = env
    assert main([*flags, "quiz", "--list", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["count"] == len(doc["questions"]) == len(generate_bank(tutor.chunks))
    for q in doc["questions"]:
        assert {"kind", "question", "answer", "chunk_id"} <= set(q)
        assert q["question_en"] and q["explanation_en"]  # both wordings
    assert {q["chunk_id"] for q in doc["questions"]} == {c.chunk_id for c in tutor.chunks}
    assert sum(doc["by_kind"].values()) == doc["count"]


def test_list_as_a_table_in_either_language(env, capsys, tutor):
    flags, _ = env
    first = generate_bank(tutor.chunks)[0]
    assert main([*flags, "quiz", "--list"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("共 81 题") and first.question in out
    assert main([*flags, "quiz", "--list", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("81 questions") and first.question_en in out and first.question not in out


def test_usage_errors(env, capsys):
    flags, _ = env
    assert main([*flags, "quiz", "--json"]) == 2
    assert main([*flags, "quiz", "-n", "0"]) == 2
    assert main([*flags, "quiz", "--reader", "a b", "--list"]) == 1
    assert "reader id" in capsys.readouterr().err


def run_quiz(monkeypatch, capsys, flags, stdin: str, n: int = 3, *extra: str) -> str:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    assert main([*flags, "quiz", "--reader", "ann", "-n", str(n), *extra]) == 0
    return capsys.readouterr().out


def test_interactive_quiz_on_piped_stdin_keeps_progress(env, monkeypatch, capsys):
    flags, db = env
    first = run_quiz(monkeypatch, capsys, flags, "我不知道\n\n")  # one wrong, one skipped, then EOF
    assert first.startswith("Sim2Real 测验 · 读者 'ann'：3 题")
    assert "[1/3]" in first and "✗ 不正确" in first and "（已跳过）" in first
    assert "本次答了 1 题：正确 0，部分正确 0，错误 1。" in first
    assert db.exists()
    missed = first.split("[1/3]", 1)[1].splitlines()[0]
    # a new run (a restart): the missed question comes back first
    second = run_quiz(monkeypatch, capsys, flags, "q\n")
    assert second.split("[1/3]", 1)[1].splitlines()[0] == missed
    assert "本次答了 0 题" in second


def test_an_english_session_transcript(env, monkeypatch, capsys, tutor):
    """--lang en: header, prompts, the true/false hint, feedback (for a bare 'A' too) and the
    summary in English; only the card's own text is Chinese. The stored answer stays 对/错."""
    flags, db = env
    bank = generate_bank(tutor.chunks)
    tf = next(q for q in bank if q.kind == "truefalse")
    StudyStore(db).record("ann", tf, "wrong", 0.0, "对", at=1)  # a missed question comes first
    out = run_quiz(monkeypatch, capsys, flags, "F\nA\n\n", 3, "--lang", "en")
    assert out.startswith("Sim2Real quiz for reader 'ann': 3 questions (q to stop; empty line skips)")
    first, second, third = (part.split("\n\n[", 1)[0] for part in out.split("\n[")[1:4])
    assert first.startswith(f"1/3] (truefalse · {tf.chunk_id}) {tf.question_en}\n  answer True / False (T / F)")
    assert "> F\n✓ Correct" in first and tf.question not in out
    assert second.startswith(f"2/3] (recall · 04-08#intro) {bank[0].question_en}")  # then the unseen, in order
    assert "> A\n✗ Not quite" in second and "You missed: “" in second and "Source [04-08#intro]" in second
    assert "(skipped)" in third
    assert "this session: 2 answered — 1 correct, 0 partly correct, 1 wrong. Progress saved to" in out
    for zh_only in ("不正确", "正确答案", "出处", "答到了", "还漏了", "已跳过", "本次", "回答 对 / 错"):
        assert zh_only not in out, zh_only
    assert StudyStore(db).stats("ann")[tf.id].last_verdict == "correct"


def test_lang_must_be_zh_or_en(env, capsys):
    flags, _ = env
    with pytest.raises(SystemExit) as info:
        main([*flags, "quiz", "--lang", "fr", "--list"])
    assert info.value.code == 2 and "invalid choice: 'fr'" in capsys.readouterr().err


def test_interactive_quiz_grades_a_right_answer(env, monkeypatch, capsys, tutor):
    flags, _ = env
    bank = generate_bank(tutor.chunks)
    first = bank[0]  # a fresh reader starts with the first question of the first section
    out = run_quiz(monkeypatch, capsys, flags, "理解机器人为什么可以先在仿真世界里训练，再把学到的能力迁移到真实机器人上\n", n=1)
    assert first.question in out and "✓ 正确" in out and f"[{first.chunk_id}]" in out


def test_corrupt_database_is_one_clear_line(env, monkeypatch, capsys):
    flags, db = env
    db.write_bytes(b"garbage" * 500)
    monkeypatch.setattr("sys.stdin", io.StringIO("A\n"))
    assert main([*flags, "quiz", "-n", "1"]) == 1
    err = capsys.readouterr().err
    assert "corrupt" in err and "Traceback" not in err


def test_flashcards_cover_memory_points_and_glossary_terms(tutor):
    cards = build_flashcards(tutor.chunks)
    text = {c.chunk_id: c.text for c in tutor.chunks}
    memory = [c for c in cards if c.kind == "memory"]
    assert [c.front for c in memory[:4]] == ["Simulation", "Reality Gap", "Adaptation", "Deployment"]
    assert all(c.chunk_id == "04-08#quick-memory" for c in memory)
    terms = {c.front: c for c in cards if c.kind == "term"}
    for zh, en, anchor in [("域随机化", "Domain Randomization", "domain-randomization"),
                           ("系统辨识", "System Identification", "system-identification"),
                           ("真机微调", "Real-world Fine-tuning", "real-world-fine-tuning"),
                           ("鲁棒策略", "Robust Policy", "robust-policy"),
                           ("Sim2Real", "Sim2Real", "summary")]:
        assert terms[zh].back == en and terms[zh].chunk_id == f"04-08#{anchor}"
    assert any(c.back == "Reality Gap" and c.chunk_id == "04-08#reality-gap" for c in terms.values())
    for c in cards:
        assert c.quote in text[c.chunk_id]
