"""The card's English rendering: every Chinese sentence has exactly one English sentence, no English
sentence lacks a Chinese one, the anchors match, and a broken rendering fails naming file:line."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from s2r_tutor.retrieval.alignment import chinese_sentences, quote_english
from s2r_tutor.retrieval.chunking import chunk_corpus
from s2r_tutor.retrieval.corpus import corpus_hash, load_corpus, read_card
from s2r_tutor.errors import CorpusError
from s2r_tutor.settings import PROJECT_ROOT
from s2r_tutor.text import sentences

CORPUS = PROJECT_ROOT / "corpus"
CARD = CORPUS / "04-08-sim2real.md"
RENDERING = CORPUS / "04-08-sim2real.en.md"
_MARK = re.compile(r"<!--\s*s:([^\s>]+?)\.(\d+)\s*-->")
_CJK = re.compile(r"[\u3400-\u9fff]")
# The card's own glosses: each Chinese term, where a sentence uses it, is rendered with its English name.
TERMS = {"域随机化": "Domain Randomization", "系统辨识": "System Identification",
         "真机微调": "Real-world Fine-tuning", "鲁棒策略": "Robust Policy", "Reality Gap": "Reality Gap"}


@pytest.fixture(scope="module")
def card():
    return read_card(CARD, CORPUS)


def test_every_chinese_sentence_has_exactly_one_english_one(card):
    assert card.english is not None
    ids = [(m.group(1), int(m.group(2))) for m in _MARK.finditer(RENDERING.read_text("utf-8"))]
    assert len(ids) == len(set(ids)), "an id is used twice"
    expected = {(s.anchor, n) for s in card.sections for n in range(1, len(chinese_sentences(s.body)) + 1)}
    assert set(ids) == expected  # nothing missing, nothing orphaned
    assert len(ids) == 121
    for s in card.sections:
        zh, en = chinese_sentences(s.body), card.english.sentences[s.anchor]
        assert len(en) == len(zh) and all(e.strip() for e in en), s.anchor
        assert not any(_CJK.search(e) for e in en), f"Chinese left in the English of {s.anchor}"


def test_anchors_and_front_matter_match(card):
    assert list(card.english.headings) == [s.anchor for s in card.sections]
    text = RENDERING.read_text("utf-8")
    assert "\nlanguage: en\n" in text and '\nid: "04-08"\n' in text
    assert card.english.title == "What is Sim2Real?"


def test_terms_are_rendered_as_the_card_glosses_them(card):
    for s in card.sections:
        for zh, en in zip(chinese_sentences(s.body), card.english.sentences[s.anchor]):
            for term, name in TERMS.items():
                if term in zh:
                    assert name in en, (s.anchor, zh, en)
    assert card.english.headings["domain-randomization"] == "01 · Domain Randomization"
    assert card.english.headings["robust-policy"] == "04 · Robust Policy"


def test_chunks_carry_their_english_sentence_by_sentence():
    chunks = chunk_corpus(load_corpus(CORPUS), max_chars=120)  # small chunks: split sections too
    assert any(c.chunk_id.endswith("-2") for c in chunks)
    for c in chunks:
        assert len(c.sentences_en) == len(sentences(c.text)), c.chunk_id
        assert c.section_en.startswith("What is Sim2Real?")
    gap = next(c for c in chunks if c.anchor == "reality-gap")
    quote = "传感器会有噪声，地面也不一定平整；重量"  # spans two sentences
    assert quote_english(gap, quote) == " ".join(gap.sentences_en[:2])
    assert quote_english(gap, "不在卡片里") is None


@pytest.fixture
def corpus_copy(tmp_path) -> Path:
    shutil.copy(CARD, tmp_path / CARD.name)
    shutil.copy(RENDERING, tmp_path / RENDERING.name)
    return tmp_path


def _edit(path: Path, old: str, new: str) -> int:
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), "utf-8")
    return text[: text.index(old)].count("\n") + 1  # the line of the edit


@pytest.mark.parametrize("old,new,says", [
    ("- Real environment: noise, errors, delays and variation that was not covered <!-- s:reality-gap.4 -->\n", "",
     "no English for sentence(s) reality-gap.4"),
    (" <!-- s:reality-gap.2 -->", "", "English text with no sentence id"),
    ("<!-- s:reality-gap.2 -->", "<!-- s:reality-gap.1 -->", "already has its English"),
    ("<!-- s:reality-gap.5 -->", "<!-- s:reality-gap.6 -->", "there is no reality-gap.6"),
    ("<!-- s:reality-gap.5 -->", "<!-- s:summary.1 -->", "names another section"),
    ("<!-- s:reality-gap.5 -->", "<!-- s:reality-gap.5 --> An extra sentence.", "English text with no sentence id"),
    ("{#reality-gap}", "{#reality}", "expected the heading of section 'reality-gap'"),
    ("## Is Sim2Real just", "### Is Sim2Real just", "level-2 heading"),
    ("language: en", "language: zh", "language: en"),
])
def test_a_broken_rendering_is_a_corpus_error_naming_file_and_line(corpus_copy, old, new, says):
    line = _edit(corpus_copy / RENDERING.name, old, new)
    with pytest.raises(CorpusError) as err:
        load_corpus(corpus_copy)
    msg = str(err.value)
    assert says in msg and msg.startswith(RENDERING.name)
    if "front matter" not in msg and "language" not in says and "no English for" not in says:
        assert f"{RENDERING.name}:{line}:" in msg


def test_a_rendering_is_not_a_card_and_needs_its_card(corpus_copy):
    assert [c.meta.id for c in load_corpus(corpus_copy)] == ["04-08"]
    (corpus_copy / CARD.name).rename(corpus_copy / "other.md")
    with pytest.raises(CorpusError, match="English rendering whose card"):
        load_corpus(corpus_copy)


def test_editing_the_rendering_makes_the_index_stale(corpus_copy):
    before = corpus_hash(corpus_copy)
    _edit(corpus_copy / RENDERING.name, "Large-scale training", "Training at scale")
    assert corpus_hash(corpus_copy) != before


def test_a_card_without_a_rendering_loads_as_before(corpus_copy):
    (corpus_copy / RENDERING.name).unlink()
    card = load_corpus(corpus_copy)[0]
    assert card.english is None
    assert all(c.sentences_en == [] and c.section_en == "" for c in chunk_corpus([card]))
