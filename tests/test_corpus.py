"""The corpus: the card is a faithful, complete rendering of the source page, its structure is
restored, new cards need no code, and broken cards fail with a message naming the file."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from s2r_tutor import Tutor
from s2r_tutor.retrieval.chunking import chunk_corpus
from s2r_tutor.retrieval.corpus import corpus_hash, load_corpus, read_card
from s2r_tutor.errors import CorpusError
from s2r_tutor.settings import PROJECT_ROOT
from s2r_tutor.text import normalize

CORPUS = PROJECT_ROOT / "corpus"
CARD = CORPUS / "04-08-sim2real.md"
SEED = PROJECT_ROOT / "tests" / "data" / "seed-04-08.txt"

# The card's anchors in reading order (the contract other code and the eval set rely on).
ANCHORS = [
    "summary", "plain-language", "system-loop",
    "why-simulation-cost", "why-simulation-safety", "why-simulation-scale", "why-simulation-control",
    "methods", "domain-randomization", "system-identification", "real-world-fine-tuning", "robust-policy",
    "reality-gap", "rl-vs-sim2real", "physical-system", "quick-memory",
    "related-simulation", "related-domain-randomization", "related-robot-data",
    "why-hard", "solution-engineers",
    "scenario-factory-floor", "scenario-payload", "scenario-sensors", "scenario-precision",
    "related-knowledge", "notes",
]

# Sub-sections and the section they belong to: the page's flattened structure, restored.
PARENTS = {
    "why-simulation-cost": "why-simulation", "why-simulation-safety": "why-simulation",
    "why-simulation-scale": "why-simulation", "why-simulation-control": "why-simulation",
    "domain-randomization": "methods", "system-identification": "methods",
    "real-world-fine-tuning": "methods", "robust-policy": "methods",
    "related-simulation": "related-concepts", "related-domain-randomization": "related-concepts",
    "related-robot-data": "related-concepts",
    "scenario-factory-floor": "solution-engineers", "scenario-payload": "solution-engineers",
    "scenario-sensors": "solution-engineers", "scenario-precision": "solution-engineers",
}

# Headings that are lines of the source page, by the anchor they must carry.
SEED_HEADINGS = {
    "summary": "一句话总结",
    "plain-language": "用人话理解",
    "system-loop": "从仿真训练到真实部署",
    "why-simulation": "为什么需要仿真",
    "methods": "Sim2Real 怎么缩小差距？",
    "reality-gap": "为什么仿真里会走，真实机器人却可能不会？",
    "rl-vs-sim2real": "Sim2Real 和强化学习是什么关系？",
    "physical-system": "Sim2Real 只是一个软件问题吗？",
    "quick-memory": "Sim2Real 快速记忆",
    "related-simulation": "为什么机器人仿真值得单独理解？",
    "related-domain-randomization": "域随机化为什么能帮助迁移？",
    "related-robot-data": "机器人数据如何帮助现场适配？",
    "why-hard": "为什么 Sim2Real 很难",
    "solution-engineers": "解决方案人员什么时候要想到 Sim2Real？",
    "related-knowledge": "关联知识",
    "notes": "我的笔记",
}

FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)


def card_body_normalized() -> str:
    """The card below its front matter, `{#anchor}` tags dropped, HTML comments kept (they hold the
    page's eyebrow labels), normalised."""
    body = FRONT_MATTER.sub("", CARD.read_text("utf-8"))
    return normalize(re.sub(r"\{#[^}]*\}", "", body))


@pytest.fixture(scope="module")
def card():
    return read_card(CARD, CORPUS)


@pytest.fixture()
def corpus_copy(tmp_path) -> Path:
    dest = tmp_path / "corpus"
    shutil.copytree(CORPUS, dest)
    return dest


# --- faithfulness ---------------------------------------------------------------------------------


def test_every_source_line_is_in_the_card():
    body = card_body_normalized()
    lines = [ln for ln in SEED.read_text("utf-8").splitlines() if normalize(ln)]
    assert len(lines) > 150  # the whole page, not an empty file
    missing = [ln for ln in lines if normalize(ln) not in body]
    assert not missing, f"source lines missing from {CARD.name}: {missing}"


def test_card_text_adds_nothing_the_source_does_not_say():
    """Everything the tutor can quote (chunk text; headings excluded) comes from the source page."""
    seed = normalize(SEED.read_text("utf-8"))
    chunks = chunk_corpus(load_corpus(CORPUS))
    invented = [(c.chunk_id, ln) for c in chunks for ln in c.text.splitlines()
                if normalize(ln) and normalize(ln) not in seed]
    assert not invented


def test_front_matter(card):
    meta = card.meta
    assert meta.id == "04-08"
    assert meta.title == "什么是 Sim2Real？"
    assert meta.language == "zh"
    assert meta.related == ["04-04", "04-06", "04-07", "04-09", "04-simulation", "04-domain-randomization"]
    assert card.source == "04-08-sim2real.md"
    seed = SEED.read_text("utf-8")
    for rid in meta.related:  # every related id is one the page links to
        assert rid in seed


# --- structure ------------------------------------------------------------------------------------


def test_expected_anchors_exist_in_reading_order(card):
    anchors = [s.anchor for s in card.sections]
    assert len(anchors) == len(set(anchors))
    missing = [a for a in ANCHORS if a not in anchors]
    assert not missing
    positions = [anchors.index(a) for a in ANCHORS]
    assert positions == sorted(positions)


def test_card_has_one_title_heading(card):
    top = [s for s in card.sections if s.level == 1]
    assert [(s.heading, s.anchor) for s in top] == [("什么是 Sim2Real？", "intro")]
    assert all(s.level >= 2 for s in card.sections[1:])


def test_sub_sections_sit_under_their_section(card):
    by_anchor = {s.anchor: s for s in card.sections}
    for child, parent in PARENTS.items():
        c, p = by_anchor[child], by_anchor[parent]
        assert c.level == p.level + 1, child
        assert c.path[:-1] == p.path, child
    for a in set(ANCHORS) - set(PARENTS):
        assert by_anchor[a].level == 2, a


def test_headings_carry_the_right_anchor(card):
    by_anchor = {s.anchor: s for s in card.sections}
    seed_lines = {ln.strip() for ln in SEED.read_text("utf-8").splitlines()}
    for anchor, heading in SEED_HEADINGS.items():
        assert by_anchor[anchor].heading == heading
        assert heading in seed_lines


# --- growth: a new card needs no code -------------------------------------------------------------

NEW_CARD = """\
---
id: "04-09"
title: 机器人数据为什么重要？
language: zh
related: ["04-08"]
---

# 机器人数据为什么重要？ {#intro}

机器人数据记录真实运行中的关节角度、电机电流和相机画面。

## 数据飞轮 {#data-flywheel}

部署后的机器人持续回传运行日志，数据飞轮让下一版策略在更多真实场景中得到检验。
"""


def test_a_new_card_is_indexed_and_searchable(corpus_copy, tmp_path, tutor):
    """The new card has no questions file while 04-08 has one: its sections must still win on their own topic."""
    (corpus_copy / "04-09-robot-data.md").write_text(NEW_CARD, "utf-8")
    t = Tutor.load(tutor.settings, embedder=tutor.embedder, progress=False,
                   corpus_dir=corpus_copy, index_dir=tmp_path / "index")
    ids = [c.chunk_id for c in t.chunks]
    assert {"04-09#intro", "04-09#data-flywheel"} <= set(ids)
    assert set(ids) >= {c.chunk_id for c in tutor.chunks}  # the first card is all still there
    top = t.search("什么是数据飞轮？", k=3)[0]
    assert (top.chunk_id, top.doc_id, top.source) == ("04-09#data-flywheel", "04-09", "04-09-robot-data.md")


def test_cards_in_sub_folders_are_found_and_drafts_skipped(corpus_copy):
    (corpus_copy / "robotics").mkdir()
    (corpus_copy / "robotics" / "04-09-robot-data.md").write_text(NEW_CARD, "utf-8")
    (corpus_copy / "_draft.md").write_text("not a card", "utf-8")
    (corpus_copy / "notes.txt").write_text("not a card", "utf-8")
    cards = load_corpus(corpus_copy)
    assert [c.source for c in cards] == ["04-08-sim2real.md", "robotics/04-09-robot-data.md"]


def test_corpus_hash_tracks_card_content_only(corpus_copy):
    before = corpus_hash(corpus_copy)
    assert corpus_hash(corpus_copy) == before
    (corpus_copy / "README.txt").write_text("ignored", "utf-8")
    assert corpus_hash(corpus_copy) == before
    card = corpus_copy / CARD.name
    card.write_text(card.read_text("utf-8") + "\n补充一句。\n", "utf-8")
    assert corpus_hash(corpus_copy) != before


def test_scalar_related_is_one_id(corpus_copy):
    text = NEW_CARD.replace('related: ["04-08"]', "related: 04-08")
    (corpus_copy / "04-09.md").write_text(text, "utf-8")
    card = read_card(corpus_copy / "04-09.md", corpus_copy)
    assert card.meta.related == ["04-08"]


# --- broken cards ---------------------------------------------------------------------------------

BROKEN = {
    "no front matter": (b"# Title\n\nSome text.\n", "missing front matter"),
    "unclosed front matter": (b"---\nid: x\ntitle: X\n# Title\n", "not closed"),
    "bad yaml": (b"---\nid: [unclosed\ntitle: X\n---\n# Title\n", "not valid YAML"),
    "front matter not a mapping": (b"---\n- a\n- b\n---\n# Title\n", "must be a mapping"),
    "missing id": (b"---\ntitle: X\n---\n# Title\n\ntext\n", "invalid fields: id"),
    "empty id": (b'---\nid: ""\ntitle: X\n---\n# Title\n\ntext\n', "invalid fields: id"),
    "missing title": (b"---\nid: 04-99\n---\n# Title\n\ntext\n", "invalid fields: title"),
    "no headings": (b"---\nid: 04-99\ntitle: X\n---\njust text\n", "no headings"),
    "invalid utf-8": ("---\nid: 04-99\ntitle: X\n---\n# 标题\n".encode("gbk"), "not valid UTF-8"),
    "binary (png)": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", "not valid UTF-8"),
    "binary (nul bytes)": (b"---\nid: 04-99\ntitle: X\n---\n# T\n\x00\x00\x00", "binary"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_card_raises_corpus_error_naming_the_file(corpus_copy, case):
    data, expected = BROKEN[case]
    (corpus_copy / "99-broken.md").write_bytes(data)
    with pytest.raises(CorpusError) as info:
        load_corpus(corpus_copy)
    message = str(info.value)
    assert message.startswith("99-broken.md: "), message
    assert expected in message


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux /proc (root ignores chmod)")
def test_unreadable_card_is_a_corpus_error_for_hash_and_load(corpus_copy):
    """The index computes the corpus hash before it parses: both must name the file, not raise OSError."""
    (corpus_copy / "99-unreadable.md").symlink_to("/proc/self/mem")  # a regular file whose read fails
    for step in (corpus_hash, load_corpus):
        with pytest.raises(CorpusError, match=r"^99-unreadable\.md: cannot be read \("):
            step(corpus_copy)


def test_duplicate_card_ids_name_both_files(corpus_copy):
    shutil.copy(corpus_copy / CARD.name, corpus_copy / "copy-of-04-08.md")
    with pytest.raises(CorpusError, match="duplicate card id '04-08'") as info:
        load_corpus(corpus_copy)
    assert "04-08-sim2real.md" in str(info.value) and "copy-of-04-08.md" in str(info.value)


def test_missing_or_empty_corpus_folder(tmp_path):
    with pytest.raises(CorpusError, match="corpus folder not found"):
        load_corpus(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CorpusError, match=r"no cards \(\*\.md\)"):
        load_corpus(tmp_path / "empty")
