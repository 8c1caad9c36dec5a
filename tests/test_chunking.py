"""Chunking: one chunk per section, long sections split only at paragraph/bullet bounds, stable ids,
and line spans that point back into the card file."""

from __future__ import annotations

import re
import shutil

import pytest

from s2r_tutor.retrieval.chunking import chunk_card, container_sections
from s2r_tutor.retrieval.corpus import load_corpus, parse_card, read_card
from s2r_tutor.text import normalize, sentences

from test_corpus import ANCHORS as SECTION_ANCHORS, CARD, CORPUS

ANCHORS = ["intro", *SECTION_ANCHORS]  # the title section has a body too

# A chunk may end with a sentence end (CJK or ASCII, optionally a closing quote) or a whole bullet.
SENTENCE_END = re.compile(r"[。！？；.!?][”’」』\"')]?$")
BULLET = re.compile(r"^\s*(?:[-*+]|\d+\.)\s")


def synthetic_card(body: str, *, extra: str = "") -> str:
    return (f'---\nid: "t-01"\ntitle: 测试卡\n---\n\n# 测试卡 {{#intro}}\n\n开头一句。\n\n'
            f"## 很长的一节 {{#long}}\n\n{body}\n\n## 结尾 {{#end}}\n\n结尾一句。\n{extra}")


@pytest.fixture(scope="module")
def card():
    return read_card(CARD, CORPUS)


@pytest.fixture(scope="module")
def card_sentences(card) -> list[str]:
    """The card's own sentences (exact spans of its section bodies), a real-text quarry."""
    out = [s for c in chunk_card(card) for s in sentences(c.text) if SENTENCE_END.search(s)]
    assert len(out) > 30
    return out


def check_split(body: str, parts: list[str], limit: int) -> None:
    """Every part is whole lines of `body`, ends at a sentence or bullet end, fits the limit unless it is
    one indivisible block, and together the parts lose nothing."""
    body_lines = set(body.splitlines())
    for part in parts:
        lines = [ln for ln in part.splitlines() if ln.strip()]
        assert all(ln in body_lines for ln in lines), part
        last = lines[-1]
        assert SENTENCE_END.search(last.rstrip()) or BULLET.match(last), (
            f"chunk ends mid-sentence: ...{part[-40:]!r}")
        if len(part) > limit:
            assert "\n\n" not in part, "an oversized part must be a single paragraph or bullet"
    assert normalize("".join(parts)) == normalize(body)


# --- one chunk per section ------------------------------------------------------------------------


def test_one_chunk_per_section_of_the_card(card):
    chunks = chunk_card(card)
    assert [c.chunk_id for c in chunks] == [f"04-08#{a}" for a in ANCHORS]
    by_anchor = {s.anchor: s for s in card.sections}
    for c in chunks:
        s = by_anchor[c.anchor]
        assert c.doc_id == "04-08" and c.title == card.meta.title and c.source == "04-08-sim2real.md"
        assert c.section == " > ".join(s.path)
        assert "<!--" not in c.text and not c.text.startswith("#")
        assert c.text == c.text.strip() and c.text


def test_parent_headings_without_body_yield_no_chunk(card):
    ids = {c.chunk_id for c in chunk_card(card)}
    assert "04-08#why-simulation" not in ids and "04-08#related-concepts" not in ids


# --- splitting long sections ----------------------------------------------------------------------


def test_long_section_splits_at_paragraph_and_bullet_bounds(card_sentences):
    quarry = card_sentences * 2
    paragraphs = ["".join(quarry[i: i + 3]) for i in range(0, 18, 3)]
    bullets = "\n".join(f"- {s}" for s in quarry[18:34])
    body = "\n\n".join(paragraphs[:3] + ["要点：", bullets] + paragraphs[3:])
    limit = 200
    assert len(body) > 4 * limit
    chunks = [c for c in chunk_card(parse_card(synthetic_card(body), "t.md"), limit) if c.anchor == "long"]
    assert len(chunks) >= 4
    assert [c.chunk_id for c in chunks] == ["t-01#long"] + [f"t-01#long-{i}" for i in range(2, len(chunks) + 1)]
    assert all(c.section == "测试卡 > 很长的一节" for c in chunks)
    check_split(body, [c.text for c in chunks], limit)


def test_hard_wrapped_paragraphs_are_never_cut_mid_sentence(card_sentences):
    """Markdown paragraphs may be wrapped at any column; a wrapped line is not a unit to split at."""
    def wrap(text: str, width: int = 23) -> str:
        return "\n".join(text[i: i + width] for i in range(0, len(text), width))

    paragraphs, cur = [], ""
    for s in card_sentences:  # paragraphs of whole sentences, each over the limit
        cur += s
        if len(cur) > 150:
            paragraphs.append(wrap(cur))
            cur = ""
    paragraphs = paragraphs[:4]
    body = "\n\n".join(paragraphs)
    limit = 120
    assert all(len(p) > limit for p in paragraphs)
    chunks = [c for c in chunk_card(parse_card(synthetic_card(body), "t.md"), limit) if c.anchor == "long"]
    assert [c.text for c in chunks] == paragraphs  # each over-long paragraph stays whole
    check_split(body, [c.text for c in chunks], limit)


def test_a_bullet_keeps_its_continuation_lines(card_sentences):
    items = [f"- {card_sentences[i]}\n  {card_sentences[i + 1]}" for i in range(0, 24, 2)]
    body = "\n".join(items)
    chunks = [c for c in chunk_card(parse_card(synthetic_card(body), "t.md"), 150) if c.anchor == "long"]
    assert len(chunks) > 1
    for c in chunks:
        assert c.text.startswith("- "), c.text  # no chunk starts with an orphaned continuation line
        for item in items:  # a chunk that has an item's bullet line has the whole item
            assert item in c.text or item.split("\n")[0] not in c.text.split("\n")
    check_split(body, [c.text for c in chunks], 150)


# --- stable ids -----------------------------------------------------------------------------------


def test_editing_one_section_leaves_other_chunks_unchanged(tmp_path, card):
    before = {c.chunk_id: c.text for c in chunk_card(card)}
    text = CARD.read_text("utf-8")
    edited = text.replace("仿真永远只是现实世界的近似", "仿真永远只是现实世界的一种近似（已修订）")
    # and a brand-new section in the middle, and a section grown past the split limit
    edited = edited.replace("## Sim2Real 和强化学习是什么关系？",
                            "## 新增一节 {#new-section}\n\n新增内容。\n\n## Sim2Real 和强化学习是什么关系？")
    edited = edited.replace("记录你的判断：", "记录你的判断：\n\n" + "补充说明一句话。" * 100)
    assert edited.count("（已修订）") == 1 and edited.count("{#new-section}") == 1
    (tmp_path / CARD.name).write_text(edited, "utf-8")
    after = {c.chunk_id: c.text for c in chunk_card(load_corpus(tmp_path)[0])}

    assert "04-08#new-section" in after and "04-08#notes-2" in after
    assert after["04-08#reality-gap"] != before["04-08#reality-gap"]
    for cid, text_before in before.items():
        if cid not in ("04-08#reality-gap", "04-08#notes"):
            assert after[cid] == text_before, cid


def test_chunking_is_deterministic(tmp_path):
    shutil.copy(CARD, tmp_path / CARD.name)
    a = chunk_card(load_corpus(tmp_path)[0])
    b = chunk_card(load_corpus(tmp_path)[0])
    assert [c.model_dump() for c in a] == [c.model_dump() for c in b]


def test_duplicate_headings_get_distinct_ids(card_sentences):
    long = "\n\n".join(card_sentences[:12])
    text = synthetic_card(
        "一段话。",
        extra="\n## 小结\n\n第一次小结。\n\n## 小结\n\n第二次小结。\n\n## Notes\n\n" + long
        + "\n\n## Notes\n\n另一段笔记。\n\n## 重复 {#dup}\n\n甲。\n\n## 重复 {#dup}\n\n乙。\n",
    )
    chunks = chunk_card(parse_card(text, "t.md"), 200)
    ids = [c.chunk_id for c in chunks]
    assert len(ids) == len(set(ids)), ids
    assert {"t-01#小结", "t-01#小结-2", "t-01#dup", "t-01#dup-2"} <= set(ids)
    by_id = {c.chunk_id: c.text for c in chunks}
    assert (by_id["t-01#小结"], by_id["t-01#小结-2"]) == ("第一次小结。", "第二次小结。")
    assert (by_id["t-01#dup"], by_id["t-01#dup-2"]) == ("甲。", "乙。")
    notes = [c for c in chunks if c.anchor.startswith("notes")]
    assert len(notes) >= 3 and notes[-1].text == "另一段笔记。"  # a split part and the second 'Notes'


# --- line spans -----------------------------------------------------------------------------------


def test_line_spans_point_at_the_heading_line(card):
    lines = CARD.read_text("utf-8").splitlines()
    for c in chunk_card(card):
        heading = lines[c.line_start - 1]
        assert heading.startswith("#") and heading.rstrip().endswith(f"{{#{c.anchor}}}"), (c.chunk_id, heading)
        assert 1 <= c.line_start < c.line_end <= len(lines)
        span = lines[c.line_start: c.line_end]
        assert all(ln in span for ln in c.text.splitlines()), c.chunk_id


def test_sections_tile_the_file_to_its_last_line(card):
    lines = CARD.read_text("utf-8").splitlines()
    secs = card.sections
    assert lines[secs[0].line_start - 1].startswith("# ")
    for a, b in zip(secs, secs[1:]):
        assert a.line_end + 1 == b.line_start, (a.anchor, b.anchor)
    assert secs[-1].line_end == len(lines)


def test_container_headings_map_to_their_subsections(card):
    assert container_sections(card) == {
        "why-simulation": [f"why-simulation-{x}" for x in ("cost", "safety", "scale", "control")],
        "related-concepts": ["related-simulation", "related-domain-randomization", "related-robot-data"],
    }
    nested = parse_card('---\nid: "t-02"\ntitle: T\n---\n\n# T {#t}\n\n## A {#a}\n<!-- label only -->\n\n'
                        '### B {#b}\n\n### C {#c}\n\nc 的正文。\n\n## D {#d}\n\nd 的正文。\n', "t.md")
    assert container_sections(nested) == {"t": ["c", "d"], "a": ["c"]}  # B has no text: not an answer
