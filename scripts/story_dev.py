"""Dev check of the customer-story walkthroughs (issue 14): run the real Tutor on the story cases of
the dev sets and report what the matcher chose, the act, the first citation and the length.

    PYTHONPATH=$PWD/src .venv/bin/python scripts/story_dev.py [--show] [--only ID,ID] [--json OUT]

Story cases: every case labelled intent "scenario" (or whose note starts with "story", blind 11, or "field story", blind 12) in tests/eval/*.jsonl (but holdout4-6), docs/blind8/holdout8*.jsonl and
docs/blind9/holdout9*.jsonl, docs/blind10/holdout10*.jsonl, docs/blind11/holdout11*.jsonl, docs/blind12/holdout12*.jsonl, docs/blind13/holdout13*.jsonl, docs/blind14/holdout14*.jsonl, docs/blind15/holdout15*.jsonl, docs/blind16/holdout16*.jsonl, docs/blind17/holdout17*.jsonl, docs/blind18/holdout18*.jsonl, docs/blind19/holdout19*.jsonl, docs/blind20/holdout20*.jsonl, docs/blind21/holdout21*.jsonl, docs/blind22/holdout22*.jsonl, docs/blind23/holdout23*.jsonl, docs/blind24/holdout24*.jsonl, docs/blind25/holdout25*.jsonl, docs/blind26/holdout26*.jsonl, docs/blind27/holdout27*.jsonl, docs/blind28/holdout28*.jsonl, docs/blind29/holdout29*.jsonl, docs/blind30/holdout30*.jsonl (spent blind sets, used as dev sets). The expected card scenario is the
first `scenario-*` anchor of expected_sections ("none" when there is none: a story the card has no
scenario for). Not a test: it prints numbers to compare before and after a change.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

# the same sets as comp_dev (holdout4-6 left out from round 14 on: measurement sets not to be read per question,
# docs/evaluation.md "The sets"; until then this script ran their story cases and printed them with --show)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from comp_dev import SETS  # noqa: E402


def cases() -> list[dict]:
    out = []
    for f in SETS:
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                c = json.loads(line)
                story = c.get("intent") == "scenario" or str(c.get("note") or "").startswith(("story", "field story"))
                if story and not c.get("out_of_scope"):
                    c["set"] = f.stem
                    out.append(c)
    return out


def expected_scenario(c: dict) -> str:
    return next((s.split("#", 1)[1] for s in c.get("expected_sections") or [] if "#scenario-" in s), "none")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--show", action="store_true", help="print every answer")
    ap.add_argument("--only", default="", help="comma-separated case ids")
    ap.add_argument("--json", default="", help="write the rows to this file")
    args = ap.parse_args()
    from s2r_tutor import Tutor
    from s2r_tutor.models import Turn

    tutor = Tutor.load(progress=False)
    answerer = tutor._get_answerer()
    only = set(filter(None, args.only.split(",")))
    rows = []
    for c in cases():
        if only and c.get("id") not in only:
            continue
        history = [Turn(**t) for t in c.get("history") or []]
        a = tutor.ask(c["question"], history=history)
        plan = answerer.plan(tutor.clean_query(c["question"]), history)
        factors = plan.focus.factors or []
        cited = [x.chunk_id.split("#", 1)[1] for x in a.citations]
        got_sc = next((x for x in cited if x.startswith("scenario-")), "none")
        exp = expected_scenario(c)
        shown = len(re.sub(r"\s*\[\d+\]", "", a.answer))
        first = cited[0] if cited else "-"
        exp_secs = [s.split("#", 1)[1] for s in c.get("expected_sections") or []]
        row = dict(id=c.get("id", c["question"][:12]), set=c["set"], lang=c.get("language", "zh"), act_exp=c.get("act"), act=a.act,
                   intent=a.intent, factors=factors, scen_exp=exp, scen_got=got_sc,
                   first=first, first_ok=first in exp_secs, len=shown, refused=a.refused,
                   cjk_in_en=bool(c.get("language") == "en" and re.search(r"[\u3400-\u9fff]", a.answer)),
                   history=bool(history), question=c["question"], answer=a.answer)
        rows.append(row)
        flag = "" if exp == got_sc else "  <-- scenario"
        print(f"{row['id']:10} {row['lang']} act {str(c.get('act')):14} got {a.act:14} {a.intent:15} f={','.join(factors) or '-':22} "
              f"exp={exp:22} got={got_sc:22} first={first:22} len={shown}{flag}")
        if args.show:
            print("   Q:", c["question"])
            print("   " + a.answer.replace("\n", "\n   "))
    n = len(rows)
    if not n:
        return 0
    standalone = [r for r in rows if not r["history"]]
    zh = sorted(r["len"] for r in rows if r["lang"] == "zh")
    en = sorted(r["len"] for r in rows if r["lang"] == "en")
    print(f"\ncases {n} (standalone {len(standalone)})")
    print(f"scenario cited == expected: {sum(r['scen_exp'] == r['scen_got'] for r in rows)}/{n}; "
          f"standalone {sum(r['scen_exp'] == r['scen_got'] for r in standalone)}/{len(standalone)}")
    print(f"act == expected: {sum(r['act_exp'] == r['act'] for r in rows)}/{n}")
    print(f"first citation in expected sections: {sum(r['first_ok'] for r in rows)}/{n}")
    print(f"intent scenario: {sum(r['intent'] == 'scenario' for r in rows)}/{n}; refused {sum(r['refused'] for r in rows)}")
    if zh:
        print(f"zh length median {zh[len(zh) // 2]} max {zh[-1]}")
    if en:
        print(f"en length median {en[len(en) // 2]} max {en[-1]}; en answers with Chinese: {sum(r['cjk_in_en'] for r in rows)}")
    if args.json:
        Path(args.json).write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
