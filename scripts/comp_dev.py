"""Dev check of the non-story answers (issue 14/17): run the real Tutor on every case of the dev sets
(tests/eval/*.jsonl but the unread holdout4-6, and the spent blind sets docs/blind8-57) and write one row per case (act, intent,
refused, answer), then print act accuracy, out-of-scope refused and answerable refused per set.
Not a test: numbers to compare before and after a change.

    PYTHONPATH=$PWD/src .venv/bin/python scripts/comp_dev.py OUT.jsonl [--only ID,ID] [--sets GLOB]
    PYTHONPATH=$PWD/src .venv/bin/python scripts/comp_dev.py --diff BEFORE.jsonl AFTER.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# holdout4-6 stay out: they are measurement sets nobody may read per question (docs/evaluation.md, "The sets").
UNREAD = {"holdout4", "holdout5", "holdout6"}
SPENT_BLIND = range(8, 58)  # docs/blind8-57: graded once, then dev sets (the next blind set is not added until spent)
SETS = [*sorted(p for p in (ROOT / "tests" / "eval").glob("*.jsonl") if p.stem not in UNREAD),
        *[p for n in SPENT_BLIND for p in sorted((ROOT / "docs" / f"blind{n}").glob(f"holdout{n}*.jsonl"))]]


def cases(only: set[str], sets: str) -> list[dict]:
    out = []
    for f in SETS:
        if sets and sets not in f.stem:
            continue
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                c = json.loads(line)
                if only and c.get("id") not in only:
                    continue
                c["set"] = f.stem
                out.append(c)
    return out


def summary(rows: list[dict]) -> dict[str, dict]:
    by: dict[str, dict] = defaultdict(lambda: defaultdict(int))
    for r in rows:
        s = by[r["set"]]
        s["n"] += 1
        if r["exp_oos"]:
            s["oos"] += 1
            s["oos_refused"] += r["refused"]
        else:
            s["in"] += 1
            s["in_refused"] += r["refused"]
        if r["exp_act"]:
            s["act_n"] += 1
            s["act_ok"] += r["act"] == r["exp_act"]
    return by


def show(rows: list[dict]) -> None:
    tot = defaultdict(int)
    for name, s in summary(rows).items():
        for k, v in s.items():
            tot[k] += v
        print(f"{name:16s} act {s['act_ok']:3d}/{s['act_n']:3d}  oos refused {s['oos_refused']:2d}/{s['oos']:2d}  "
              f"answerable refused {s['in_refused']:2d}/{s['in']:3d}")
    print(f"{'ALL':16s} act {tot['act_ok']:3d}/{tot['act_n']:3d}  oos refused {tot['oos_refused']:2d}/{tot['oos']:2d}  "
          f"answerable refused {tot['in_refused']:2d}/{tot['in']:3d}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?")
    ap.add_argument("--only", default="")
    ap.add_argument("--sets", default="")
    ap.add_argument("--diff", nargs=2)
    args = ap.parse_args()
    if args.diff:
        a = {r["id"]: r for r in map(json.loads, Path(args.diff[0]).read_text().splitlines())}
        b = [json.loads(x) for x in Path(args.diff[1]).read_text().splitlines()]
        print("before"); show(list(a.values())); print("after"); show(b)
        for r in b:
            o = a.get(r["id"])
            if o and (o["act"], o["refused"]) != (r["act"], r["refused"]):
                print(f"{r['id']:12s} exp {r['exp_act']}: {o['act']}{'(R)' if o['refused'] else ''} -> "
                      f"{r['act']}{'(R)' if r['refused'] else ''}  {r['q'][:60]}")
        changed = sum(1 for r in b if r["id"] in a and a[r["id"]]["answer"] != r["answer"])
        print("answers changed:", changed)
        return 0
    from s2r_tutor import Tutor
    from s2r_tutor.models import Turn

    tutor = Tutor.load(progress=False)
    rows = []
    for c in cases(set(filter(None, args.only.split(","))), args.sets):
        history = [Turn(**t) for t in c.get("history") or []]
        a = tutor.ask(c["question"], history=history)
        rows.append({"id": c.get("id") or f"{c['set']}:{len(rows)}", "set": c["set"], "q": c["question"], "hist": bool(history),
                     "exp_act": c.get("act"), "exp_intent": c.get("intent"), "exp_oos": bool(c.get("out_of_scope")),
                     "act": a.act, "intent": a.intent, "refused": a.refused, "answer": a.answer,
                     "lang": c.get("language") or ("en" if c["set"].endswith("_en") else "zh"),
                     "exp_sections": c.get("expected_sections") or [],
                     "first_cited": a.citations[0].chunk_id if a.citations else None})
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    show(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
