"""Act and intent dev check, fast (issue 14, item 1): plan every dev case with the real Answerer (retrieval,
act reader, scope, not_in_card) but compose nothing, and print act and intent accuracy per set and the
act confusions. Embeddings are remembered on disk (MEMO), so a rerun after a change to data/acts.jsonl or
data/act_cues.json embeds only the new examples. Not a test: numbers to compare before and after a change;
scripts/comp_dev.py (the full answers) stays the figure of record.

    PYTHONPATH=$PWD/src .venv/bin/python scripts/act_dev.py [--examples FILE] [--drop-src SRC,SRC] [--k N]
        [--cue-weight W] [--temperature T] [--clause-weight W] [--sets GLOB] [--confusion] [--out ROWS.jsonl]

`--drop-src written16`: rebuild the reader without the examples of those `src` values (a leave-out figure:
the sets looked at while writing them against those not looked at).
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from comp_dev import cases  # noqa: E402  (the same dev sets, holdout4-6 left out)

# beside the index (ignored by git), not /tmp: helpers must write only inside their worktree
MEMO = Path(__file__).resolve().parents[1] / "index" / "act_dev_memo.pkl"


class DiskMemo:
    """The real embedder, remembering its query vectors across runs (in MEMO)."""

    def __init__(self, inner):
        self.inner, self.id, self.dim = inner, inner.id, inner.dim
        try:
            self.seen = pickle.loads(MEMO.read_bytes()) if MEMO.exists() else {}
        except Exception:
            self.seen = {}
        self.seen = self.seen if isinstance(self.seen, dict) else {}
        self.dirty = False

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def embed_queries(self, texts):
        todo = [t for t in dict.fromkeys(texts) if (self.id, t) not in self.seen]
        if todo:
            for t, v in zip(todo, self.inner.embed_queries(todo)):
                self.seen[self.id, t] = np.asarray(v, dtype=np.float32)
            self.dirty = True
        return np.array([self.seen[self.id, t] for t in texts], dtype=np.float32).reshape(len(texts), self.dim)

    def embed_passages(self, texts):
        return self.inner.embed_passages(texts)

    def save(self):
        if self.dirty:
            MEMO.write_bytes(pickle.dumps(self.seen))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples", default="")
    ap.add_argument("--cues", default="")
    ap.add_argument("--drop-src", default="")
    ap.add_argument("--k", type=int)
    ap.add_argument("--cue-weight", type=float)
    ap.add_argument("--temperature", type=float)
    ap.add_argument("--clause-weight", type=float)
    ap.add_argument("--clause-margin", type=float)
    ap.add_argument("--sets", default="")
    ap.add_argument("--confusion", action="store_true")
    ap.add_argument("--out", default="")
    args = ap.parse_args()

    from s2r_tutor import Tutor
    from s2r_tutor.answer.acts import ActReader, ask_clause, load_cues, load_examples, load_needs, load_unless
    from s2r_tutor.answer.finalize import to_simplified
    from s2r_tutor.models import Turn
    from s2r_tutor.retrieval.glossary import expand_query

    tutor = Tutor.load(progress=False)
    memo = DiskMemo(tutor.embedder)
    tutor.embedder = tutor.retriever.embedder = memo
    ans = tutor._get_answerer()
    a = ans.settings.answer
    for name, val in (("knn_k", args.k), ("cue_weight", args.cue_weight), ("knn_temperature", args.temperature),
                      ("ask_clause_weight", args.clause_weight), ("ask_clause_margin", args.clause_margin)):
        if val is not None:
            object.__setattr__(a, name, val)
    shipped = load_examples()  # seed the memo with the shipped vectors of the shipped examples
    if ans.acts.vectors.shape[0] == len(shipped):
        for e, v in zip(shipped, ans.acts.vectors):
            memo.seen.setdefault((memo.id, expand_query(e.question)), np.asarray(v, dtype=np.float32))
    text = Path(args.examples).read_text("utf-8") if args.examples else None
    examples = load_examples(text)
    if args.drop_src:
        drop = set(args.drop_src.split(","))
        raw = (text if text is not None else
               (Path(__file__).resolve().parents[1] / "src/s2r_tutor/data/acts.jsonl").read_text("utf-8"))
        srcs = [json.loads(x).get("src") for x in raw.splitlines() if x.strip() and not x.startswith("#")]
        examples = [e for e, s in zip(examples, srcs) if s not in drop]
    vecs = memo.embed_queries([expand_query(e.question) for e in examples])
    clauses = memo.embed_queries([expand_query(ask_clause(e.question) or e.question) for e in examples])
    cue_text = Path(args.cues).read_text("utf-8") if args.cues else None
    ans.acts = ActReader(examples, vecs, load_cues(cue_text), a, clauses=clauses, embed=memo.embed_queries,
                         needs=load_needs(cue_text), unless=load_unless(cue_text))

    rows = []
    for c in cases(set(), args.sets):
        history = [Turn(**t) for t in c.get("history") or []]
        p = ans.plan(to_simplified(c["question"]), history)  # as Answerer.draft does first
        act = p.act if p.in_scope else ("not_in_card" if p.missing is not None else "out_of_scope")
        rows.append({"id": c.get("id"), "set": c["set"], "q": c["question"], "hist": bool(history),
                     "exp_act": c.get("act"), "act": act, "exp_intent": c.get("intent"),
                     "intent": p.intent.value, "lang": c.get("language"), "oos": bool(c.get("out_of_scope")),
                     "reason": p.reason, "in_scope": p.in_scope,
                     "oos_vote": round(p.reading.votes.get("out_of_scope", 0.0), 3) if p.reading else None,
                     "best": round(p.reading.best_cosine, 3) if p.reading else None})
    memo.save()
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    by = defaultdict(Counter)
    for r in rows:
        s = by[r["set"]]
        if r["exp_act"]:
            s["an"] += 1
            s["aok"] += r["act"] == r["exp_act"]
        if r["exp_intent"]:
            s["in"] += 1
            s["iok"] += r["intent"] == r["exp_intent"]
    tot = Counter()
    for name, s in by.items():
        tot.update(s)
        print(f"{name:16s} act {s['aok']:3d}/{s['an']:3d} {s['aok'] / max(1, s['an']):.3f}   "
              f"intent {s['iok']:3d}/{s['in']:3d} {s['iok'] / max(1, s['in']):.3f}")
    print(f"{'ALL':16s} act {tot['aok']:3d}/{tot['an']:3d} {tot['aok'] / max(1, tot['an']):.3f}   "
          f"intent {tot['iok']:3d}/{tot['in']:3d} {tot['iok'] / max(1, tot['in']):.3f}")
    if args.confusion:
        conf = Counter((r["exp_act"], r["act"]) for r in rows if r["exp_act"] and r["act"] != r["exp_act"])
        print("act confusions (expected -> read):")
        for (e, g), n in conf.most_common(30):
            print(f"  {n:3d}  {e} -> {g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
