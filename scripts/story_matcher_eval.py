"""Accuracy of the customer-story matcher (answer/story_match.StoryMatcher), measured two ways:

1. leave-one-out over the labelled stories (data/rules/scenario_stories.jsonl): each story is matched
   by all the others (its own vector left out) and compared with its label;
2. the story cases of the dev sets (tests/eval, docs/blind8, docs/blind9; spent blind sets): the card
   scenario the matched factors point to against the first `scenario-*` anchor of expected_sections
   ("none" when there is none: the card has no scenario for it, so no scenario must be named).

    PYTHONPATH=$PWD/src /work/main/.venv/bin/python scripts/story_matcher_eval.py [-v]

It uses the shipped (or cached) story vectors and the question vector search computes, exactly as
the answerer does. Prints numbers; not a test.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


ROOT = Path.cwd()  # run from the repository root
SETS = [*sorted((ROOT / "tests" / "eval").glob("*.jsonl")), *sorted((ROOT / "docs" / "blind8").glob("holdout8*.jsonl")),
        *sorted((ROOT / "docs" / "blind9").glob("holdout9*.jsonl"))]


def _pattern(keys: list[str], table) -> str:
    pats = {f.key: f.pattern for f in table.factors}
    return next((pats[k] for k in keys if pats.get(k)), None) or "none"


def _is_story(question: str) -> bool:
    """A symptom told, not a question about the card's list of scenarios (scenarios.is_story; repeated
    here so that the script also measures a checkout from before it existed)."""
    import re

    from s2r_tutor.answer.intents import SYMPTOM
    from s2r_tutor.answer.lexicon import fold

    q = fold(question)
    return bool(SYMPTOM.search(q)) and not re.search(r"场景|scenario", q)


def main() -> int:
    verbose = "-v" in sys.argv
    from s2r_tutor import Tutor
    from s2r_tutor.answer.scenario_table import table
    from s2r_tutor.answer.story_match import StoryMatcher

    tutor = Tutor.load(progress=False)
    answerer = tutor._get_answerer()
    m = answerer.stories
    t = table()
    stories, vecs = m.stories, m.vectors

    # 1. leave-one-out over the labelled stories
    exact = first = pat = 0
    for i, s in enumerate(stories):
        keep = [j for j in range(len(stories)) if j != i]
        loo = StoryMatcher([stories[j] for j in keep], vecs[keep], t)
        got = loo.match(vecs[i], s.text)
        exact += set(got) == set(s.factors)
        first += (got[:1] == list(s.factors[:1])) if s.factors else not got
        pat += _pattern(got, t) == _pattern(list(s.factors), t)
        if verbose and set(got) != set(s.factors):
            print(f"  LOO miss: {s.factors} -> {got}  {s.text[:70]}")
    n = len(stories)
    print(f"labelled stories: {n}; leave-one-out: exact factor set {exact}/{n} = {exact / n:.3f}, "
          f"strongest factor {first}/{n} = {first / n:.3f}, card scenario {pat}/{n} = {pat / n:.3f}")

    # 1b. leave-one-out over the stories labelled with the yes/no they ask (the verdict kind): the vote of
    # the other labelled ones plus the first cue, against the cue words alone (the table's first match)
    import copy

    both = cue_only = nb_only = 0
    vl = [i for i, s in enumerate(stories) if s.verdict is not None]
    no_cue = copy.copy(t)
    object.__setattr__(no_cue, "verdict_cue", 0.0)
    for i in vl:
        s = stories[i]
        keep = [j for j in range(len(stories)) if j != i]
        kept = [stories[j] for j in keep]
        both += StoryMatcher(kept, vecs[keep], t).verdict(vecs[i], s.text) == s.verdict
        cue_only += t.verdict(s.text).key == s.verdict
        nb_only += StoryMatcher(kept, vecs[keep], no_cue).verdict(vecs[i], s.text) == s.verdict
        if verbose and StoryMatcher(kept, vecs[keep], t).verdict(vecs[i], s.text) != s.verdict:
            print(f"  LOO verdict miss: {s.verdict} -> {StoryMatcher(kept, vecs[keep], t).verdict(vecs[i], s.text)}  {s.text[:70]}")
    for vm in (0.5, 0.7, 0.8, 0.9, 0.95):
        tv = copy.copy(t)
        object.__setattr__(tv, "verdict_min", vm)
        ok = sum(StoryMatcher([stories[j] for j in range(len(stories)) if j != i], vecs[[j for j in range(len(stories)) if j != i]], tv)
                 .verdict(vecs[i], stories[i].text) == stories[i].verdict for i in vl)
        print(f"  verdict_min {vm}: neighbours + cue {ok}/{len(vl)}")
    if vl:
        print(f"verdict-labelled stories: {len(vl)}; leave-one-out verdict kind: neighbours + cue {both}/{len(vl)}, "
              f"cue words alone {cue_only}/{len(vl)}, neighbours alone {nb_only}/{len(vl)}")

    # 2. dev-set story cases (a story told, no history)
    rows = []
    for f in SETS:
        for line in f.read_text(encoding="utf-8").splitlines():
            c = json.loads(line) if line.strip() else None
            if not c or c.get("intent") != "scenario" or c.get("history") or c.get("out_of_scope"):
                continue
            if not _is_story(c["question"]):
                continue
            exp = next((s.split("#", 1)[1] for s in c.get("expected_sections") or [] if "#scenario-" in s), "none")
            _, qv = tutor.retriever.rank_with_vector(tutor.clean_query(c["question"]), 3)
            got = m.match(qv, c["question"])
            rows.append((f.stem, c.get("id", "?"), c.get("language", "zh"), exp, _pattern(got, t), got, c["question"]))
    for lang in ("zh", "en", "all"):
        sel = [r for r in rows if lang == "all" or r[2] == lang]
        if sel:
            ok = sum(r[3] == r[4] for r in sel)
            print(f"dev story cases ({lang}): card scenario right {ok}/{len(sel)} = {ok / len(sel):.3f}")
    for name in ("blind", "eval"):
        sel = [r for r in rows if (r[0].startswith("holdout8") or r[0].startswith("holdout9")) == (name == "blind")]
        if sel:
            ok = sum(r[3] == r[4] for r in sel)
            print(f"  {name:5} sets: {ok}/{len(sel)} = {ok / len(sel):.3f}")
    if verbose:
        for r in rows:
            if r[3] != r[4]:
                print(f"  miss {r[1]:10} exp={r[3]:22} got={r[4]:22} {r[5]} {r[6][:60]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
