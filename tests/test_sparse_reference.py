"""sparse.py against a reference implementation: our BM25 scores equal bm25s's "lucene" method
(same idf, log(1 + (N - df + 0.5) / (df + 0.5)), same length normalisation) times (k1 + 1), for
every document and query, on the real card and on a synthetic corpus. bm25s comes with the bench
extra; without it these tests are skipped, not failed."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from s2r_tutor.retrieval.chunking import chunk_corpus, sparse_text
from s2r_tutor.retrieval.corpus import load_corpus
from s2r_tutor.settings import PROJECT_ROOT, Settings
from s2r_tutor.retrieval.sparse import BM25
from s2r_tutor.retrieval.tokenize import make_tokenizer

bm25s = pytest.importorskip("bm25s", reason="bm25s is the reference (pip install -e '.[bench]')")

K1, B = 1.2, 0.75


def reference(docs: list[list[str]]):
    ref = bm25s.BM25(k1=K1, b=B, method="lucene")
    ref.index(docs, show_progress=False)
    return ref


def assert_same_scores(ours: BM25, ref, queries: list[list[str]]) -> int:
    """Every document's score for every query; returns how many (query, doc) pairs scored > 0."""
    positive = 0
    for q in queries:
        mine = ours.scores(" ".join(q))  # the tokenizer below splits on spaces again
        theirs = ref.get_scores(sorted(set(q))) * (K1 + 1)  # ours counts a repeated query term once
        np.testing.assert_allclose(mine, theirs, rtol=2e-5, atol=1e-5, err_msg=f"query {q}")
        positive += int((mine > 0).sum())
    return positive


def test_card_scores_equal_bm25s_lucene_times_k1_plus_1():
    settings = Settings()
    tokenizer = make_tokenizer()
    chunks = chunk_corpus(load_corpus(settings.corpus_dir), settings.max_chunk_chars)
    docs = [tokenizer(sparse_text(c)) for c in chunks]
    ours = BM25.build([sparse_text(c) for c in chunks], tokenizer)
    ours.tokenizer = lambda text: text.split(" ")  # queries arrive pre-tokenized, as bm25s takes them
    cases = [json.loads(line) for line in (PROJECT_ROOT / "tests" / "eval" / "cases.jsonl").read_text("utf-8")
             .splitlines() if line.strip()]
    queries = [tokenizer(c["question"]) for c in cases[:60]]
    queries = [q for q in queries if q]
    assert len(queries) >= 40
    assert assert_same_scores(ours, reference(docs), queries) > 100


def test_synthetic_corpus_scores_equal_bm25s_lucene_times_k1_plus_1():
    """Zipf-like term frequencies, very short and very long documents, repeated terms, rare terms."""
    rng = random.Random(16)
    words = [f"w{i}" for i in range(400)]
    weights = [1 / (i + 1) for i in range(len(words))]
    docs = [rng.choices(words, weights, k=rng.choice([1, 2, 5, 20, 60, 200])) for _ in range(300)]
    ours = BM25.build([" ".join(d) for d in docs], lambda text: text.split(" "))
    queries = [rng.choices(words, weights, k=rng.randint(1, 6)) for _ in range(80)]
    queries += [["w399", "w0"], ["w0", "w0", "w1"], ["not-in-the-corpus"]]
    assert assert_same_scores(ours, reference(docs), queries) > 1000


def test_the_numpy_build_keeps_the_index_format():
    """Term ids are alphabetical and each term's postings are in document order, as before the NumPy
    build, so an index written by an older build still loads and scores the same."""
    docs = ["b a a", "c b", "a", ""]
    bm = BM25.build(docs, lambda text: text.split())
    assert list(bm.vocab) == sorted(bm.vocab) and list(bm.vocab.values()) == [0, 1, 2]
    assert bm.indptr.tolist() == [0, 2, 4, 5] and bm.doc_ids.tolist() == [0, 2, 0, 1, 1]
    assert bm.indptr.dtype == np.int64 and bm.doc_ids.dtype == np.int32 and bm.weights.dtype == np.float32
    assert bm.n_docs == 4 and bm.search("a", 5)[0][0] == 2  # the one-word document wins
    empty = BM25.build([], lambda text: text.split())
    assert empty.n_docs == 0 and empty.search("a", 3) == []
