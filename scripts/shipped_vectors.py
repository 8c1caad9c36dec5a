"""Rebuild the shipped vectors of the labelled data after rows were added or changed (run from the repository root):

    PYTHONPATH=src .venv/bin/python scripts/shipped_vectors.py [BASE]     # BASE: the git revision to reuse, HEAD by default

Writes src/s2r_tutor/data/acts.vectors.*, acts_clauses.vectors.* and rules/scenario_stories.vectors.* for the working
tree's acts.jsonl and scenario_stories.jsonl, and acts.model.* (the act regression fitted on acts.vectors with the default
settings, answer/act_model.py). A text the BASE files already embedded keeps its vector; only new or
changed texts are embedded here. Embedding every row again on another machine moves each vector by float noise (up
to 0.003 on round 51's machine) and flips near-tie neighbour votes that no row change caused. The key of each file
is the one `answer/vectors.py` computes, so a fresh install loads them without embedding anything.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from s2r_tutor import Tutor
from s2r_tutor.answer.acts import (
    act_model,
    clause_texts,
    example_texts,
    load_examples,
)
from s2r_tutor.answer.story_match import load_stories, story_texts
from s2r_tutor.answer.vectors import vectors_key

DATA = Path("src/s2r_tutor/data")


def _at(base: str, path: Path) -> bytes:
    return subprocess.run(["git", "show", f"{base}:{path.as_posix()}"], capture_output=True, check=True).stdout


def rebuild(stem: str, old_texts: list[str], texts: list[str], base: str, embed: Callable[[list[str]], np.ndarray],
            embedder_id: str) -> int:
    """Write DATA/<stem>.{npy,json} for `texts`, reusing BASE's vector of every text it had; returns how many were
    embedded."""
    old = np.load(io.BytesIO(_at(base, DATA / f"{stem}.npy")), allow_pickle=False)
    known = dict(zip(old_texts, old)) if old.shape[0] == len(old_texts) else {}  # a stale BASE file reuses nothing
    fresh = [t for t in dict.fromkeys(texts) if t not in known]
    if fresh:
        known.update(zip(fresh, np.asarray(embed(fresh), dtype=np.float32)))
    np.save(DATA / f"{stem}.npy", np.stack([known[t] for t in texts]).astype(np.float32), allow_pickle=False)
    (DATA / f"{stem}.json").write_text(json.dumps({"key": vectors_key(embedder_id, texts), "embedder": embedder_id}),
                                       encoding="utf-8")
    return len(fresh)


def main(base: str = "HEAD") -> int:
    tutor = Tutor.load(progress=False)
    embed, eid = tutor.embedder.embed_queries, tutor.embedder.id
    old_ex = load_examples(_at(base, DATA / "acts.jsonl").decode("utf-8"))
    new_ex = load_examples((DATA / "acts.jsonl").read_text("utf-8"))
    for stem, texts in (("acts.vectors", example_texts), ("acts_clauses.vectors", clause_texts)):
        n = rebuild(stem, texts(old_ex), texts(new_ex), base, embed, eid)
        print(f"{stem}: {len(new_ex)} texts, {n} embedded")
    vecs = np.load(DATA / "acts.vectors.npy")
    with tempfile.TemporaryDirectory() as tmp:  # fitted into a scratch cache, then shipped (an up-to-date file stays)
        act_model(new_ex, vecs, tutor.settings.answer, Path(tmp))
        for ext in (".npz", ".json"):
            if (Path(tmp) / f"acts.model{ext}").exists():
                shutil.copyfile(Path(tmp) / f"acts.model{ext}", DATA / f"acts.model{ext}")
        print("acts.model: fitted on the examples' vectors")
    stories = Path("rules/scenario_stories")
    old_st = load_stories(_at(base, DATA / f"{stories}.jsonl").decode("utf-8"))
    new_st = load_stories((DATA / f"{stories}.jsonl").read_text("utf-8"))
    n = rebuild(f"{stories}.vectors", story_texts(old_st), story_texts(new_st), base, embed, eid)
    print(f"{stories}.vectors: {len(new_st)} texts, {n} embedded")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:2]))
