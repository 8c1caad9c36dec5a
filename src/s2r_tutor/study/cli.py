"""`s2r-tutor quiz`: an interactive quiz on stdin/stdout (works with piped input), or the whole
bank with --list [--json]. Thin: the logic lives in `Study`."""

from __future__ import annotations

import json
import re
import sys

from .bank import Question, option_letter
from .progress import clean_reader

EXIT_OK, EXIT_USAGE = 0, 2
QUIT = {"q", "quit", "exit", ":q", "退出"}


def _out(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _plain(markdown: str) -> str:
    """Feedback Markdown for a terminal: no ** markers; quotes stay as '> '."""
    return re.sub(r"\*\*(.+?)\*\*", r"\1", markdown)


def render_question(q: Question, number: int, total: int) -> str:
    lines = [f"[{number}/{total}] ({q.kind} · {q.chunk_id}) {q.question}"]
    if q.kind == "truefalse":
        lines.append("  回答 对 / 错 (true / false)")
    else:
        lines += [f"  {option_letter(i)}. {c}" for i, c in enumerate(q.choices)]
    return "\n".join(lines)


def bank_document(bank: list[Question]) -> dict:
    by_kind: dict[str, int] = {}
    for q in bank:
        by_kind[q.kind] = by_kind.get(q.kind, 0) + 1
    return {"count": len(bank), "by_kind": by_kind, "questions": [q.model_dump() for q in bank]}


def _list(bank: list[Question], as_json: bool) -> int:
    if as_json:
        _out(json.dumps(bank_document(bank), ensure_ascii=False))
        return EXIT_OK
    for q in bank:
        flat = " ".join(q.question.split())
        _out(f"{q.id}  {q.kind:<9}  {q.chunk_id:<36}  {flat[:70]}")
    _out(f"{len(bank)} questions")
    return EXIT_OK


def run_quiz_command(args, make_tutor) -> int:
    from .session import Study

    if args.json and not args.list:
        sys.stderr.write("s2r-tutor: --json goes with --list (the quiz itself is interactive)\n")
        return EXIT_USAGE
    if args.n < 1:
        sys.stderr.write("s2r-tutor: -n must be a positive whole number\n")
        return EXIT_USAGE
    reader = clean_reader(args.reader)
    tutor = make_tutor(args)
    study = Study.from_tutor(tutor)
    if args.list:
        return _list(study.bank, args.json)

    questions = study.next_questions(reader, args.n)
    counts = {"correct": 0, "partial": 0, "wrong": 0}
    _out(f"Sim2Real quiz for reader '{reader}': {len(questions)} questions (q to stop; empty line skips)")
    for number, q in enumerate(questions, 1):
        _out()
        _out(render_question(q, number, len(questions)))
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
            _out("(skipped)")
            continue
        grade = study.answer(reader, q.id, reply)
        counts[grade.verdict] += 1
        _out(_plain(grade.feedback))
    answered = sum(counts.values())
    _out()
    _out(f"this session: {answered} answered — {counts['correct']} correct, {counts['partial']} partly correct, "
         f"{counts['wrong']} wrong. Progress saved to {study.store.path}")
    return EXIT_OK
