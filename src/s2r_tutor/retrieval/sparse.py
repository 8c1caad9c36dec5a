"""Okapi BM25 over any tokenizer, stored as NumPy arrays + a JSON vocabulary (never pickle).

The index knows nothing of Chinese: the tokenizer callable is injected.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from ..errors import IndexCorruptError
from .tokenize import Tokenizer


class BM25:
    def __init__(self, vocab: dict[str, int], indptr: np.ndarray, doc_ids: np.ndarray, weights: np.ndarray,
                 n_docs: int, tokenizer: Tokenizer | None = None):
        self.vocab = vocab
        self.indptr = indptr  # postings of term t: doc_ids[indptr[t]:indptr[t+1]]
        self.doc_ids = doc_ids
        self.weights = weights  # precomputed idf * tf-saturation per posting
        self.n_docs = n_docs
        self.tokenizer = tokenizer

    @classmethod
    def build(cls, texts: Iterable[str], tokenizer: Tokenizer, k1: float = 1.2, b: float = 0.75) -> "BM25":
        """Okapi BM25 with Lucene's idf, log(1 + (N - df + 0.5) / (df + 0.5)): scores equal bm25s's
        "lucene" method times (k1 + 1) (tests/test_sparse_reference.py). Built with NumPy over flat
        (term, tf) arrays, one document at a time: no per-document dicts or posting lists of tuples,
        so the peak at 100k chunks is a few compact arrays (bench: docs/retrieval.md)."""
        vocab: dict[str, int] = {}  # term -> id in first-seen order; renumbered alphabetically below
        terms, tfs, lengths = array("i"), array("i"), array("i")
        for text in texts:
            tokens = tokenizer(text)
            ids = np.fromiter((vocab.setdefault(t, len(vocab)) for t in tokens), dtype=np.int32)
            uniq, counts = np.unique(ids, return_counts=True)
            terms.frombytes(uniq.astype(np.int32).tobytes())
            tfs.frombytes(counts.astype(np.int32).tobytes())
            lengths.append(len(uniq))  # postings in this document; its token count is counts' sum
        n = len(lengths)
        per_doc = np.frombuffer(lengths, dtype=np.int32) if n else np.zeros(0, np.int32)
        term = np.frombuffer(terms, dtype=np.int32) if len(terms) else np.zeros(0, np.int32)
        tf = np.frombuffer(tfs, dtype=np.int32).astype(np.float32) if len(tfs) else np.zeros(0, np.float32)
        doc = np.repeat(np.arange(n, dtype=np.int32), per_doc)
        doc_len = np.bincount(doc, weights=tf, minlength=n).astype(np.float32)
        avgdl = float(doc_len.mean()) if n and doc_len.mean() > 0 else 1.0
        # Alphabetical term ids, as the index format has always had them (bm25_vocab.json).
        names = list(vocab)
        order = sorted(range(len(names)), key=names.__getitem__)
        rank = np.empty(len(names), dtype=np.int32)
        rank[np.asarray(order, dtype=np.int64)] = np.arange(len(names), dtype=np.int32)
        term = rank[term] if len(term) else term
        by_term = np.argsort(term, kind="stable")  # stable: each term's postings stay in document order
        term, doc, tf = term[by_term], doc[by_term], tf[by_term]
        df = np.bincount(term, minlength=len(names))
        indptr = np.concatenate([[0], np.cumsum(df)]).astype(np.int64)
        idf = np.log1p((n - df + 0.5) / (df + 0.5)).astype(np.float32)
        norm = tf * (k1 + 1) / (tf + k1 * (1 - b + b * doc_len[doc] / np.float32(avgdl)))
        weights = (idf[term] * norm).astype(np.float32)
        return cls({names[o]: i for i, o in enumerate(order)}, indptr, doc.astype(np.int32), weights, n, tokenizer)

    def scores(self, query: str) -> np.ndarray:
        assert self.tokenizer is not None, "BM25 needs a tokenizer to score a text query"
        scores = np.zeros(self.n_docs, dtype=np.float32)
        for term in set(self.tokenizer(query)):
            t = self.vocab.get(term)
            if t is not None:
                lo, hi = self.indptr[t], self.indptr[t + 1]
                np.add.at(scores, self.doc_ids[lo:hi], self.weights[lo:hi])
        return scores

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        s = self.scores(query)
        k = min(k, self.n_docs)
        if k <= 0:
            return []
        top = np.argpartition(-s, k - 1)[:k] if k < self.n_docs else np.arange(self.n_docs)
        top = top[np.argsort(-s[top], kind="stable")]
        return [(int(i), float(s[i])) for i in top if s[i] > 0]

    def save(self, folder: Path, write) -> None:
        """`write(path, bytes)` is the caller's atomic writer."""
        import io

        for name, arr in (("indptr", self.indptr), ("doc_ids", self.doc_ids), ("weights", self.weights)):
            buf = io.BytesIO()
            np.save(buf, arr, allow_pickle=False)
            write(folder / f"bm25_{name}.npy", buf.getvalue())
        meta = {"n_docs": self.n_docs, "vocab": self.vocab}
        write(folder / "bm25_vocab.json", json.dumps(meta, ensure_ascii=False).encode())

    @classmethod
    def load(cls, folder: Path, tokenizer: Tokenizer) -> "BM25":
        try:
            meta = json.loads((folder / "bm25_vocab.json").read_text("utf-8"))
            arrays = {n: np.load(folder / f"bm25_{n}.npy", allow_pickle=False)
                      for n in ("indptr", "doc_ids", "weights")}
            bm = cls(dict(meta["vocab"]), arrays["indptr"], arrays["doc_ids"], arrays["weights"],
                     int(meta["n_docs"]), tokenizer)
        except (OSError, ValueError, KeyError, TypeError, EOFError) as exc:
            raise IndexCorruptError(f"BM25 index in {folder} is unreadable ({exc.__class__.__name__})") from None
        # Types too: a float or 2-D array, or a term id that is not an int, loads fine and then
        # crashes the first search (slicing, fancy indexing and np.add.at need these exact kinds).
        for name, arr, kinds in (("indptr", bm.indptr, "iu"), ("doc_ids", bm.doc_ids, "iu"),
                                 ("weights", bm.weights, "f")):
            if arr.ndim != 1 or arr.dtype.kind not in kinds:
                raise IndexCorruptError(f"BM25 index in {folder}: bm25_{name}.npy is {arr.ndim}-D {arr.dtype}")
        if not all(type(t) is int and 0 <= t < len(bm.vocab) for t in bm.vocab.values()):
            raise IndexCorruptError(f"BM25 index in {folder}: bm25_vocab.json has invalid term ids")
        if len(bm.indptr) != len(bm.vocab) + 1 or len(bm.doc_ids) != len(bm.weights) or \
                (len(bm.indptr) and bm.indptr[-1] != len(bm.doc_ids)):
            raise IndexCorruptError(f"BM25 index in {folder} is inconsistent")
        if len(bm.doc_ids) and (bm.doc_ids.max() >= bm.n_docs or bm.doc_ids.min() < 0):
            raise IndexCorruptError(f"BM25 index in {folder} points past its documents")
        return bm
