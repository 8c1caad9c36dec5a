"""Which act cue phrases earn their place (issue 14: "prune every rule that does not move your blind sets").

    PYTHONPATH=$PWD/src .venv/bin/python scripts/cue_ablation.py [--cues FILE] [--json OUT] [--combined]

Reads every single-turn question of the spent blind sets (scripts/comp_dev.py SPENT_BLIND) that no labelled
example copies, with the real act reader (neighbours, regression, ask clause, cues, needs, decisive, unless), and
prints, for each pattern of data/act_cues.json (the act cues, `decisive` and `unless`), how many of those questions
it matches and how many more are read right with it removed (positive: the pattern costs acts). A pattern that
matches none is listed as unused. `--combined`: also the accuracy with every costly pattern removed at once.
Embeddings are remembered on disk (scripts/act_dev.py MEMO), so a rerun embeds nothing. Not a test: the figures
a pruning decision is made on, with `scripts/comp_dev.py` (the full answers) and the answer tests after it.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from act_dev import DiskMemo
from comp_dev import ROOT, SPENT_BLIND

KINDS = ("cues", "decisive", "unless")


def unseen_questions(labelled: set[str]) -> list[dict]:
    """Single-turn questions of the spent blind sets no labelled example copies."""
    out = []
    for n in SPENT_BLIND:
        for f in sorted((ROOT / "docs" / f"blind{n}").glob(f"holdout{n}*.jsonl")):
            for line in f.read_text("utf-8").splitlines():
                case = json.loads(line) if line.strip() else None
                if case and not case.get("history") and case["question"].strip() not in labelled:
                    out.append(case)
    return out


def groups(data: dict, kind: str) -> dict[str, list[str]]:
    if kind == "cues":
        return {a: p for a, p in data.items() if not a.startswith("_") and a not in ("needs",) + KINDS[1:]}
    return data.get(kind, {})


def without(data: dict, drop: list[tuple[str, str, str]]) -> dict:
    out = copy.deepcopy(data)
    for kind, act, pattern in drop:
        g = out if kind == "cues" else out[kind]  # (groups() builds a new dict for the cues: edit the file's own)
        g[act] = [p for p in g[act] if p != pattern]
        if not g[act]:
            del g[act]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cues", default="", help="an act_cues.json to measure instead of the shipped one")
    ap.add_argument("--json", default="", help="write every pattern's row here")
    ap.add_argument("--combined", action="store_true", help="also remove every costly pattern at once")
    args = ap.parse_args()

    from s2r_tutor import Tutor
    from s2r_tutor.answer import acts as A
    from s2r_tutor.answer.lexicon import canonical
    from s2r_tutor.retrieval.glossary import expand_query

    tutor = Tutor.load(progress=False)
    memo = DiskMemo(tutor.embedder)
    reader = copy.copy(tutor._get_answerer().acts)
    reader.embed = memo.embed_queries
    data = json.loads(Path(args.cues).read_text("utf-8") if args.cues else A._data_path("act_cues.json").read_text("utf-8"))
    cases = unseen_questions({e.question for e in reader.examples})
    questions = [tutor.clean_query(c["question"]) for c in cases]
    vectors = memo.embed_queries([expand_query(q) for q in questions])
    folded = [canonical(q) for q in questions]

    def reading(d: dict, only: list[int] | None = None) -> list[bool]:
        text = json.dumps(d, ensure_ascii=False)
        r = copy.copy(reader)
        r.cues, r.decisive, r.unless = A.load_cues(text), A.load_decisive(text), A.load_unless(text)
        r.needs = A.load_needs(text)
        idx = range(len(cases)) if only is None else only
        return [r.read(vectors[i], questions[i]).act == cases[i]["act"] for i in idx]

    base = reading(data)
    print(f"{len(cases)} questions, {sum(base)} acts right ({sum(base) / len(cases):.4f})")
    rows = []
    for kind in KINDS:
        for act, patterns in groups(data, kind).items():
            for pattern in patterns:
                hits = [i for i, q in enumerate(folded) if re.search(pattern, q)]
                gain = sum(reading(without(data, [(kind, act, pattern)]), hits)) - sum(base[i] for i in hits) if hits else 0
                rows.append({"kind": kind, "act": act, "pattern": pattern, "matches": len(hits), "gain_if_removed": gain})
                print(f"{kind:8} {act:14} matches {len(hits):4}  removed: {gain:+d}  {pattern[:70]}", flush=True)
    memo.save()
    unused = sum(1 for r in rows if not r["matches"])
    costly = [r for r in rows if r["gain_if_removed"] > 0]
    print(f"{len(rows)} patterns: {unused} match none, {sum(1 for r in rows if r['matches'] and not r['gain_if_removed'])} "
          f"change nothing, {len(costly)} cost acts, {sum(1 for r in rows if r['gain_if_removed'] < 0)} earn acts")
    if args.combined and costly:
        pruned = reading(without(data, [(r["kind"], r["act"], r["pattern"]) for r in costly]))
        print(f"every costly pattern removed: {sum(pruned)} acts right ({sum(pruned) / len(cases):.4f})")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, ensure_ascii=False, indent=1) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
