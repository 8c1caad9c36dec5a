"""`s2r-tutor quiz`: an interactive quiz on stdin/stdout (works with piped input), or the whole
bank with --list [--json]. Thin: the logic lives in `Study`. `--lang zh|en` picks the language of
the prompts, hints, feedback and the session's header and summary (card text stays Chinese)."""

from __future__ import annotations

import json
import re
import sys

from .bank import Question, option_labels
from .progress import clean_reader

EXIT_OK, EXIT_USAGE = 0, 2
QUIT = {"q", "quit", "exit", ":q", "退出"}

# the session's own lines, per language (the questions carry their wording themselves)
TEXT = {
    "zh": {"truefalse": "  回答 对 / 错 (true / false)",
           "header": "Sim2Real 测验 · 读者 '{reader}'：{n} 题（q 结束，空行跳过）",
           "skipped": "（已跳过）",
           "summary": "本次答了 {answered} 题：正确 {correct}，部分正确 {partial}，错误 {wrong}。进度已保存到 {path}",
           "count": "共 {n} 题"},
    "en": {"truefalse": "  answer True / False (T / F)",
           "header": "Sim2Real quiz for reader '{reader}': {n} questions (q to stop; empty line skips)",
           "skipped": "(skipped)",
           "summary": "this session: {answered} answered — {correct} correct, {partial} partly correct, {wrong} wrong. "
                      "Progress saved to {path}",
           "count": "{n} questions"},
}


def _out(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _plain(markdown: str) -> str:
    """Feedback Markdown for a terminal: no ** markers; quotes stay as '> '."""
    return re.sub(r"\*\*(.+?)\*\*", r"\1", markdown)


def render_question(q: Question, number: int, total: int, lang: str = "zh") -> str:
    lines = [f"[{number}/{total}] ({q.kind} · {q.chunk_id}) {q.prompt(lang)}"]
    if q.kind == "truefalse":
        lines.append(TEXT[lang]["truefalse"])
    else:
        lines += [f"  {label}" for label in option_labels(q, lang)]
    return "\n".join(lines)


def bank_document(bank: list[Question]) -> dict:
    by_kind: dict[str, int] = {}
    for q in bank:
        by_kind[q.kind] = by_kind.get(q.kind, 0) + 1
    return {"count": len(bank), "by_kind": by_kind, "questions": [q.model_dump() for q in bank]}


def _list(bank: list[Question], as_json: bool, lang: str) -> int:
    if as_json:  # both wordings: question / explanation and question_en / explanation_en
        _out(json.dumps(bank_document(bank), ensure_ascii=False))
        return EXIT_OK
    for q in bank:
        flat = " ".join(q.prompt(lang).split())
        _out(f"{q.id}  {q.kind:<9}  {q.chunk_id:<36}  {flat[:70]}")
    _out(TEXT[lang]["count"].format(n=len(bank)))
    return EXIT_OK


def run_quiz_command(args, make_tutor) -> int:
    from .session import Study, feedback_language

    if args.json and not args.list:
        sys.stderr.write("s2r-tutor: --json goes with --list (the quiz itself is interactive)\n")
        return EXIT_USAGE
    if args.n < 1:
        sys.stderr.write("s2r-tutor: -n must be a positive whole number\n")
        return EXIT_USAGE
    reader = clean_reader(args.reader)
    lang = args.lang
    text = TEXT[lang]
    tutor = make_tutor(args)
    study = Study.from_tutor(tutor)
    if args.list:
        return _list(study.bank, args.json, lang)

    questions = study.next_questions(reader, args.n)
    counts = {"correct": 0, "partial": 0, "wrong": 0}
    _out(text["header"].format(reader=reader, n=len(questions)))
    for number, q in enumerate(questions, 1):
        _out()
        _out(render_question(q, number, len(questions), lang))
        sys.stdout.write("> ")
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:  # end of input (piped stdin ran out)
            _out()
            break
        reply = line.strip()
        if not sys.stdin.isatty():
            _out(reply)  # echo piped input so the transcript reads like a session
        if reply.lower() in QUIT:
            break
        if not reply:
            _out(text["skipped"])
            continue
        grade = study.answer(reader, q.id, reply, feedback_language(lang))
        counts[grade.verdict] += 1
        _out(_plain(grade.feedback))
    _out()
    _out(text["summary"].format(answered=sum(counts.values()), path=study.store.path, **counts))
    return EXIT_OK
