"""How cost grows with the corpus: BM25 (ours, rank_bm25, bm25s) and FAISS (flat, HNSW, IVF) on
synthetic corpora built from the card's sentences (see synth.py), plus embedding throughput.

Every (size, implementation) runs in its own child so its peak RSS is its own. Children share a
work folder: the sentence and query vectors written by `embed_throughput`, and each sparse
implementation's top-10 lists (the parent compares them with ours).
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np

from . import synth
from .measure import summarize, time_each

TOP = 10
EF_SWEEP = (16, 32, 64, 128, 256, 512, 1024)
NPROBE_SWEEP = (1, 2, 4, 8, 16, 32, 64)


def _rss_mb() -> float:
    import psutil

    return round(psutil.Process().memory_info().rss / 2**20, 1)


def _dir_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


# ---------------------------------------------------------------- embedding throughput

def embed_throughput(backend: str, workdir: str, n_chunks: int, save_vectors: bool = False,
                     query_file: str | None = None) -> dict:
    """Passages/s of one embedder (batches of 32, as the index build does) on the card's sentences and
    on synthetic chunk-sized passages. With `save_vectors`, also writes the sentence vectors and the
    eval questions' query vectors that the dense scale runs compose from."""
    from s2r_tutor.embedders import get_embedder

    pool = synth.card_sentences()
    t0 = time.perf_counter()
    emb = get_embedder(backend)
    load_s = time.perf_counter() - t0
    emb.embed_passages(pool.sentences[:4])  # warm-up
    out = {"backend": emb.id, "model_load_s": round(load_s, 3), "sets": {}}
    chunks = synth.make_corpus(pool, n_chunks, seed=7).texts
    vectors = None
    for name, texts in (("card sentences", pool.sentences), ("chunk-sized passages", chunks)):
        t0 = time.perf_counter()
        vecs = np.concatenate([emb.embed_passages(texts[i:i + 32]) for i in range(0, len(texts), 32)])
        dt = time.perf_counter() - t0
        out["sets"][name] = {"n": len(texts), "avg_chars": round(sum(map(len, texts)) / len(texts), 1),
                             "seconds": round(dt, 3), "passages_per_s": round(len(texts) / dt, 1)}
        vectors = vecs if vectors is None else vectors
    if save_vectors:
        from .latency import questions

        qs = questions([query_file])
        np.save(Path(workdir) / "sentence_vectors.npy", vectors, allow_pickle=False)
        qt = time.perf_counter()
        np.save(Path(workdir) / "query_vectors.npy", emb.embed_queries(qs), allow_pickle=False)
        out["query_embed_ms_per_question"] = round((time.perf_counter() - qt) * 1000 / len(qs), 2)
    return out


# ---------------------------------------------------------------- sparse

def _queries(query_file: str, tokenizer) -> list[list[str]]:
    from .latency import questions

    return [tokenizer(q) for q in questions([query_file])]


def sparse_scale(size: int, impl: str, workdir: str, query_file: str, reps: int, max_queries: int = 0) -> dict:
    """Build + query one BM25 implementation over `size` synthetic chunks (pre-tokenized: every
    implementation gets the same jieba tokens, so the comparison is of the index, not the tokenizer)."""
    from s2r_tutor.retrieval.tokenize import make_tokenizer

    tokenizer = make_tokenizer()
    pool = synth.card_sentences()
    corpus = synth.make_corpus(pool, size)
    toks = synth.tokens(pool, corpus, tokenizer)
    qtoks = _queries(query_file, tokenizer)[: max_queries or None]
    out: dict = {"size": size, "impl": impl, "avg_tokens": round(sum(map(len, toks)) / size, 1)}
    if impl == "ours":  # real jieba throughput, for the end-to-end build estimate
        sample = corpus.texts[: min(size, 2000)]
        t0 = time.perf_counter()
        for text in sample:
            tokenizer(text)
        rate = len(sample) / (time.perf_counter() - t0)
        out["jieba_chunks_per_s"] = round(rate, 1)
        out["jieba_full_corpus_s_est"] = round(size / rate, 2)
    del corpus
    folder = Path(workdir) / f"sparse-{impl}-{size}"
    folder.mkdir(parents=True, exist_ok=True)
    rss0 = _rss_mb()
    search, save = _sparse_impl(impl, toks, qtoks, out)
    out["rss_index_mb"] = round(_rss_mb() - rss0, 1)
    out["disk_bytes"] = save(folder)
    tops = [search(i) for i in range(len(qtoks))]
    (Path(workdir) / f"top-{impl}-{size}.json").write_text(json.dumps(tops))
    out["query_ms"] = summarize(time_each(search, range(len(qtoks)), reps))
    return out


def _sparse_impl(impl: str, toks: list[list[str]], qtoks: list[list[str]], out: dict):
    """Build `impl`; return (search(query_index) -> top-10 doc ids, save(folder) -> bytes on disk)."""
    t0 = time.perf_counter()
    if impl == "ours":
        from s2r_tutor.retrieval.sparse import BM25
        from s2r_tutor.storage import atomic_write

        bm = BM25.build([str(i) for i in range(len(toks))], lambda s: toks[int(s)])
        out["build_s"] = round(time.perf_counter() - t0, 3)
        bm.tokenizer = lambda s: qtoks[int(s)]

        def search(i):
            return [d for d, _ in bm.search(str(i), TOP)]

        def save(folder):
            bm.save(folder, atomic_write)
            return _dir_bytes(folder)
    elif impl == "rank_bm25":
        import pickle

        from rank_bm25 import BM25Okapi

        bm = BM25Okapi(toks, k1=1.2, b=0.75)
        out["build_s"] = round(time.perf_counter() - t0, 3)

        def search(i):
            s = bm.get_scores(qtoks[i])
            top = np.argpartition(-s, TOP)[:TOP]
            return [int(d) for d in top[np.argsort(-s[top])] if s[d] > 0]

        def save(folder):  # rank_bm25 has no file format; its pickle size is the honest proxy
            out["disk_note"] = "pickle size (rank_bm25 has no other format; never loaded here)"
            return len(pickle.dumps(bm, protocol=pickle.HIGHEST_PROTOCOL))
    elif impl == "bm25s":
        import bm25s

        bm = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
        bm.index(toks, show_progress=False)
        out["build_s"] = round(time.perf_counter() - t0, 3)

        def search(i):
            docs, scores = bm.retrieve([qtoks[i]], k=TOP, show_progress=False, n_threads=1)
            return [int(d) for d, s in zip(docs[0], scores[0]) if s > 0]

        def save(folder):
            bm.save(str(folder), show_progress=False)
            return _dir_bytes(folder)
    else:
        raise ValueError(f"unknown BM25 implementation {impl!r}: ours, rank_bm25, bm25s")
    return search, save


def sparse_agreement(workdir: str, size: int, impls: list[str]) -> dict[str, float]:
    """Mean overlap of each implementation's top-10 with ours (different idf/ties make it < 1)."""
    ours = json.loads((Path(workdir) / f"top-ours-{size}.json").read_text())
    out = {}
    for impl in impls:
        other = json.loads((Path(workdir) / f"top-{impl}-{size}.json").read_text())
        overlaps = [len(set(a) & set(b)) / max(1, len(a)) for a, b in zip(ours, other) if a]
        out[impl] = round(sum(overlaps) / max(1, len(overlaps)), 3)
    return out


# ---------------------------------------------------------------- dense

def _vectors(size: int, kind: str, workdir: str) -> tuple[np.ndarray, np.ndarray]:
    if kind == "random":
        return synth.random_unit(size, 384, seed=size), synth.random_unit(100, 384, seed=size + 1)
    pool = synth.card_sentences()
    corpus = synth.make_corpus(pool, size)
    sent = np.load(Path(workdir) / "sentence_vectors.npy", allow_pickle=False)
    queries = np.load(Path(workdir) / "query_vectors.npy", allow_pickle=False)
    return synth.composed_vectors(corpus, sent), queries


def dense_scale(size: int, kind: str, vectors: str, workdir: str, reps: int, sweep: bool = True) -> dict:
    """Build one FAISS index over `size` vectors; single-query latency and recall@10 against exact."""
    import faiss

    from s2r_tutor.retrieval.dense import build_dense, dense_bytes

    x, q = _vectors(size, vectors, workdir)
    exact = np.argsort(-(q @ x.T), axis=1)[:, :TOP]
    rss0 = _rss_mb()
    t0 = time.perf_counter()
    if kind == "ivf":
        nlist = max(1, int(round(math.sqrt(size))))
        index = faiss.IndexIVFFlat(faiss.IndexFlatIP(x.shape[1]), x.shape[1], nlist, faiss.METRIC_INNER_PRODUCT)
        train = x[np.random.default_rng(0).choice(size, min(size, 40 * nlist), replace=False)]
        index.train(train)
        index.add(x)
        params = {"nlist": nlist, "train_points": len(train)}
    else:
        index = build_dense(x, kind)  # the project's own builder: flat, or HNSW with dense.py's parameters
        params = ({"M": index.hnsw.nb_neighbors(1), "efConstruction": index.hnsw.efConstruction,
                   "efSearch": index.hnsw.efSearch} if kind == "hnsw" else {})
    out = {"size": size, "kind": kind, "vectors": vectors, "params": params,
           "build_s": round(time.perf_counter() - t0, 3), "rss_index_mb": round(_rss_mb() - rss0, 1),
           "disk_bytes": len(dense_bytes(index)), "raw_vectors_bytes": int(x.nbytes)}

    def measure() -> dict:
        rows = [np.ascontiguousarray(q[i:i + 1]) for i in range(len(q))]
        found = [index.search(r, TOP)[1][0] for r in rows]
        recall = float(np.mean([len(set(f) & set(e)) / TOP for f, e in zip(found, exact)]))
        ms = time_each(lambda r: index.search(r, TOP), rows, reps)
        return {"recall@10": round(recall, 4), "query_ms": summarize(ms)}

    out.update(measure())
    knob = {"hnsw": ("efSearch", EF_SWEEP), "ivf": ("nprobe", NPROBE_SWEEP)}.get(kind)
    if knob and sweep:
        name, values = knob
        default = index.hnsw.efSearch if kind == "hnsw" else index.nprobe
        out["sweep"] = []
        for v in values:
            if kind == "hnsw":
                index.hnsw.efSearch = v
            else:
                index.nprobe = v
            out["sweep"].append({name: v, **measure()})
        if kind == "hnsw":
            index.hnsw.efSearch = default
    return out
