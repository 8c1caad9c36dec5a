"""The bookkeeping of a blind set around `blind_run.py` and `blind_grades.py` (docs/evaluation.md, "Blind sets").

    python scripts/blind_pairs.py check CASES.jsonl N     # the writer's format check (prints OK, or each problem)
    python scripts/blind_pairs.py split WORK               # WORK/run/{before,after}{,_en}.grade.jsonl -> WORK/grade/
    python scripts/blind_pairs.py combine WORK DOCS        # the graders' files -> DOCS/{before,after}{,_en}.grades.jsonl

`check`: ids bN-NNN (zh) / bNen-NNN (en), the case fields, known intents and acts, expected sections that are anchors of
the card, key points copied verbatim from the card of the case's language, out-of-scope cases without sections.
`split`: per group (zh1 = Chinese 1-30, zh2 = Chinese 31-60, en) the two runs become A_<group>.jsonl and
B_<group>.jsonl, the run behind each letter drawn at random per group and kept in grade/key.json, which graders never
open. `combine`: each grader's A_/B_<group>.grades.jsonl back to the run it graded, checked to hold every case once.
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIELDS = {"id", "language", "question", "history", "expected_sections", "intent", "act", "key_points", "out_of_scope",
          "note"}
GROUPS = {"zh1": ("", slice(0, 30)), "zh2": ("", slice(30, None)), "en": ("_en", slice(None))}


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def check(cases: list[dict], n: int) -> list[str]:
    """Every problem of a blind set's cases (empty: the set is well formed)."""
    from s2r_tutor.answer.acts import ACTS
    from s2r_tutor.models import Intent

    cards = {lang: (ROOT / "corpus" / f"04-08-sim2real{suffix}.md").read_text(encoding="utf-8")
             for lang, suffix in (("zh", ""), ("en", ".en"))}
    anchors = set(re.findall(r"\{#([a-z0-9-]+)\}", cards["zh"]))
    intents, acts = {i.value for i in Intent}, set(ACTS)
    problems = []
    for c in cases:
        cid, lang = c.get("id", "?"), c.get("language")
        if set(c) != FIELDS:
            problems.append(f"{cid}: fields {sorted(set(c) ^ FIELDS)} missing or extra")
            continue
        if lang not in cards or not re.fullmatch(rf"b{n}{'en' if lang == 'en' else ''}-\d{{3}}", cid):
            problems.append(f"{cid}: id must be b{n}-NNN (zh) or b{n}en-NNN (en)")
        if c["intent"] not in intents or c["act"] not in acts:
            problems.append(f"{cid}: unknown intent {c['intent']!r} or act {c['act']!r}")
        if not str(c["question"]).strip():
            problems.append(f"{cid}: empty question")
        if any(set(t) != {"role", "content"} or t["role"] not in ("user", "assistant") for t in c["history"]):
            problems.append(f"{cid}: a history turn needs role user/assistant and content")
        if c["out_of_scope"]:
            if c["expected_sections"] or c["intent"] != "out_of_scope" or c["act"] != "out_of_scope":
                problems.append(f"{cid}: out of scope takes no sections, intent and act out_of_scope")
            continue
        if not c["expected_sections"] or not c["key_points"]:
            problems.append(f"{cid}: in scope needs expected_sections and key_points")
        problems += [f"{cid}: unknown section {s}" for s in c["expected_sections"]
                     if not s.startswith("04-08#") or s.partition("#")[2] not in anchors]
        if lang in cards:
            problems += [f"{cid}: key point not verbatim in the {lang} card: {k}" for k in c["key_points"]
                         if _squash(k) not in _squash(cards[lang])]
    dup = [i for i, k in Counter(c.get("id") for c in cases).items() if k > 1]
    return problems + ([f"duplicate ids {dup}"] if dup else [])


def split(work: Path, rng: random.Random) -> dict[str, dict[str, str]]:
    """The graders' A/B files under work/grade; returns (and keeps in grade/key.json) which run each letter is."""
    (work / "grade").mkdir(exist_ok=True)
    key = {}
    for group, (suffix, part) in GROUPS.items():
        first = rng.choice(["before", "after"])
        key[group] = {"A": first, "B": "after" if first == "before" else "before"}
        for letter, run in key[group].items():
            write_jsonl(work / "grade" / f"{letter}_{group}.jsonl", read_jsonl(work / "run" / f"{run}{suffix}.grade.jsonl")[part])
    (work / "grade" / "key.json").write_text(json.dumps(key), encoding="utf-8")
    return key


def combine(work: Path, docs: Path) -> dict[str, dict[str, str]]:
    """The graders' grades back to their runs: docs/{before,after}{,_en}.grades.jsonl, one {id, grade, why} per case."""
    key = json.loads((work / "grade" / "key.json").read_text(encoding="utf-8"))
    out: dict[str, list[dict]] = {}
    for group, letters in key.items():
        suffix = GROUPS[group][0]
        for letter, run in letters.items():
            graded = read_jsonl(work / "grade" / f"{letter}_{group}.grades.jsonl")
            asked = [r["id"] for r in read_jsonl(work / "grade" / f"{letter}_{group}.jsonl")]
            if sorted(g["id"] for g in graded) != sorted(asked):
                raise SystemExit(f"{letter}_{group}.grades.jsonl does not grade each case of {letter}_{group}.jsonl once")
            out.setdefault(run + suffix, []).extend({"id": g["id"], "grade": int(g["grade"]), "why": g["why"]} for g in graded)
    for name, rows in out.items():
        write_jsonl(docs / f"{name}.grades.jsonl", sorted(rows, key=lambda r: r["id"]))
    return key


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "check":
        cases = read_jsonl(Path(argv[1]))
        problems = check(cases, int(argv[2]))
        print("\n".join(problems) or f"OK: {len(cases)} cases, {Counter(c.get('language') for c in cases)}, "
                                      f"acts {Counter(c.get('act') for c in cases)}")
        return 1 if problems else 0
    if len(argv) == 2 and argv[0] == "split":
        split(Path(argv[1]), random.Random())
        print("split: grade/A_* and grade/B_* written; which run is which is in grade/key.json (not for graders)")
        return 0
    if len(argv) == 3 and argv[0] == "combine":
        print(json.dumps(combine(Path(argv[1]), Path(argv[2]))))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
