"""Run a blind set through the real Tutor once, and write what its graders and the figures need.

    python scripts/blind_run.py CASES.jsonl OUT_PREFIX       # e.g. docs/blind12/holdout12.jsonl run/after

Writes OUT_PREFIX.metrics.json (intent, act, first citation by script, refusals, lengths, the English
answers' Chinese share, ask latency), OUT_PREFIX.full.json (every answer with its expectations) and
OUT_PREFIX.grade.jsonl (question, history, answer and sources only: what a blind grader reads, without
labels). How a blind set is written, run once and graded: docs/evaluation.md, "Blind sets".
Run with OMP_NUM_THREADS=1 for latency figures comparable with earlier runs.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
from pathlib import Path

from s2r_tutor import Tutor
from s2r_tutor.models import Turn

CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
PART = re.compile(r"-\d+$")
MARKER = re.compile(r"\[\d+\]")


def zh_share(text: str) -> float:
    """Chinese letters among all letters, citation markers aside (issue 17's ≤ 0.25 for English)."""
    letters = [c for c in MARKER.sub("", text) if c.isalpha()]
    return sum(1 for c in letters if CJK.match(c)) / len(letters) if letters else 0.0


def section(chunk_id: str) -> str:
    """'04-08#reality-gap-2' -> '04-08#reality-gap' (a split part counts as its section)."""
    doc, _, anchor = chunk_id.partition("#")
    return f"{doc}#{PART.sub('', anchor)}" if anchor else chunk_id


def on(first: str | None, expected: list[str]) -> bool:
    """A container heading stands for its subsections."""
    return bool(first) and any(first == e or first.startswith(e + "-") for e in expected)


def run(cases: list[dict], tutor: Tutor) -> tuple[list[dict], list[float]]:
    rows, latency = [], []
    for c in cases:
        started = time.perf_counter()
        a = tutor.ask(c["question"], [Turn(**t) for t in c.get("history", [])])
        latency.append((time.perf_counter() - started) * 1000)
        first = section(a.citations[0].chunk_id) if a.citations else None
        exp = c.get("expected_sections") or []
        scored = bool(exp) and not c.get("out_of_scope")
        rows.append({"id": c["id"], "question": c["question"], "history": c.get("history", []),
                     "language": c["language"], "answer": a.answer, "refused": a.refused, "intent": a.intent,
                     "act": a.act, "followups": a.followups,
                     "sources": [{"marker": x.marker, "section": x.section, "quote": x.quote, "quote_en": x.quote_en}
                                 for x in a.citations],
                     "_exp": {"sections": exp, "intent": c["intent"], "act": c.get("act"),
                              "oos": c.get("out_of_scope"), "first_cited": first,
                              "first_ok": on(first, exp[:1]) if scored else None,
                              "first_any": on(first, exp) if scored else None,
                              "len": len(MARKER.sub("", a.answer)), "zh_share": zh_share(a.answer)}})
    return rows, latency


def metrics(rows: list[dict], latency: list[float]) -> dict:
    inscope = [r for r in rows if not r["_exp"]["oos"]]
    oos = [r for r in rows if r["_exp"]["oos"]]
    scored = [r for r in inscope if r["_exp"]["sections"]]
    lens = [r["_exp"]["len"] for r in rows if not r["refused"]]
    en = [r for r in rows if r["language"] == "en" and not r["refused"]]
    return {
        "cases": len(rows), "in_scope": len(inscope), "out_of_scope": len(oos),
        "oos_refused": sum(r["refused"] for r in oos) / max(1, len(oos)),
        "inscope_refused": sum(r["refused"] for r in inscope),
        "intent_acc": sum(r["intent"] == r["_exp"]["intent"] for r in rows) / len(rows),
        "act_acc": sum(r["act"] == r["_exp"]["act"] for r in rows) / len(rows),
        # an out-of-scope case is labelled out_of_scope or not_in_card at the writer's choice; both ask for a
        # decline, so a refused one counts whichever it was labelled (reported beside the strict figure)
        "act_acc_declines_alike": sum(r["act"] == r["_exp"]["act"] or (r["_exp"]["oos"] and r["refused"])
                                      for r in rows) / len(rows),
        "first_cite_on_primary": sum(bool(r["_exp"]["first_ok"]) for r in scored) / max(1, len(scored)),
        "first_cite_on_any_expected": sum(bool(r["_exp"]["first_any"]) for r in scored) / max(1, len(scored)),
        "len_median": statistics.median(lens) if lens else None, "len_max": max(lens, default=None),
        "len_over_900": sum(n > 900 for n in lens),
        "en_answers": len(en),
        "en_zh_share_mean": statistics.mean(r["_exp"]["zh_share"] for r in en) if en else None,
        "en_zh_share_max": max((r["_exp"]["zh_share"] for r in en), default=None),
        "en_over_025": sum(r["_exp"]["zh_share"] > 0.25 for r in en),
        "ask_ms_p50": statistics.median(latency),
        "ask_ms_p95": statistics.quantiles(latency, n=20)[18] if len(latency) > 1 else latency[0],
    }


def main(cases_path: str, out: str) -> None:
    cases = [json.loads(line) for line in Path(cases_path).read_text(encoding="utf-8").splitlines() if line.strip()]
    rows, latency = run(cases, Tutor.load(progress=False))
    m = metrics(rows, latency)
    Path(out + ".metrics.json").write_text(json.dumps(m, indent=1, ensure_ascii=False), encoding="utf-8")
    Path(out + ".full.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")
    keep = ("id", "question", "history", "language", "answer", "sources", "followups")
    Path(out + ".grade.jsonl").write_text("".join(json.dumps({k: r[k] for k in keep}, ensure_ascii=False) + "\n"
                                                  for r in rows), encoding="utf-8")
    print(json.dumps(m, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
