"""Sum up blind graders' files for one run of a blind set (and compare two runs).

    python scripts/blind_grades.py docs/blind12 after [before]

Reads DIR/holdout*.jsonl (the writer's labels) and DIR/RUN.grades.jsonl, DIR/RUN_en.grades.jsonl (one
{"id", "grade", "why"} per case, 0-3, written by graders who saw neither the code nor the labels).
Prints, per language, the mean grade over in-scope cases (by the writer's out_of_scope label, so two
graders who drew the line differently still count the same cases), the mean over all and the grade
counts; with a second run, the mean by act for both runs and how many answers gained or lost a point.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def grades(folder: Path, run: str) -> dict[str, int]:
    out = {}
    for name in (f"{run}.grades.jsonl", f"{run}_en.grades.jsonl"):
        if (folder / name).exists():
            out |= {g["id"]: int(g["grade"]) for g in read_jsonl(folder / name)}
    return out


def summary(cases: dict[str, dict], g: dict[str, int]) -> None:
    for lang in ("zh", "en"):
        ids = [i for i, c in cases.items() if c["language"] == lang and i in g]
        if not ids:
            continue
        inscope = [g[i] for i in ids if not cases[i]["out_of_scope"]]
        every = [g[i] for i in ids]
        print(f"{lang}: n {len(ids)}, in-scope mean {statistics.mean(inscope):.2f}, all {statistics.mean(every):.2f}, "
              f"counts {{0: {every.count(0)}, 1: {every.count(1)}, 2: {every.count(2)}, 3: {every.count(3)}}}")


def compare(cases: dict[str, dict], after: dict[str, int], before: dict[str, int]) -> None:
    by_act: dict[str, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
    for i, c in cases.items():
        if i in after and i in before and not c["out_of_scope"]:
            by_act[c["act"]][0].append(before[i])
            by_act[c["act"]][1].append(after[i])
    for act, (b, a) in sorted(by_act.items()):
        print(f"  {act:15s} n {len(a):3d}  {statistics.mean(b):.2f} -> {statistics.mean(a):.2f}")
    both = [i for i in after if i in before]
    print(f"gained a point or more: {sum(after[i] > before[i] for i in both)}, "
          f"lost: {sum(after[i] < before[i] for i in both)}")


def main(folder: str, run: str, earlier: str | None = None) -> None:
    root = Path(folder)
    cases = {c["id"]: c for path in sorted(root.glob("holdout*.jsonl")) for c in read_jsonl(path)}
    after = grades(root, run)
    print(f"== {run}")
    summary(cases, after)
    if earlier:
        before = grades(root, earlier)
        print(f"== {earlier}")
        summary(cases, before)
        print(f"== by act, {earlier} -> {run}")
        compare(cases, after, before)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(*sys.argv[1:])
