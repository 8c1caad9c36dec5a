"""Hybrid retrieval: dense (FAISS) and sparse (BM25) rankings fused into one list of hits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .dense import search_dense
from ..embedders import Embedder
from .glossary import expand_query
from .index import LoadedIndex
from ..models import Hit
from ..settings import Settings
from ..text import detect_language


@dataclass
class Ranked:
    """One fused candidate with the signals the answerer's refusal check reads."""

    idx: int
    score: float
    dense: float | None
    sparse: float | None


def rrf(rankings: list[list[int]], k: int, weights: list[float] | None = None) -> dict[int, float]:
    fused: dict[int, float] = {}
    for ranking, w in zip(rankings, weights or [1.0] * len(rankings)):
        for rank, idx in enumerate(ranking):
            fused[idx] = fused.get(idx, 0.0) + w / (k + rank + 1)
    return fused


def best_view_per_chunk(rows: list[tuple[int, float]], owners: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Dense hits come per view (section, heading, sentence); a chunk scores as its best view."""
    best: dict[int, float] = {}
    for row, score in rows:
        c = int(owners[row])
        if c not in best:  # rows arrive best first
            best[c] = score
    return list(best.items())[:k]


def weighted(dense: list[tuple[int, float]], sparse: list[tuple[int, float]], w: float) -> dict[int, float]:
    """Min-max normalise each list, then mix: dense * w + sparse * (1 - w)."""
    fused: dict[int, float] = {}
    for pairs, weight in ((dense, w), (sparse, 1 - w)):
        if not pairs:
            continue
        vals = np.array([s for _, s in pairs])
        lo, hi = float(vals.min()), float(vals.max())
        for i, s in pairs:
            norm = (s - lo) / (hi - lo) if hi > lo else 1.0
            fused[i] = fused.get(i, 0.0) + weight * norm
    return fused


#: query -> {section id ('04-08#methods'): bonus added to its fused score}; how the question is phrased says which
#: kind of section answers it, which neither similarity signal sees.
SectionPrior = Callable[[str], dict[str, float]]


class Retriever:
    def __init__(self, index: LoadedIndex, embedder: Embedder, settings: Settings,
                 prior: SectionPrior | None = None):
        self.index = index
        self.embedder = embedder
        self.settings = settings
        self.prior = prior

    def rank(self, query: str, k: int, mode: str = "hybrid") -> list[Ranked]:
        """mode: 'hybrid' (default), 'dense' or 'sparse' (the latter two for benchmarks and diagnosis)."""
        return self.rank_with_vector(query, k, mode)[0]

    def rank_with_vector(self, query: str, k: int, mode: str = "hybrid") -> tuple[list[Ranked], np.ndarray | None]:
        """`rank`, plus the query's embedding (of `expand_query(query)`; None in sparse mode), so the
        answerer can read the question's act from it without a second embedding call."""
        n = self.settings.candidates
        qv = None
        dense = sparse = []
        # The expanded query names the card's own terms: BM25 only sees the Chinese card, and the small
        # multilingual model matches them far better than English or colloquial phrasing (dense-only,
        # dev set: hit@1 0.868 -> 0.887). Both retrievers read the same expansion.
        expanded = expand_query(query)
        asked: list[tuple[int, float]] = []  # chunks ranked by their best reader-question view
        if mode in ("hybrid", "dense"):
            qv = self.embedder.embed_queries([expanded])[0]
            views_per_chunk = max(1, len(self.index.owners) // max(1, len(self.index.chunks)))
            rows = search_dense(self.index.dense, qv, max(n, k) * views_per_chunk * 2)
            is_q = self.index.question_rows
            # The English rendering's views answer English questions; a Chinese one (any Chinese
            # character in it) searches the card's own text exactly as before.
            skip = self.index.english_rows if detect_language(query) == "zh" else np.zeros_like(is_q)
            dense = best_view_per_chunk([r for r in rows if not is_q[r[0]] and not skip[r[0]]], self.index.owners,
                                        max(n, k))
            asked = best_view_per_chunk([r for r in rows if is_q[r[0]]], self.index.owners, max(n, k))
        if mode in ("hybrid", "sparse"):
            sparse = self.index.sparse.search(expanded, max(n, k))
        if mode == "dense":
            # one dense ranking: a chunk's best view of either kind (question-question cosines run
            # higher than question-text ones, so fusion below keeps the two apart instead)
            best = dict(asked)
            for i, s in dense:
                best[i] = max(s, best.get(i, s))
            fused = best
        elif mode == "sparse":
            fused = {i: s for i, s in sparse}
        elif self.settings.fusion == "weighted":
            fused = weighted(dense, sparse, self.settings.dense_weight)
        else:
            # The dense vote is shared between the card-text ranking and the reader-question ranking
            # when the corpus has questions; without them the text ranking carries all of it.
            w = self.settings.rrf_dense_weight
            share = self.settings.rrf_question_share if asked else 0.0
            text_ids = [i for i, _ in dense]
            fused = rrf([text_ids, [i for i, _ in asked], [i for i, _ in sparse]], self.settings.rrf_k,
                        [w * (1 - share), w * share, 1.0])
            # A chunk with no reader questions (a card without a questions file) would lose the question
            # share to chunks that have them; its text rank stands in, so every chunk keeps the full vote.
            for rank, i in enumerate(text_ids):
                if not self.index.chunks[i].questions:
                    fused[i] += w * share / (self.settings.rrf_k + rank + 1)
        if mode == "hybrid" and self.prior is not None:
            bonus = self.prior(query)
            for i in fused:
                c = self.index.chunks[i]
                fused[i] += bonus.get(f"{c.doc_id}#{c.anchor}", 0.0)
        # The answerer's refusal floor (settings.refusal_min_dense) was calibrated on card-text cosines.
        d, s = dict(dense), dict(sparse)
        order = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
        return [Ranked(i, float(sc), d.get(i), s.get(i)) for i, sc in order], qv

    def to_hit(self, r: Ranked) -> Hit:
        c = self.index.chunks[r.idx]
        return Hit(chunk_id=c.chunk_id, doc_id=c.doc_id, section=c.section, text=c.text,
                   score=round(r.score, 6), source=c.source)

    def search(self, query: str, k: int, mode: str = "hybrid") -> list[Hit]:
        return [self.to_hit(r) for r in self.rank(query, k, mode)]
